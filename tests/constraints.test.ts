import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabaseClient, prisma } from "~/db.server";
import { newId } from "~/lib/ids";
import { createList, createShop } from "./factories";

// Two independent clients (separate connections, and on SQLite separate database handles) so that
// the parallel writes below really race in the database rather than in one connection's queue.
const other = createDatabaseClient();
afterAll(() => other.$disconnect());
const clients = [prisma, other];

async function race<T>(count: number, attempt: (client: typeof prisma, index: number) => Promise<T>) {
  const results = await Promise.allSettled(
    Array.from({ length: count }, (_, index) => attempt(clients[index % clients.length]!, index)),
  );
  const rejected = results.filter((result) => result.status === "rejected");
  return {
    fulfilled: results.length - rejected.length,
    errorCodes: rejected.map((result) => (result as PromiseRejectedResult).reason?.code as string | undefined),
  };
}

describe("database constraints under concurrent inserts", () => {
  it("keeps one item per product and variant in a list", async () => {
    const shop = await createShop();
    const list = await createList(shop.id);
    const { fulfilled, errorCodes } = await race(12, (client) =>
      client.item.create({
        data: { id: newId("item"), listId: list.id, shopId: shop.id, productId: "101", variantId: "7", handle: "hat" },
      }),
    );
    expect(fulfilled).toBe(1);
    expect(new Set(errorCodes)).toEqual(new Set(["P2002"]));
    expect(await prisma.item.count({ where: { listId: list.id } })).toBe(1);
  });

  it("treats 'no variant' as one value, so it cannot be duplicated either", async () => {
    const shop = await createShop();
    const list = await createList(shop.id);
    const { fulfilled } = await race(8, (client) =>
      client.item.create({
        data: { id: newId("item"), listId: list.id, shopId: shop.id, productId: "5", handle: "x" },
      }),
    );
    expect(fulfilled).toBe(1);
    // The same product with a variant is a different item.
    await prisma.item.create({
      data: { id: newId("item"), listId: list.id, shopId: shop.id, productId: "5", variantId: "9", handle: "x" },
    });
    expect(await prisma.item.count({ where: { listId: list.id } })).toBe(2);
  });

  it("keeps one default list per customer per shop, while non-default lists are unlimited", async () => {
    const shop = await createShop();
    const { fulfilled, errorCodes } = await race(10, (client) =>
      client.list.create({ data: { id: newId("list"), shopId: shop.id, customerId: "4242", isDefault: true } }),
    );
    expect(fulfilled).toBe(1);
    expect(new Set(errorCodes)).toEqual(new Set(["P2002"]));

    for (let index = 0; index < 3; index++) await createList(shop.id, { customerId: "4242" }, { isDefault: null });
    expect(await prisma.list.count({ where: { shopId: shop.id, customerId: "4242" } })).toBe(4);

    // Another shop's customer with the same id has a default list of its own.
    const otherShop = await createShop();
    await expect(createList(otherShop.id, { customerId: "4242" })).resolves.toBeTruthy();
  });

  it("keeps one default list per anonymous id per shop", async () => {
    const shop = await createShop();
    const anonymousId = randomUUID();
    const { fulfilled } = await race(10, (client) =>
      client.list.create({ data: { id: newId("list"), shopId: shop.id, anonymousId, isDefault: true } }),
    );
    expect(fulfilled).toBe(1);
  });

  it("refuses a duplicate API key hash and a duplicate share token", async () => {
    const shop = await createShop();
    const { fulfilled: keys } = await race(6, (client, index) =>
      client.apiKey.create({
        data: { id: newId("apiKey"), shopId: shop.id, label: `k${index}`, hash: "same-hash", hint: "abcd" },
      }),
    );
    expect(keys).toBe(1);

    const { fulfilled: shares } = await race(6, (client) =>
      client.list.create({
        data: { id: newId("list"), shopId: shop.id, anonymousId: randomUUID(), shareToken: "same-token" },
      }),
    );
    expect(shares).toBe(1);
  });

  it("removes a shop's data with the shop (cascade)", async () => {
    const shop = await createShop();
    const list = await createList(shop.id);
    await prisma.item.create({
      data: { id: newId("item"), listId: list.id, shopId: shop.id, productId: "1", handle: "a" },
    });
    await prisma.shop.delete({ where: { id: shop.id } });
    expect(await prisma.list.count({ where: { shopId: shop.id } })).toBe(0);
    expect(await prisma.item.count({ where: { shopId: shop.id } })).toBe(0);
  });
});
