/**
 * Named lists under concurrency on PostgreSQL (review of 408ce52): a statement paused by a row lock that
 * another transaction holds (as a slow statement would be), while a second request runs. SQLite has a
 * single writer: these windows do not exist there (vitest.config.ts runs this file on PostgreSQL only).
 */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { resetEnvCache } from "~/env.server";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createShopWithKey } from "../factories";
import { apiHarness, type CallInit } from "../support/harness";
import { eventsOf } from "../support/wishlist-rows";

const { callsOf } = await apiHarness();

type Mode = "public" | "private";

async function shop(settings: Record<string, unknown> = {}) {
  const { shop, secret } = await createShopWithKey();
  await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true, ...settings } });
  return { shop, secret, calls: callsOf({ shop, secret }) };
}

type Shop = Awaited<ReturnType<typeof shop>>;

/** One shopper of `mode` in shop `s`. */
function shopper(s: Shop, mode: Mode, ids: { aid?: string; customerId?: string } = {}) {
  const aid = ids.aid ?? randomUUID();
  const customerId = ids.customerId ?? String(7_000_000 + Math.floor(Math.random() * 1_000_000));
  const call = (path: string, init: CallInit = {}) => {
    const method = init.method ?? "GET";
    const hasBody = init.body !== undefined || (method !== "GET" && method !== "DELETE");
    const body = hasBody ? { ...((init.body as object) ?? {}) } : undefined;
    const sep = path.includes("?") ? "&" : "?";
    if (mode === "public") return s.calls.publicCall(`${path}${sep}aid=${aid}`, { ...init, ...(body ? { body } : {}) });
    return s.calls.privateCall(`${path}${sep}customerId=${customerId}`, { ...init, ...(body ? { body } : {}) });
  };
  const j = async (path: string, init: CallInit = {}) => {
    const r = await call(path, init);
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  };
  return { aid, customerId, call, j };
}

const itemsOfShop = (shopId: string) =>
  database().selectFrom("Item").selectAll().where("shopId", "=", shopId).orderBy("id").execute();

afterEach(() => {
  delete process.env.MAX_ITEMS_PER_LIST;
  resetEnvCache();
});

