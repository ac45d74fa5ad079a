import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database, isUniqueViolation } from "~/data/database.server";
import { newId } from "~/lib/ids";
import { createList, createShop } from "../factories";

/**
 * Parallel inserts through the data layer's handle: on PostgreSQL each runs on its own pooled connection,
 * so they really race in the database; on SQLite the process's write lock serialises them and the unique
 * indexes still decide (processes racing on one file: tests/api/multi-process.test.ts).
 */
async function race(count: number, attempt: (index: number) => Promise<unknown>) {
  const results = await Promise.allSettled(Array.from({ length: count }, (_, index) => attempt(index)));
  const rejected = results.filter((result): result is PromiseRejectedResult => result.status === "rejected");
  return {
    fulfilled: results.length - rejected.length,
    allUniqueViolations: rejected.every((result) => isUniqueViolation(result.reason)),
  };
}

const insertItem = (values: { listId: string; shopId: string; productId: string; variantId?: string }) =>
  database()
    .insertInto("Item")
    // The owner key is the list's in the app (decision 055); these constraints do not look at it.
    .values({ id: newId("item"), handle: "x", ownerKey: "", ...values })
    .execute();

const insertList = (values: {
  shopId: string;
  customerId?: string;
  anonymousId?: string;
  isDefault?: true;
  shareToken?: string;
}) =>
  database()
    .insertInto("List")
    .values({ id: newId("list"), updatedAt: new Date(), isDefault: null, ...values })
    .execute();

const countItems = async (where: { listId?: string; shopId?: string }) => {
  const row = await database()
    .selectFrom("Item")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .$if(where.listId !== undefined, (query) => query.where("listId", "=", where.listId!))
    .$if(where.shopId !== undefined, (query) => query.where("shopId", "=", where.shopId!))
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

const countLists = async (shopId: string, customerId?: string) => {
  const row = await database()
    .selectFrom("List")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("shopId", "=", shopId)
    .$if(customerId !== undefined, (query) => query.where("customerId", "=", customerId!))
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

describe("database constraints under concurrent inserts", () => {
  it("keeps one item per product in a list, whatever the variants the inserts name", async () => {
    const shop = await createShop();
    const list = await createList(shop.id);
    let variant = 0;
    const outcome = await race(12, () =>
      insertItem({ listId: list.id, shopId: shop.id, productId: "101", variantId: String(++variant % 3 || "") }),
    );
    expect(outcome).toEqual({ fulfilled: 1, allUniqueViolations: true });
    expect(await countItems({ listId: list.id })).toBe(1);
  });

  it("refuses the product with a variant where the list holds it without one (docs/decisions/032)", async () => {
    const shop = await createShop();
    const list = await createList(shop.id);
    const { fulfilled } = await race(8, () => insertItem({ listId: list.id, shopId: shop.id, productId: "5" }));
    expect(fulfilled).toBe(1);
    await expect(insertItem({ listId: list.id, shopId: shop.id, productId: "5", variantId: "9" })).rejects.toThrow();
    // Another list may hold the same product (several lists per owner keep this true).
    const other = await createList(shop.id, { customerId: "77" });
    await insertItem({ listId: other.id, shopId: shop.id, productId: "5", variantId: "9" });
    expect(await countItems({ listId: list.id })).toBe(1);
  });

  it("keeps one default list per customer per shop, while non-default lists are unlimited", async () => {
    const shop = await createShop();
    const outcome = await race(10, () => insertList({ shopId: shop.id, customerId: "4242", isDefault: true }));
    expect(outcome).toEqual({ fulfilled: 1, allUniqueViolations: true });

    for (let index = 0; index < 3; index++) await createList(shop.id, { customerId: "4242" }, { isDefault: null });
    expect(await countLists(shop.id, "4242")).toBe(4);

    // Another shop's customer with the same id has a default list of its own.
    const otherShop = await createShop();
    await expect(createList(otherShop.id, { customerId: "4242" })).resolves.toBeTruthy();
  });

  it("keeps one default list per anonymous id per shop", async () => {
    const shop = await createShop();
    const anonymousId = randomUUID();
    const { fulfilled } = await race(10, () => insertList({ shopId: shop.id, anonymousId, isDefault: true }));
    expect(fulfilled).toBe(1);
  });

  it("refuses a duplicate API key hash and a duplicate share token", async () => {
    const shop = await createShop();
    const keys = await race(6, (index) =>
      database()
        .insertInto("ApiKey")
        .values({ id: newId("apiKey"), shopId: shop.id, label: `k${index}`, hash: "same-hash", hint: "abcd" })
        .execute(),
    );
    expect(keys).toEqual({ fulfilled: 1, allUniqueViolations: true });

    const shares = await race(6, () =>
      insertList({ shopId: shop.id, anonymousId: randomUUID(), shareToken: "same-token" }),
    );
    expect(shares).toEqual({ fulfilled: 1, allUniqueViolations: true });
  });

  it("removes a shop's data with the shop (cascade)", async () => {
    const shop = await createShop();
    const list = await createList(shop.id);
    await insertItem({ listId: list.id, shopId: shop.id, productId: "1" });
    await database().deleteFrom("Shop").where("id", "=", shop.id).execute();
    expect(await countLists(shop.id)).toBe(0);
    expect(await countItems({ shopId: shop.id })).toBe(0);
  });
});
