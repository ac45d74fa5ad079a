/**
 * Named lists, item notes and quantities, moves and copies (issue 28, docs/decisions/046-named-lists.md),
 * in the three calling modes, with bad input answered by problem documents and nothing written. Every
 * answer is checked against the served OpenAPI document by the harness.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createShopWithKey } from "../factories";
import { apiHarness, type CallInit } from "../support/harness";
import { eventsOf } from "../support/wishlist-rows";

const { callsOf } = await apiHarness();

type Mode = "public" | "private" | "proxy";
const MODES: Mode[] = ["public", "private", "proxy"];

/** A shop with named lists on, and one shopper of the mode: every call names that shopper. */
async function shopper(mode: Mode, settings: Record<string, unknown> = {}) {
  const { shop, secret } = await createShopWithKey();
  await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true, ...settings } });
  const calls = callsOf({ shop, secret });
  const aid = randomUUID();
  const customerId = String(7_000_000 + Math.floor(Math.random() * 1_000_000));
  const call = (path: string, init: CallInit = {}) => {
    const method = init.method ?? "GET";
    const hasBody = init.body !== undefined || (method !== "GET" && method !== "DELETE");
    const body = hasBody ? { ...((init.body as object) ?? {}) } : undefined;
    if (mode === "proxy") {
      // The proxy signs its query: parameters go to the signer, not onto the path.
      const [bare, search = ""] = path.split("?");
      const query = Object.fromEntries(new URLSearchParams(search));
      return calls.proxyCall(bare!, customerId, { ...init, query, ...(body ? { body } : {}) });
    }
    const sep = path.includes("?") ? "&" : "?";
    if (mode === "public") return calls.publicCall(`${path}${sep}aid=${aid}`, { ...init, ...(body ? { body } : {}) });
    return calls.privateCall(`${path}${sep}customerId=${customerId}`, { ...init, ...(body ? { body } : {}) });
  };
  return { shop, calls, call, aid, customerId };
}

const json = async (response: Response) => ({ status: response.status, body: await response.json() });
const listRows = (shopId: string) =>
  database().selectFrom("List").select(["id", "name", "isDefault"]).where("shopId", "=", shopId).execute();
const eventTypes = async (shopId: string) => (await eventsOf(shopId)).map((row) => row.type);

