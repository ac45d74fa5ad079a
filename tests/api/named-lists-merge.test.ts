/**
 * Merge at login with several lists (issue 28, item 2): a guest's named lists join the customer's list of
 * the same name (ignoring case) or move across whole, within the list cap; one list.merged per list merged;
 * idempotent under retries and concurrent identify calls.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sql } from "kysely";
import { countSaversOfProducts } from "~/data/daily-stat-rows.server";
import { database } from "~/data/database.server";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createShopWithKey } from "../factories";
import { apiHarness } from "../support/harness";
import { eventsOf } from "../support/wishlist-rows";

const { callsOf } = await apiHarness();

async function setting(maxListsPerOwner = 20) {
  const { shop, secret } = await createShopWithKey();
  await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true, maxListsPerOwner } });
  const { privateCall } = callsOf({ shop, secret });
  const aid = randomUUID();
  const customerId = String(8_000_000 + Math.floor(Math.random() * 1_000_000));
  const asGuest = (path: string, method = "GET", body?: object) =>
    privateCall(`${path}${path.includes("?") ? "&" : "?"}aid=${aid}`, {
      method,
      ...(body ? { body: { ...body, anonymousId: aid } } : {}),
    });
  const asCustomer = (path: string, method = "GET", body?: object) =>
    privateCall(`${path}${path.includes("?") ? "&" : "?"}customerId=${customerId}`, {
      method,
      ...(body ? { body: { ...body, customerId } } : {}),
    });
  const identify = () =>
    privateCall("/storefront/identify", { method: "POST", body: { anonymousId: aid, customerId } });
  const create = async (as: typeof asGuest, name: string) =>
    (await (await as("/storefront/wishlists", "POST", { name })).json()) as { id: string };
  const save = async (as: typeof asGuest, productId: string, listId?: string) =>
    (await (
      await as("/storefront/wishlist/items", "POST", { productId, handle: `p-${productId}`, ...(listId && { listId }) })
    ).json()) as { id: string };
  const listsOf = async (as: typeof asGuest) =>
    ((await (await as("/storefront/wishlists")).json()) as { data: Array<{ id: string; name: string; count: number }> })
      .data;
  return { shop, asGuest, asCustomer, identify, create, save, listsOf };
}

describe("identify with named lists", () => {
  it("merges same-named lists (notes kept), moves the others across, one list.merged per list", async () => {
    const { shop, asGuest, asCustomer, identify, create, save, listsOf } = await setting();
    // GIVEN a customer with a list "gifts" holding product 1 (no note)
    const customerGifts = await create(asCustomer, "gifts");
    await save(asCustomer, "1", customerGifts.id);
    // and a guest with "Gifts" (products 1 with a note, and 2), "Room" (product 3, shared), and product 4 on the default
    const guestGifts = await create(asGuest, "Gifts");
    const noted = await save(asGuest, "1", guestGifts.id);
    await asGuest(`/storefront/wishlist/items/${noted.id}`, "PATCH", { note: "size M" });
    await save(asGuest, "2", guestGifts.id);
    const room = await create(asGuest, "Room");
    await save(asGuest, "3", room.id);
    const shared = (await (await asGuest(`/storefront/wishlists/${room.id}/share`, "POST")).json()) as {
      token: string;
    };
    await save(asGuest, "4");

    // WHEN the guest logs in
    const merged = await identify();
    expect(merged.status).toBe(200);
    const body = await merged.json();

    // THEN the default lists merged, "Gifts" joined "gifts", "Room" became the customer's
    expect(body).toMatchObject({ count: 1, guestShareLinkEnded: true });
    expect(body.lists).toEqual([
      expect.objectContaining({ outcome: "merged", name: "Wishlist", mergedCount: 1, skippedCount: 0 }),
      expect.objectContaining({
        fromListId: guestGifts.id,
        listId: customerGifts.id,
        outcome: "merged",
        mergedCount: 1,
      }),
      expect.objectContaining({ fromListId: room.id, listId: room.id, outcome: "moved", mergedCount: 1 }),
    ]);
    const lists = await listsOf(asCustomer);
    expect(lists.map((list) => [list.name, list.count])).toEqual([
      ["Wishlist", 1],
      ["gifts", 2],
      ["Room", 1],
    ]);
    const gifts = (await (await asCustomer(`/storefront/wishlists/${customerGifts.id}`)).json()) as {
      items: Array<{ productId: string; note: string | null }>;
    };
    expect(gifts.items.find((item) => item.productId === "1")!.note).toBe("size M");
    // the guest keeps nothing, and the guest's link to "Room" ended
    expect((await listsOf(asGuest)).map((list) => list.count)).toEqual([0]);
    expect((await callsOf({ shop }).publicCall(`/storefront/lists/${shared.token}`)).status).toBe(404);
    const mergedEvents = (await eventsOf(shop.id))
      .filter((row) => row.type === "list.merged")
      .map((row) => JSON.parse(row.data));
    expect(mergedEvents.map((data) => [data.fromListId, data.listId, data.mergedCount])).toEqual(
      body.lists.map((entry: { fromListId: string; listId: string; mergedCount: number }) => [
        entry.fromListId,
        entry.listId,
        entry.mergedCount,
      ]),
    );

    // a retry merges nothing and emits nothing
    const again = await (await identify()).json();
    expect(again.lists).toEqual([]);
    expect((await eventsOf(shop.id)).filter((row) => row.type === "list.merged")).toHaveLength(3);
  });

  it("keeps the customer within the list cap: a guest list with no room joins the default list, reported", async () => {
    const { asGuest, asCustomer, identify, create, save, listsOf } = await setting(2);
    await create(asCustomer, "Mine");
    const extra = await create(asGuest, "Extra");
    await save(asGuest, "7", extra.id);
    const body = await (await identify()).json();
    expect(body.lists[1]).toMatchObject({ fromListId: extra.id, name: "Wishlist", outcome: "merged", mergedCount: 1 });
    expect((await listsOf(asCustomer)).map((list) => [list.name, list.count])).toEqual([
      ["Wishlist", 1],
      ["Mine", 0],
    ]);
  });

  it("merges once under concurrent identify calls", async () => {
    const { shop, asGuest, identify, create, save } = await setting();
    const a = await create(asGuest, "A");
    await save(asGuest, "1", a.id);
    await save(asGuest, "2");
    const answers = await Promise.all(Array.from({ length: 8 }, () => identify()));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect((await eventsOf(shop.id)).filter((row) => row.type === "list.merged")).toHaveLength(2);
    const rows = await database()
      .selectFrom("List")
      .select(["name", "customerId", "retiredAt"])
      .where("shopId", "=", shop.id)
      .where("retiredAt", "is", null)
      .orderBy("id")
      .execute();
    expect(rows.map((row) => row.name).sort()).toEqual(["A", "Wishlist"]);
  });

  it("keeps every item's owner its list's through saves, moves, copies, merges and transfers; savers count a shopper once", async () => {
    const { shop, asGuest, asCustomer, identify, create, save, listsOf } = await setting();
    /** Items whose kept owner (decision 055) differs from their list's; and how many items there are. */
    const ownerMismatches = async () => {
      const { rows } = await sql<{ wrong: number; items: number }>`
        select sum(case when "Item"."ownerKey" = coalesce('c:' || "List"."customerId", 'a:' || "List"."anonymousId") then 0 else 1 end) as "wrong",
               count(*) as "items"
        from "Item" join "List" on "List"."id" = "Item"."listId" where "Item"."shopId" = ${shop.id}`.execute(
        database(),
      );
      return { wrong: Number(rows[0]!.wrong), items: Number(rows[0]!.items) };
    };
    // GIVEN a customer with product 1 on two of their lists, and product 5 moved and 6 copied between them
    const gifts = await create(asCustomer, "Gifts");
    await save(asCustomer, "1");
    await save(asCustomer, "1", gifts.id);
    const five = await save(asCustomer, "5");
    expect((await asCustomer(`/storefront/wishlist/items/${five.id}/move`, "POST", { listId: gifts.id })).status).toBe(
      200,
    );
    const six = await save(asCustomer, "6", gifts.id);
    const home = (await listsOf(asCustomer)).find((list) => list.name === "Wishlist")!;
    const copied = await asCustomer(`/storefront/wishlist/items/${six.id}/move`, "POST", {
      listId: home.id,
      copy: true,
    });
    expect(copied.status).toBe(201);
    // and a guest with products 1 and 2 on the default list and 3 on a named list
    await save(asGuest, "1");
    await save(asGuest, "2");
    const room = await create(asGuest, "Room");
    await save(asGuest, "3", room.id);
    expect(await ownerMismatches()).toEqual({ wrong: 0, items: expect.any(Number) });
    expect(Object.fromEntries(await countSaversOfProducts(database(), shop.id, ["1", "2", "3", "5", "404"]))).toEqual({
      "1": 2,
      "2": 1,
      "3": 1,
      "5": 1,
    });
    // WHEN the guest logs in: the default list merges, the named one moves across
    expect((await identify()).status).toBe(200);
    // THEN every item has the customer's owner key, and the customer counts once for product 1
    const after = await ownerMismatches();
    expect(after.wrong).toBe(0);
    expect(after.items).toBeGreaterThanOrEqual(6);
    // and the retired guest list holds nothing (the demand report counts items without reading their lists)
    const onRetired = await database()
      .selectFrom("Item")
      .innerJoin("List", "List.id", "Item.listId")
      .select("Item.id")
      .where("Item.shopId", "=", shop.id)
      .where("List.retiredAt", "is not", null)
      .execute();
    expect(onRetired).toEqual([]);
    const keys = await database()
      .selectFrom("Item")
      .select("ownerKey")
      .distinct()
      .where("shopId", "=", shop.id)
      .execute();
    expect(keys.map((row) => row.ownerKey)).toEqual([expect.stringMatching(/^c:\d+$/)]);
    expect(Object.fromEntries(await countSaversOfProducts(database(), shop.id, ["1", "2", "3"]))).toEqual({
      "1": 1,
      "2": 1,
      "3": 1,
    });
  });
});