describe("named lists under concurrency (PostgreSQL)", () => {
  /**
   * The merge locks the customer's default list but not their list of the guest list's name. A row lock held
   * on one of that list's items (as a slow statement would) pauses the merge between its read of the
   * customer's items and its move of the guest's; a save by the customer meanwhile is not blocked.
   */
  async function pausedMerge(max: number, guestProducts: string[], customerProducts: string[], concurrent: string[]) {
    process.env.MAX_ITEMS_PER_LIST = String(max);
    resetEnvCache();
    const s = await shop();
    const aid = randomUUID();
    const customerId = String(8_000_000 + Math.floor(Math.random() * 1_000_000));
    const guest = shopper(s, "public", { aid });
    const cust = shopper(s, "private", { customerId });
    const gg = (await guest.j("/storefront/wishlists", { method: "POST", body: { name: "Gifts" } })).body;
    for (const productId of guestProducts)
      await guest.j("/storefront/wishlist/items", { method: "POST", body: { productId, handle: "h", listId: gg.id } });
    const cg = (await cust.j("/storefront/wishlists", { method: "POST", body: { name: "gifts" } })).body;
    const customerItems: Array<{ id: string }> = [];
    for (const productId of customerProducts)
      customerItems.push(
        (
          await cust.j("/storefront/wishlist/items", {
            method: "POST",
            body: { productId, handle: "h", listId: cg.id },
          })
        ).body,
      );
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = database()
      .transaction()
      .execute(async (tx) => {
        await sql`select id from "Item" where id = ${customerItems[0]!.id} for update`.execute(tx);
        locked();
        await released;
      });
    await isLocked;
    const identify = s.calls.privateCall("/storefront/identify", {
      method: "POST",
      body: { anonymousId: aid, customerId },
    });
    await new Promise((resolve) => setTimeout(resolve, 500)); // the merge now waits on the item row
    // The saves are started, not awaited: with the merge holding the list, they wait for it.
    const saving = concurrent.map((productId) =>
      cust.j("/storefront/wishlist/items", { method: "POST", body: { productId, handle: "h", listId: cg.id } }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await holder;
    const saves = (await Promise.all(saving)).map((answer) => answer.status);
    const answer = await identify;
    const text = await answer.text();
    const rows = (await itemsOfShop(s.shop.id)).filter((it) => it.listId === cg.id).map((it) => it.productId);
    const events = (await eventsOf(s.shop.id, "list.merged")).length;
    return { saves, identify: answer.status, body: text.slice(0, 300), rows, events };
  }

  it("merge: a product the customer saves meanwhile to their same-named list waits for the merge, no 500", async () => {
    const out = await pausedMerge(10, ["1", "1000000"], ["1"], ["1000000"]);
    // The merge moved the guest's 1000000 first: the save finds it saved (200).
    expect(out).toMatchObject({ identify: 200, saves: [200], events: 2 });
    expect(out.rows.sort()).toEqual(["1", "1000000"]);
  });

  it("merge: the item cap of the customer's same-named list holds against a save meanwhile", async () => {
    const out = await pausedMerge(3, ["1", "3000000", "4000000"], ["1"], ["5000000"]);
    // The merge filled the list to the cap first: the save is refused.
    expect(out).toMatchObject({ identify: 200, saves: [409] });
    expect(out.rows.sort()).toEqual(["1", "3000000", "4000000"]);
  });

  /** Holds FOR UPDATE on one row (as a slow statement would) until `release` is called. */
  async function holdRow(table: "Item" | "List", id: string) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const done = database()
      .transaction()
      .execute(async (tx) => {
        await sql`select id from ${sql.table(table)} where id = ${id} for update`.execute(tx);
        locked();
        await released;
      });
    await isLocked;
    return async () => {
      release();
      await done;
    };
  }
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("merge: a guest list moved across reports the items it carried, a save meanwhile included", async () => {
    const s = await shop();
    const aid = randomUUID();
    const customerId = String(8_000_000 + Math.floor(Math.random() * 1_000_000));
    const guest = shopper(s, "public", { aid });
    const cust = shopper(s, "private", { customerId });
    await guest.j("/storefront/wishlist/items", { method: "POST", body: { productId: "1", handle: "h" } });
    const room = (await guest.j("/storefront/wishlists", { method: "POST", body: { name: "Room" } })).body;
    await guest.j("/storefront/wishlist/items", {
      method: "POST",
      body: { productId: "2", handle: "h", listId: room.id },
    });
    const custItem = (
      await cust.j("/storefront/wishlist/items", { method: "POST", body: { productId: "1", handle: "h" } })
    ).body;
    // the merge of the default lists updates the customer's item 1 (the guest's date is earlier): pause it there
    const release = await holdRow("Item", custItem.id);
    const identify = s.calls.privateCall("/storefront/identify", {
      method: "POST",
      body: { anonymousId: aid, customerId },
    });
    await pause(500);
    const save = await guest.j("/storefront/wishlist/items", {
      method: "POST",
      body: { productId: "3", handle: "h", listId: room.id },
    });
    await release();
    const answer = await identify;
    const body = await answer.json();
    const moved = body.lists.find((entry: { fromListId: string }) => entry.fromListId === room.id);
    const carried = (await itemsOfShop(s.shop.id)).filter((it) => it.listId === room.id).length;
    const event = (await eventsOf(s.shop.id, "list.merged"))
      .map((e) => JSON.parse(e.data))
      .find((d) => d.fromListId === room.id);
    expect(save.status).toBe(201);
    expect(moved.outcome).toBe("moved");
    expect([moved.mergedCount, event.mergedCount]).toEqual([carried, carried]);
  });

  it("remove by itemId: a move in between does not make it miss the item", async () => {
    const s = await shop();
    const x = shopper(s, "private");
    const a = (await x.j("/storefront/wishlists", { method: "POST", body: { name: "A" } })).body;
    const b = (await x.j("/storefront/wishlists", { method: "POST", body: { name: "B" } })).body;
    const item = (
      await x.j("/storefront/wishlist/items", { method: "POST", body: { productId: "1", handle: "h", listId: a.id } })
    ).body;
    const release = await holdRow("List", a.id);
    const move = x.j(`/storefront/wishlist/items/${item.id}/move`, { method: "POST", body: { listId: b.id } });
    await pause(300); // the move waits for list A
    const remove = x.call(`/storefront/wishlist/items?itemId=${item.id}`, { method: "DELETE", body: {} });
    await pause(300); // the removal found the item on A and waits for A too
    await release();
    const [moved, removed] = await Promise.all([move, remove]);
    const left = (await itemsOfShop(s.shop.id))
      .filter((it) => it.id === item.id)
      .map((it) => (it.listId === b.id ? "on B" : "elsewhere"));
    expect(moved.status).toBe(200);
    // The removal follows the item to the list it was moved to, and removes it there.
    expect(removed.status).toBe(204);
    expect(left).toEqual([]);
  });
});
