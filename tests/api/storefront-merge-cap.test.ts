import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";

// Small lists, so that a guest's list and a customer's together pass the cap (read when the app first asks).
const MAX = 4;
process.env.MAX_ITEMS_PER_LIST = String(MAX);

const { countItems, eventsOf } = await import("../support/wishlist-rows");
const { addItem } = await import("~/services/wishlists/wishlists.server");
const { createShopWithKey } = await import("../factories");
const { apiHarness } = await import("../support/harness");

const { callsOf } = await apiHarness();

const day = (n: number) => new Date(Date.UTC(2026, 0, n));

async function shopper(customerId: string) {
  const { shop, secret } = await createShopWithKey();
  const aid = randomUUID();
  const { proxyCall } = callsOf({ shop, secret });
  const save = (owner: "guest" | "customer", productId: string, at: Date) =>
    addItem({
      shopId: shop.id,
      owner: owner === "guest" ? { kind: "anonymous", anonymousId: aid } : { kind: "customer", customerId },
      item: { productId, handle: `p${productId}` },
      at,
    });
  const identify = () => proxyCall("/storefront/identify", customerId, { method: "POST", body: { anonymousId: aid } });
  const merged = async () => (await eventsOf(shop.id, "list.merged")).map((row) => JSON.parse(row.data));
  return { shop, aid, save, identify, merged };
}

type Item = { productId: string; addedAt: string };
const products = (items: Item[]) => items.map((item) => item.productId).sort();

describe("guest merge at login never passes MAX_ITEMS_PER_LIST", () => {
  it("keeps the customer's items, moves the guest's earliest saved first until the cap, drops the rest", async () => {
    const { shop, save, identify, merged } = await shopper("700");
    await save("customer", "9", day(20));
    await save("customer", "2", day(15)); // the guest saved it earlier: the guest's date wins, no room taken
    // Saved in an order other than their dates, so the earliest-first choice is what is tested.
    await save("guest", "1", day(4));
    await save("guest", "2", day(2));
    await save("guest", "3", day(1));
    await save("guest", "4", day(3));

    const response = await identify();
    expect(response.status).toBe(200);
    const list = await response.json();
    // Room for 2 of the guest's 3 new products: 3 (day 1) and 4 (day 3); 1 (day 4) is not carried over.
    expect(products(list.items)).toEqual(["2", "3", "4", "9"]);
    expect(list.count).toBe(MAX);
    expect(list.items.find((item: Item) => item.productId === "2").addedAt).toBe(day(2).toISOString());
    expect(await merged()).toEqual([
      { listId: list.id, customerId: "700", mergedCount: 2, fromListId: expect.stringMatching(/^lst_/) },
    ]);
    // The rest went with the retired guest list: nothing is left behind anywhere.
    expect(await countItems(shop.id)).toBe(MAX);
  });

  it("moves nothing into a list already at the cap, and still answers 200 with mergedCount 0", async () => {
    const { shop, save, identify, merged } = await shopper("701");
    for (const [index, productId] of ["11", "12", "13", "14"].entries())
      await save("customer", productId, day(10 + index));
    await save("guest", "11", day(1));
    await save("guest", "15", day(2));

    const response = await identify();
    expect(response.status).toBe(200);
    const list = await response.json();
    expect(products(list.items)).toEqual(["11", "12", "13", "14"]);
    expect(list.items.find((item: Item) => item.productId === "11").addedAt).toBe(day(1).toISOString());
    expect(await merged()).toEqual([
      { listId: list.id, customerId: "701", mergedCount: 0, fromListId: expect.stringMatching(/^lst_/) },
    ]);
    expect(await countItems(shop.id)).toBe(MAX);
  });
});
