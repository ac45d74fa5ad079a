import { describe, expect, it } from "vitest";
import {
  claimDueMessages,
  findCustomerItemsOfProduct,
  findShopsWithDueMessages,
  insertMessages,
} from "~/data/alert-rows.server";
import { database, engine } from "~/data/database.server";
import { insertItem } from "~/data/item-rows.server";
import { retireList } from "~/data/list-rows.server";
import { newId } from "~/lib/ids";
import { createList, createShop } from "../factories";

/**
 * The alert evaluation's read of a product's savers (docs/decisions/050-wishlist-alerts.md), on both engines:
 * pages of whole customers, every customer's item of the product once, nothing of guests, retired lists or
 * other shops.
 */
const at = new Date("2026-11-29T08:00:00.000Z");
const PRODUCT = "8100000008";

async function save(shopId: string, listId: string, productId = PRODUCT) {
  await insertItem(database(), shopId, {
    listId,
    productId,
    variantId: "",
    handle: `p-${productId}`,
    titleSnapshot: "",
    addedAt: at,
  });
}

describe(`alert rows (${engine()})`, () => {
  it("reads a product's customers' items in pages that never split a customer", async () => {
    const shop = await createShop();
    const other = await createShop();
    const expected: Array<[string, string]> = [];
    // Customers 1..7; customers 2 and 5 keep the product on three lists each.
    for (let n = 1; n <= 7; n += 1) {
      const customerId = `70000${n}`;
      for (let copy = 0; copy < (n === 2 || n === 5 ? 3 : 1); copy += 1) {
        const list = await createList(
          shop.id,
          { customerId },
          copy === 0 ? { isDefault: true } : { isDefault: null, name: `L${copy}` },
        );
        await save(shop.id, list.id);
        expected.push([customerId, list.id]);
      }
    }
    // Not theirs to read: a guest, a retired list, another product, another shop.
    await save(shop.id, (await createList(shop.id)).id);
    const retired = await createList(shop.id, { customerId: "700009" }, { isDefault: true });
    await save(shop.id, retired.id);
    await retireList(database(), shop.id, retired.id, at, "drop");
    await save(shop.id, (await createList(shop.id, { customerId: "700008" }, { isDefault: true })).id, "8100000009");
    await save(other.id, (await createList(other.id, { customerId: "700001" }, { isDefault: true })).id);

    const pages: Array<Array<[string, string]>> = [];
    let afterCustomerId: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof findCustomerItemsOfProduct>> = await findCustomerItemsOfProduct(
        database(),
        shop.id,
        PRODUCT,
        { afterCustomerId, limit: 4 },
      );
      pages.push(page.items.map((item) => [item.customerId, item.listId]));
      afterCustomerId = page.next;
    } while (afterCustomerId !== null && pages.length < 20);

    const byCustomer = (rows: Array<[string, string]>) => rows.map((row) => row.join()).sort();
    expect(byCustomer(pages.flat())).toEqual(byCustomer(expected));
    expect(pages.every((page) => page.length <= 4)).toBe(true);
    // No customer on two pages.
    const customersOf = pages.map((page) => new Set(page.map(([customerId]) => customerId)));
    for (const [index, customers] of customersOf.entries()) {
      for (const later of customersOf.slice(index + 1)) {
        expect([...customers].filter((customerId) => later.has(customerId))).toEqual([]);
      }
    }
    // Customers 1 and 2 fill the first four rows: customer 2, perhaps not whole, is left for the next page.
    expect(pages[0]!.map(([customerId]) => customerId)).toEqual(["700001"]);
    expect(pages[1]!.map(([customerId]) => customerId)).toEqual(["700002", "700002", "700002"]);
  });

  it("refuses a page too small for one customer's items rather than split them", async () => {
    const shop = await createShop();
    for (const name of ["A", "B", "C"])
      await save(shop.id, (await createList(shop.id, { customerId: "1" }, { isDefault: null, name })).id);
    await expect(
      findCustomerItemsOfProduct(database(), shop.id, PRODUCT, { afterCustomerId: null, limit: 2 }),
    ).rejects.toThrow(/one customer's items only/);
  });

  it("sweeps the installed shops with a message due, a claim whose lease lapsed or a Flow trigger owed", async () => {
    const now = new Date();
    const minute = 60_000;
    const message = (shopId: string, dueAt: Date) => ({
      id: newId("alertMessage"),
      shopId,
      customerId: "7001",
      dueAt,
      createdAt: now,
    });
    const [due, lapsed, flow, later, leased, uninstalled] = await Promise.all(
      Array.from({ length: 6 }, () => createShop()),
    );
    await insertMessages(database(), [
      message(due!.id, new Date(now.getTime() - minute)),
      message(later!.id, new Date(now.getTime() + minute)),
      message(uninstalled!.id, new Date(now.getTime() - minute)),
    ]);
    // Claimed a minute ago with a 30 s lease (its worker lost), and claimed now with a long one.
    await insertMessages(database(), [message(lapsed!.id, new Date(now.getTime() - 2 * minute))]);
    await claimDueMessages(database(), lapsed!.id, {
      now: new Date(now.getTime() - minute),
      limit: 1,
      leaseMs: 30_000,
    });
    await insertMessages(database(), [message(leased!.id, new Date(now.getTime() - minute))]);
    await claimDueMessages(database(), leased!.id, { now, limit: 1, leaseMs: 10 * minute });
    await database()
      .insertInto("Alert")
      .values({
        id: newId("alert"),
        shopId: flow!.id,
        customerId: "7001",
        listId: "list_x",
        itemId: "item_x",
        productId: PRODUCT,
        variantId: "",
        kind: "back_in_stock",
        currency: "EUR",
        changeKey: "k",
        createdAt: now,
        flowState: "pending",
      })
      .execute();
    await database().updateTable("Shop").set({ uninstalledAt: now }).where("id", "=", uninstalled!.id).execute();

    const found = new Set(await findShopsWithDueMessages(database(), { now, limit: 1_000 }));
    const ours = [due, lapsed, flow, later, leased, uninstalled].map((shop) => found.has(shop!.id));
    expect(ours).toEqual([true, true, true, false, false, false]);
  });
});
