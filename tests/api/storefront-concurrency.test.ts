import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { addItem, removeItem, toggleItem } from "~/services/wishlists/wishlists.server";
import { createShopWithKey } from "../factories";
import { countItems, countLists, eventsOf, itemsOf } from "../support/wishlist-rows";
import { BASE_URL, createTestApp } from "../support/http";

const app = await createTestApp();

async function setup() {
  const { shop } = await createShopWithKey();
  const aid = randomUUID();
  const toggle = async (productId: string): Promise<Response> =>
    app.request(`${BASE_URL}/v1/storefront/wishlist/toggle`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Service-Shop": shop.domain,
        "X-Service-Public-Key": shop.publicKey,
      },
      body: JSON.stringify({ productId, handle: `p${productId}`, anonymousId: aid }),
    });
  const eventLog = async () =>
    (await eventsOf(shop.id)).map((event) => ({
      type: event.type,
      ...(JSON.parse(event.data) as { count: number; item: { productId: string } }),
    }));
  return { shop, aid, toggle, eventLog };
}

describe("concurrent storefront writes on one owner (real parallel requests)", () => {
  it("20 parallel toggles of one product: no duplicate, one event each, counts alternate 1/0", async () => {
    const { shop, toggle, eventLog } = await setup();
    const responses = await Promise.all(Array.from({ length: 20 }, () => toggle("1")));
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    const results = await Promise.all(responses.map((response) => response.json()));

    expect(results.filter((result) => result.added)).toHaveLength(10);
    expect(await countItems(shop.id)).toBe(0); // an even number of toggles
    expect(await countLists(shop.id)).toBe(1);
    const log = await eventLog();
    expect(log).toHaveLength(20);
    expect(log.map((event) => event.count)).toEqual(
      Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? 1 : 0)),
    );
    expect(log.map((event) => event.type)).toEqual(
      Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? "item.added" : "item.removed")),
    );
  });

  it("parallel toggles of 15 different products: every count is the true count at its commit", async () => {
    const { shop, toggle, eventLog } = await setup();
    const products = Array.from({ length: 15 }, (_, index) => String(100 + index));
    const results = await Promise.all(
      products.map((productId) => toggle(productId).then((response) => response.json())),
    );
    expect(results.every((result) => result.added)).toBe(true);
    expect(results.map((result) => result.count).sort((a, b) => a - b)).toEqual(products.map((_, index) => index + 1));
    expect(await countItems(shop.id)).toBe(15);
    expect((await eventLog()).map((event) => event.count)).toEqual(products.map((_, index) => index + 1));
  });

  it("parallel adds and removes through the service keep items and events in step", async () => {
    const { shop, aid } = await setup();
    const owner = { kind: "anonymous" as const, anonymousId: aid };
    const item = { productId: "7", variantId: null, handle: "seven" };
    const adds = await Promise.all(Array.from({ length: 10 }, () => addItem({ shopId: shop.id, owner, item })));
    expect(adds.filter((result) => result.created)).toHaveLength(1);
    expect(new Set(adds.map((result) => result.item.id)).size).toBe(1);

    const removes = await Promise.all(
      Array.from({ length: 10 }, () => removeItem({ shopId: shop.id, owner, target: { productId: "7" } })),
    );
    expect(removes.filter((result) => result.removed)).toHaveLength(1);
    const mixed = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        index % 3 === 0
          ? removeItem({ shopId: shop.id, owner, target: { productId: "8" } })
          : index % 3 === 1
            ? addItem({ shopId: shop.id, owner, item: { ...item, productId: "8" } })
            : toggleItem({ shopId: shop.id, owner, item: { ...item, productId: "8" } }),
      ),
    );
    // Each call reports whether it changed anything; exactly those changes were recorded, one event each.
    const outcomes = mixed.map((result) =>
      "removed" in result
        ? result.removed
          ? "removed"
          : "unchanged"
        : "created" in result
          ? result.created
            ? "added"
            : "unchanged"
          : result.added
            ? "added"
            : "removed",
    );
    const changes = (await eventsOf(shop.id)).filter((event) => event.data.includes('"productId":"8"'));
    const reported = (kind: string) => outcomes.filter((outcome) => outcome === kind).length;
    expect(changes.filter((event) => event.type === "item.added")).toHaveLength(reported("added"));
    expect(changes.filter((event) => event.type === "item.removed")).toHaveLength(reported("removed"));
    expect(changes.length).toBeGreaterThanOrEqual(4); // each of the four toggles changes the state
    // One product: its changes alternate, starting from "not saved" (product 7 is gone again).
    expect(changes.map((event) => event.type)).toEqual(
      changes.map((_, index) => (index % 2 === 0 ? "item.added" : "item.removed")),
    );
    const saved = await itemsOf(shop.id);
    expect(saved.map((row) => row.productId)).toEqual(changes.length % 2 === 1 ? ["8"] : []);

    // Invariant: events replayed in order give exactly the final state.
    const log = await eventsOf(shop.id);
    let count = 0;
    for (const event of log) {
      count += event.type === "item.added" ? 1 : -1;
      expect(JSON.parse(event.data).count).toBe(count);
    }
    expect(saved).toHaveLength(count);
    expect(count).toBeLessThanOrEqual(1);
  });
});