describe.each(MODES)("named lists, %s", (mode) => {
  it("names each list's products with include=products (the theme's hearts and picker), and the config says lists are on", async () => {
    const { call } = await shopper(mode);
    const gifts = (await json(await call("/storefront/wishlists", { method: "POST", body: { name: "Gifts" } }))).body;
    const hat = (
      await json(
        await call("/storefront/wishlist/items", {
          method: "POST",
          body: { productId: "101", variantId: "201", handle: "red-hat", listId: gifts.id },
        }),
      )
    ).body;
    await call("/storefront/wishlist/toggle", { method: "POST", body: { productId: "102", handle: "blue-hat" } });
    const lists = await json(await call("/storefront/wishlists?include=products"));
    expect(lists.status).toBe(200);
    expect(lists.body.data.map((list: { name: string; products: unknown[] }) => [list.name, list.products])).toEqual([
      ["Wishlist", [{ itemId: expect.stringMatching(/^itm_/), productId: "102", variantId: null, handle: "blue-hat" }]],
      ["Gifts", [{ itemId: hat.id, productId: "101", variantId: "201", handle: "red-hat" }]],
    ]);
    // Without it the summaries stay light; anything else is refused
    const plain = (await json(await call("/storefront/wishlists"))).body;
    expect(plain.data.every((list: object) => !("products" in list))).toBe(true);
    const refused = await json(await call("/storefront/wishlists?include=items"));
    expect(refused).toMatchObject({ status: 400, body: { type: expect.stringContaining("invalid-parameter") } });
    const config = await json(await call("/storefront/config", { headers: { "Accept-Language": "en" } }));
    expect(config.body).toMatchObject({ multipleLists: true, maxLists: 20 });
  });

  it("include=products of a guest or customer with no list yet shows the default list, empty", async () => {
    const { call } = await shopper(mode);
    const lists = await json(await call("/storefront/wishlists?include=products"));
    expect(lists.body.data).toEqual([expect.objectContaining({ id: null, default: true, count: 0, products: [] })]);
  });

  it("creates, lists, reads, renames and deletes lists; saves go to the list named", async () => {
    const { shop, call } = await shopper(mode);
    // GIVEN a shopper with no list: their default list shows, not made yet
    const before = await json(await call("/storefront/wishlists"));
    expect(before).toMatchObject({
      status: 200,
      body: { data: [{ id: null, name: "Wishlist", default: true, count: 0 }], multipleLists: true, maxLists: 20 },
    });
    // WHEN they create "Gifts": the default list is made too, and list.created is emitted
    const gifts = await json(await call("/storefront/wishlists", { method: "POST", body: { name: "  Gifts " } }));
    expect(gifts).toMatchObject({ status: 201, body: { name: "Gifts", default: false, count: 0 } });
    const giftsId = gifts.body.id as string;
    // and save a product to it, and another to the default list
    const saved = await json(
      await call("/storefront/wishlist/items", {
        method: "POST",
        body: { productId: "101", handle: "red-hat", listId: giftsId },
      }),
    );
    expect(saved.status).toBe(201);
    await call("/storefront/wishlist/toggle", { method: "POST", body: { productId: "102", handle: "blue-hat" } });
    // THEN the lists show their counts, the default first
    const lists = (await json(await call("/storefront/wishlists"))).body.data;
    expect(lists.map((list: { name: string; count: number }) => [list.name, list.count])).toEqual([
      ["Wishlist", 1],
      ["Gifts", 1],
    ]);
    const read = await json(await call(`/storefront/wishlists/${giftsId}`));
    expect(read.body).toMatchObject({ id: giftsId, name: "Gifts", default: false, count: 1 });
    expect(read.body.items.map((item: { productId: string }) => item.productId)).toEqual(["101"]);
    // the default list read is unchanged by the named list
    const wishlist = (await json(await call("/storefront/wishlist"))).body;
    expect(wishlist.items.map((item: { productId: string }) => item.productId)).toEqual(["102"]);
    // the same product may sit on two lists
    const again = await call("/storefront/wishlist/toggle", {
      method: "POST",
      body: { productId: "102", handle: "blue-hat", listId: giftsId },
    });
    expect((await again.json()).added).toBe(true);
    // renaming: another case of its own name is fine, the default list's name is taken
    const renamed = await json(
      await call(`/storefront/wishlists/${giftsId}`, { method: "PATCH", body: { name: "GIFTS" } }),
    );
    expect(renamed).toMatchObject({ status: 200, body: { name: "GIFTS" } });
    const clash = await json(
      await call(`/storefront/wishlists/${giftsId}`, { method: "PATCH", body: { name: "wishlist" } }),
    );
    expect(clash.status).toBe(409);
    expect(clash.body.type).toMatch(/\/problems\/list-name-taken$/);
    // removing by listId; deleting the list takes its items with it (list.deleted, no item.removed)
    const removed = await call(`/storefront/wishlist/items?listId=${giftsId}`, {
      method: "DELETE",
      body: { productId: "101" },
    });
    expect(removed.status).toBe(204);
    const deleted = await call(`/storefront/wishlists/${giftsId}`, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    expect((await call(`/storefront/wishlists/${giftsId}`)).status).toBe(404);
    expect((await listRows(shop.id)).map((row) => row.name)).toEqual(["Wishlist"]);
    expect(await eventTypes(shop.id)).toEqual([
      "list.created",
      "item.added",
      "item.added",
      "item.added",
      "item.removed",
      "list.deleted",
    ]);
    const [deletedEvent] = (await eventsOf(shop.id)).filter((row) => row.type === "list.deleted");
    expect(JSON.parse(deletedEvent!.data)).toMatchObject({ listId: giftsId, name: "GIFTS", count: 1 });
  });

  it("sets an item's note and quantity, moves and copies it, with one event each", async () => {
    const { shop, call } = await shopper(mode);
    const item = (
      await json(
        await call("/storefront/wishlist/items", { method: "POST", body: { productId: "201", handle: "scarf" } }),
      )
    ).body;
    const room = (await json(await call("/storefront/wishlists", { method: "POST", body: { name: "Living room" } })))
      .body;
    const note = "<b>size M</b> for Sam & co";
    const patched = await json(
      await call(`/storefront/wishlist/items/${item.id}`, { method: "PATCH", body: { note, quantity: 3 } }),
    );
    expect(patched).toMatchObject({ status: 200, body: { id: item.id, note, quantity: 3 } });
    // the same values again: no change, no event
    await call(`/storefront/wishlist/items/${item.id}`, { method: "PATCH", body: { note, quantity: 3 } });
    const copied = await json(
      await call(`/storefront/wishlist/items/${item.id}/move`, {
        method: "POST",
        body: { listId: room.id, copy: true },
      }),
    );
    expect(copied).toMatchObject({ status: 201, body: { productId: "201", note, quantity: 3 } });
    expect(copied.body.id).not.toBe(item.id);
    // moving onto a list that holds the product already is a 409 naming the item there
    const clash = await json(
      await call(`/storefront/wishlist/items/${item.id}/move`, { method: "POST", body: { listId: room.id } }),
    );
    expect(clash).toMatchObject({ status: 409, body: { itemId: copied.body.id } });
    expect(clash.body.type).toMatch(/\/problems\/item-in-list$/);
    // move the copy back after removing the original: it keeps note and quantity
    await call(`/storefront/wishlist/items?itemId=${item.id}`, { method: "DELETE", body: {} });
    const wishlist = (await json(await call("/storefront/wishlist"))).body;
    const moved = await json(
      await call(`/storefront/wishlist/items/${copied.body.id}/move`, {
        method: "POST",
        body: { listId: wishlist.id },
      }),
    );
    expect(moved).toMatchObject({ status: 200, body: { id: copied.body.id, note, quantity: 3 } });
    const events = (await eventsOf(shop.id)).map((row) => ({ type: row.type, data: JSON.parse(row.data) }));
    expect(events.map((event) => event.type)).toEqual([
      "item.added",
      "list.created",
      "item.updated",
      "item.added",
      "item.removed",
      "item.removed",
      "item.added",
    ]);
    expect(events[2]!.data).toMatchObject({ changed: ["note", "quantity"], item: { note, quantity: 3 } });
    expect(events[5]!.data).toMatchObject({ listId: room.id, movedToListId: wishlist.id });
    expect(events[6]!.data).toMatchObject({ listId: wishlist.id, movedFromListId: room.id });
    // clearing the note
    const cleared = await json(
      await call(`/storefront/wishlist/items/${copied.body.id}`, { method: "PATCH", body: { note: null } }),
    );
    expect(cleared.body).toMatchObject({ note: null, quantity: 3 });
  });

  it("answers bad input with problem documents and writes nothing", async () => {
    const { shop, call } = await shopper(mode, { maxListsPerOwner: 2 });
    const gifts = (await json(await call("/storefront/wishlists", { method: "POST", body: { name: "Gifts" } }))).body;
    const item = (
      await json(
        await call("/storefront/wishlist/items", { method: "POST", body: { productId: "301", handle: "hat" } }),
      )
    ).body;
    const lists = await listRows(shop.id);
    const eventsBefore = (await eventsOf(shop.id)).length;
    const problem = async (path: string, init: CallInit, status: number, type: string) => {
      const answer = await json(await call(path, init));
      expect({ path, status: answer.status, type: answer.body.type }).toMatchObject({
        status,
        type: expect.stringMatching(new RegExp(`/problems/${type}$`)),
      });
      return answer.body;
    };
    const create = (name: unknown) => ({ method: "POST", body: { name } });
    await problem("/storefront/wishlists", create(""), 422, "validation-error");
    await problem("/storefront/wishlists", create("   "), 422, "validation-error");
    await problem("/storefront/wishlists", create("x".repeat(61)), 422, "validation-error");
    await problem("/storefront/wishlists", create("tab\there"), 422, "validation-error");
    await problem("/storefront/wishlists", create(42), 422, "validation-error");
    await problem("/storefront/wishlists", create("\u3164\u2800"), 422, "validation-error"); // draws nothing
    await problem("/storefront/wishlists", create("a\u202eb"), 422, "validation-error"); // reverses the text shown
    await problem("/storefront/wishlists", create("x\ud800"), 422, "validation-error"); // a lone surrogate
    await problem("/storefront/wishlists", create("gIFTS"), 409, "list-name-taken");
    const full = await problem("/storefront/wishlists", create("Third"), 409, "too-many-lists");
    expect(full.maxLists).toBe(2);
    const defaultId = lists.find((row) => row.isDefault)!.id;
    await problem(`/storefront/wishlists/${defaultId}`, { method: "DELETE" }, 409, "default-list");
    const patch = (body: object) => ({ method: "PATCH", body });
    await problem(`/storefront/wishlist/items/${item.id}`, patch({ quantity: 0 }), 422, "validation-error");
    await problem(`/storefront/wishlist/items/${item.id}`, patch({ quantity: 100 }), 422, "validation-error");
    await problem(`/storefront/wishlist/items/${item.id}`, patch({ quantity: 2.5 }), 422, "validation-error");
    await problem(`/storefront/wishlist/items/${item.id}`, patch({ note: "n".repeat(281) }), 422, "validation-error");
    await problem(`/storefront/wishlist/items/${item.id}`, patch({ note: "a\u202eb" }), 422, "validation-error");
    await problem(`/storefront/wishlist/items/${item.id}`, patch({ note: "a\u0000b" }), 422, "validation-error");
    await problem("/storefront/wishlists/itm_1", { method: "GET" }, 400, "invalid-id");
    await problem(
      "/storefront/wishlist/items",
      { method: "POST", body: { productId: "9", handle: "h", listId: "x" } },
      422,
      "validation-error",
    );

    // another shopper's and another shop's lists and items are 404, never touched
    const other = await shopper(mode);
    const theirs = (await json(await other.call("/storefront/wishlists", { method: "POST", body: { name: "Theirs" } })))
      .body;
    const theirItem = (
      await json(
        await other.call("/storefront/wishlist/items", {
          method: "POST",
          body: { productId: "401", handle: "x", listId: theirs.id },
        }),
      )
    ).body;
    const otherLists = await listRows(other.shop.id);
    const otherEvents = (await eventsOf(other.shop.id)).length;
    await problem(`/storefront/wishlists/${theirs.id}`, { method: "GET" }, 404, "not-found");
    await problem(`/storefront/wishlists/${theirs.id}`, patch({ name: "Mine" }), 404, "not-found");
    await problem(`/storefront/wishlists/${theirs.id}`, { method: "DELETE" }, 404, "not-found");
    await problem(`/storefront/wishlists/${theirs.id}/share`, { method: "POST" }, 404, "not-found");
    await problem(
      "/storefront/wishlist/items",
      { method: "POST", body: { productId: "9", handle: "h", listId: theirs.id } },
      404,
      "not-found",
    );
    await problem(
      "/storefront/wishlist/toggle",
      { method: "POST", body: { productId: "9", handle: "h", listId: theirs.id } },
      404,
      "not-found",
    );
    await problem(`/storefront/wishlist/items/${theirItem.id}`, patch({ quantity: 2 }), 404, "not-found");
    await problem(
      `/storefront/wishlist/items/${theirItem.id}/move`,
      { method: "POST", body: { listId: gifts.id } },
      404,
      "not-found",
    );
    await problem(
      `/storefront/wishlist/items/${item.id}/move`,
      { method: "POST", body: { listId: theirs.id } },
      404,
      "not-found",
    );
    // removing another's item by id answers 204 and removes nothing
    expect(
      (await call(`/storefront/wishlist/items?itemId=${theirItem.id}`, { method: "DELETE", body: {} })).status,
    ).toBe(204);

    expect(await listRows(shop.id)).toEqual(lists);
    expect((await eventsOf(shop.id)).length).toBe(eventsBefore);
    expect(await listRows(other.shop.id)).toEqual(otherLists);
    expect((await eventsOf(other.shop.id)).length).toBe(otherEvents);
    const stillThere = await json(await other.call(`/storefront/wishlists/${theirs.id}`));
    expect(stillThere.body.items.map((row: { id: string; quantity: number }) => [row.id, row.quantity])).toEqual([
      [theirItem.id, 1],
    ]);
  });

  it("refuses names of characters that draw nothing (a combining grapheme joiner, variation selectors), as it refuses blank ones", async () => {
    const { shop, call } = await shopper(mode);
    const before = await listRows(shop.id);
    for (const name of ["\u034f", "\ufe0f \u180b", "\u17b4\u{e0101}"]) {
      const answer = await json(await call("/storefront/wishlists", { method: "POST", body: { name } }));
      expect({ name, status: answer.status, type: answer.body.type }).toEqual({
        name,
        status: 422,
        type: expect.stringMatching(/\/problems\/validation-error$/),
      });
    }
    expect(await listRows(shop.id)).toEqual(before);
    // A joiner or a selector beside something visible is part of a name as before
    const created = await json(
      await call("/storefront/wishlists", { method: "POST", body: { name: "\u2764\ufe0f Gifts" } }),
    );
    expect(created).toMatchObject({ status: 201, body: { name: "\u2764\ufe0f Gifts" } });
  });

  it("takes names that need joiners: Persian words, emoji sequences; 60 characters counted as such", async () => {
    const { call } = await shopper(mode);
    for (const name of [
      "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
      "\u{1f468}\u200d\u{1f469}\u200d\u{1f467} Family",
      "\u{1f381}".repeat(60),
    ]) {
      const created = await json(await call("/storefront/wishlists", { method: "POST", body: { name } }));
      expect({ name, status: created.status, stored: created.body.name }).toEqual({ name, status: 201, stored: name });
    }
  });

  it("shares one list with its own token; the shared view shows it", async () => {
    const { call, calls } = await shopper(mode);
    const gifts = (await json(await call("/storefront/wishlists", { method: "POST", body: { name: "Gifts" } }))).body;
    await call("/storefront/wishlist/items", {
      method: "POST",
      body: { productId: "501", handle: "h", listId: gifts.id },
    });
    const shared = await json(await call(`/storefront/wishlists/${gifts.id}/share`, { method: "POST" }));
    expect(shared).toMatchObject({ status: 200, body: { listId: gifts.id, enabled: true } });
    const view = await json(await calls.publicCall(`/storefront/lists/${shared.body.token}`));
    expect(view.body).toMatchObject({ id: gifts.id, name: "Gifts", default: false, count: 1 });
    expect((await call(`/storefront/wishlists/${gifts.id}/share`, { method: "DELETE" })).status).toBe(204);
    expect((await calls.publicCall(`/storefront/lists/${shared.body.token}`)).status).toBe(404);
  });
});

describe("named lists, shop rules", () => {
  it("refuses a new list where the shop keeps one list per shopper (the default)", async () => {
    const { shop, call } = await shopper("public", { multipleLists: false });
    const answer = await json(await call("/storefront/wishlists", { method: "POST", body: { name: "Gifts" } }));
    expect(answer.status).toBe(403);
    expect(answer.body.type).toMatch(/\/problems\/multiple-lists-disabled$/);
    expect(await listRows(shop.id)).toEqual([]);
  });

  it("20 parallel creates of one name make one list", async () => {
    const { shop, call } = await shopper("private");
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        call("/storefront/wishlists", { method: "POST", body: { name: n % 2 ? "Gifts" : "gifts" } }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
    expect((await listRows(shop.id)).length).toBe(2);
    expect((await eventsOf(shop.id)).filter((row) => row.type === "list.created")).toHaveLength(1);
  });
});
