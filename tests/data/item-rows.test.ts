import { describe, expect, it } from "vitest";
import { database, engine } from "~/data/database.server";
import {
  countItemsOfLists,
  deleteItemById,
  deleteItemByKey,
  deleteItemsOfList,
  findItemByKey,
  findItemsOfList,
  findSavedKeys,
  insertItem,
  insertItems,
  moveItems,
  updateMergedItem,
} from "~/data/item-rows.server";
import { findDefaultLists, insertDefaultLists } from "~/data/list-rows.server";
import { createShop } from "../factories";

/** Statements on Item, on both engines: one product per list, newest first, batches, shop scoping. */
async function shopWithLists(...customers: string[]) {
  const shop = await createShop();
  await insertDefaultLists(database(), shop.id, "customerId", customers, new Date());
  const lists = await findDefaultLists(database(), shop.id, "customerId", customers);
  return { shop, listIds: customers.map((customer) => lists.find((list) => list.customerId === customer)!.id) };
}

const row = (listId: string, productId: string, addedAt: Date, variantId = "") => ({
  listId,
  productId,
  variantId,
  handle: `p-${productId}`,
  titleSnapshot: `Product ${productId}`,
  addedAt,
});

describe(`item rows (${engine()})`, () => {
  it("saves a product once per list, with or without a variant, keeping the first save's addedAt to the millisecond", async () => {
    const { shop, listIds } = await shopWithLists("1");
    const first = new Date("2026-01-02T03:04:05.678Z");
    const saved = await insertItem(database(), shop.id, row(listIds[0]!, "10", first));
    expect(saved).toMatchObject({ productId: "10", variantId: "", titleSnapshot: "Product 10", shopId: shop.id });
    expect(saved!.addedAt.toISOString()).toBe(first.toISOString());
    expect(await insertItem(database(), shop.id, row(listIds[0]!, "10", new Date()))).toBeUndefined();
    expect(await insertItem(database(), shop.id, row(listIds[0]!, "10", new Date(), "5"))).toBeUndefined();
    const found = await findItemByKey(database(), shop.id, { listId: listIds[0]!, productId: "10" });
    expect(found).toMatchObject({ variantId: "", addedAt: first });
  });

  it("lists a list's items newest first (then by id) and counts them per list", async () => {
    const { shop, listIds } = await shopWithLists("1", "2");
    const [a, b] = listIds as [string, string];
    const base = Date.UTC(2026, 0, 1);
    await insertItems(database(), shop.id, [
      row(a, "1", new Date(base)),
      row(a, "2", new Date(base + 2)),
      row(a, "3", new Date(base + 1)),
      row(b, "1", new Date(base)),
    ]);
    expect((await findItemsOfList(database(), shop.id, a)).map((item) => item.productId)).toEqual(["2", "3", "1"]);
    expect(await countItemsOfLists(database(), shop.id, [a, b])).toEqual(
      new Map([
        [a, 3],
        [b, 1],
      ]),
    );
    expect(await countItemsOfLists(database(), shop.id, [])).toEqual(new Map());
  });

  it("inserts a batch skipping saved items and returns the keys it inserted", async () => {
    const { shop, listIds } = await shopWithLists("1");
    const listId = listIds[0]!;
    await insertItem(database(), shop.id, row(listId, "1", new Date()));
    const inserted = await insertItems(database(), shop.id, [
      row(listId, "1", new Date()),
      row(listId, "2", new Date()),
      row(listId, "2", new Date(), "9"),
      row(listId, "3", new Date(), "7"),
      row(listId, "3", new Date()),
    ]);
    // One row per product: the second row of product 3 (another variant) is skipped like a saved one.
    expect(inserted.map((key) => key.productId).sort()).toEqual(["2", "3"]);
    expect(await insertItems(database(), shop.id, [])).toEqual([]);
    const saved = await findSavedKeys(database(), shop.id, [
      { listId, productId: "1" },
      { listId, productId: "2" },
      { listId, productId: "4" },
    ]);
    expect(saved.map((key) => key.productId).sort()).toEqual(["1", "2"]);
  });

  it("deletes by key or by id and returns what it deleted", async () => {
    const { shop, listIds } = await shopWithLists("1", "2");
    const [a, b] = listIds as [string, string];
    const one = (await insertItem(database(), shop.id, row(a, "1", new Date())))!;
    const two = (await insertItem(database(), shop.id, row(a, "2", new Date())))!;
    expect(await deleteItemByKey(database(), shop.id, { listId: a, productId: "1" })).toEqual(one);
    expect(await deleteItemByKey(database(), shop.id, { listId: a, productId: "1" })).toBeUndefined();
    expect(await deleteItemById(database(), shop.id, b, two.id)).toBeUndefined();
    expect(await deleteItemById(database(), shop.id, a, two.id)).toEqual(two);
    expect(await findItemsOfList(database(), shop.id, a)).toEqual([]);
  });

  it("moves items between lists, dates them, and empties a list", async () => {
    const { shop, listIds } = await shopWithLists("1", "2");
    const [a, b] = listIds as [string, string];
    const one = (await insertItem(database(), shop.id, row(a, "1", new Date())))!;
    expect(one.ownerKey).toBe("c:1"); // its list's owner (decision 055)
    await insertItem(database(), shop.id, row(a, "2", new Date()));
    await moveItems(database(), shop.id, [one.id], b);
    await moveItems(database(), shop.id, [], b);
    const earlier = new Date("2025-12-31T23:59:59.999Z");
    await updateMergedItem(database(), shop.id, one.id, { addedAt: earlier, variantId: "42" });
    expect(await findItemsOfList(database(), shop.id, b)).toEqual([
      { ...one, listId: b, ownerKey: "c:2", addedAt: earlier, variantId: "42" },
    ]);
    await deleteItemsOfList(database(), shop.id, a);
    expect(await findItemsOfList(database(), shop.id, a)).toEqual([]);
    expect(await findItemsOfList(database(), shop.id, b)).toHaveLength(1);
  });

  it("refuses to put an item on a list of another shop, or on no list", async () => {
    const { shop } = await shopWithLists("1");
    const other = await shopWithLists("2");
    const theirs = other.listIds[0]!;
    await expect(insertItem(database(), shop.id, row(theirs, "1", new Date()))).rejects.toThrow();
    await expect(
      insertItem(database(), shop.id, row("lst_01jd2x6c5ef0q8w3d0s8b2n7k4", "1", new Date())),
    ).rejects.toThrow();
    expect(await findItemsOfList(database(), other.shop.id, theirs)).toEqual([]);
  });

  it("finds and changes nothing of another shop", async () => {
    const { shop, listIds } = await shopWithLists("1");
    const other = await createShop();
    const listId = listIds[0]!;
    const item = (await insertItem(database(), shop.id, row(listId, "1", new Date())))!;
    const key = { listId, productId: "1" };
    expect(await findItemsOfList(database(), other.id, listId)).toEqual([]);
    expect(await findItemByKey(database(), other.id, key)).toBeUndefined();
    expect(await findSavedKeys(database(), other.id, [key])).toEqual([]);
    expect(await countItemsOfLists(database(), other.id, [listId])).toEqual(new Map());
    expect(await deleteItemByKey(database(), other.id, key)).toBeUndefined();
    expect(await deleteItemById(database(), other.id, listId, item.id)).toBeUndefined();
    await updateMergedItem(database(), other.id, item.id, { addedAt: new Date(0), variantId: "9" });
    await deleteItemsOfList(database(), other.id, listId);
    expect(await findItemsOfList(database(), shop.id, listId)).toEqual([item]);
  });

  it("saves one item from concurrent inserts of one product", async () => {
    const { shop, listIds } = await shopWithLists("1");
    const results = await Promise.all(
      Array.from({ length: 8 }, () => insertItem(database(), shop.id, row(listIds[0]!, "1", new Date()))),
    );
    expect(results.filter((result) => result !== undefined)).toHaveLength(1);
    expect(await findItemsOfList(database(), shop.id, listIds[0]!)).toHaveLength(1);
  });
});
