import { describe, expect, it } from "vitest";
import { transaction } from "~/data/database.server";
import { getEnv } from "~/env.server";
import { importItems, type ImportRow } from "~/services/wishlists/wishlists.server";
import { createShopWithKey } from "../factories";
import { countEvents, countItems } from "../support/wishlist-rows";
import { BASE_URL } from "../support/http";
import { apiHarness } from "../support/harness";

const { app, callsOf } = await apiHarness();
const max = getEnv().MAX_ITEMS_PER_LIST;

const row = (customerId: string, product: number, addedAt = new Date(Date.UTC(2026, 0, 1))): ImportRow => ({
  customerId,
  productId: String(product),
  handle: `p-${product}`,
  addedAt,
});

/** A customer's list holding `count` items (products 1..count), written as an import writes it. */
async function listWith(shopId: string, customerId: string, count: number) {
  const rows = Array.from({ length: count }, (_, index) => row(customerId, index + 1));
  await transaction((tx) => importItems(tx, { shopId, rows }));
}

async function shopWithCustomer(items: number) {
  const { shop, secret } = await createShopWithKey();
  const customerId = "9100";
  await listWith(shop.id, customerId, items);
  const { privateCall } = callsOf({ shop, secret });
  const call = (path: string, body: unknown) =>
    privateCall(path, { method: "POST", body: { customerId, ...(body as object) } });
  const count = () => countItems(shop.id, customerId);
  return { shop, customerId, call, count };
}

describe("items per list: at most MAX_ITEMS_PER_LIST", () => {
  it("refuses a save into a full list with 409 list-full; removing still works and frees the room", async () => {
    const { shop, call, count } = await shopWithCustomer(max);
    expect(await count()).toBe(max);

    const refused = await call("/storefront/wishlist/toggle", { productId: "999001", handle: "one-more" });
    expect(refused.status).toBe(409);
    const problem = await refused.json();
    expect(problem).toMatchObject({
      type: "http://localhost:3000/problems/list-full",
      status: 409,
      title: "Wishlist full",
      maxItems: max,
    });
    expect(problem.detail).toContain(String(max));
    expect(await count()).toBe(max);
    expect(await countEvents(shop.id)).toBe(0);

    const added = await call("/storefront/wishlist/items", { productId: "999002", handle: "another" });
    expect(added.status).toBe(409);
    // An item already saved is answered as it is: nothing is added.
    const existing = await call("/storefront/wishlist/items", { productId: "1", handle: "p-1" });
    expect(existing.status).toBe(200);

    const removed = await call("/storefront/wishlist/toggle", { productId: "1", handle: "p-1" });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toMatchObject({ added: false, count: max - 1 });
    const saved = await call("/storefront/wishlist/toggle", { productId: "999001", handle: "one-more" });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toMatchObject({ added: true, count: max });
  });

  it("never passes the cap under concurrent saves", async () => {
    const { call, count } = await shopWithCustomer(max - 3);
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        index % 2 === 0
          ? call("/storefront/wishlist/toggle", { productId: String(800_000 + index), handle: `new-${index}` })
          : call("/storefront/wishlist/items", { productId: String(800_000 + index), handle: `new-${index}` }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200 || status === 201)).toHaveLength(3);
    expect(statuses.filter((status) => status === 409)).toHaveLength(9);
    expect(await count()).toBe(max);
  });

  it("imports skip and return the rows beyond the cap, never the rows already saved", async () => {
    const { shop } = await createShopWithKey();
    await listWith(shop.id, "501", max - 2);
    const rows = [
      row("501", 1), // already saved: unchanged, not full
      row("501", 700_001),
      row("501", 700_002),
      row("501", 700_003),
      row("501", 2), // already saved, after the list filled up
      row("501", 700_004),
      row("502", 1), // another customer's list has its own room
    ];
    const result = await transaction((tx) => importItems(tx, { shopId: shop.id, rows }));
    // <list>|product (decision 032): the customers' default lists
    expect(result.inserted.sort()).toEqual(["501\u0001|700001", "501\u0001|700002", "502\u0001|1"]);
    expect(result.full).toEqual([rows[3], rows[5]]);
    expect(await countItems(shop.id, "501")).toBe(max);

    const beyond = Array.from({ length: max + 3 }, (_, index) => row("503", index + 1));
    const second = await transaction((tx) => importItems(tx, { shopId: shop.id, rows: beyond }));
    expect(second.inserted).toHaveLength(max);
    expect(second.full).toEqual(beyond.slice(max));
  });
});

describe("the API document names list-full", () => {
  it("documents 409 list-full on the storefront save operations, and not on the others", async () => {
    const document = await (await app.request(`${BASE_URL}/v1/openapi.json`)).json();
    for (const path of ["/storefront/wishlist/toggle", "/storefront/wishlist/items"]) {
      const conflict = document.paths[path].post.responses["409"];
      expect(conflict.description, path).toContain("list-full");
      expect(conflict.description, path).toContain("idempotency-key-in-use");
      expect(conflict.content["application/problem+json"], path).toBeDefined();
      expect(conflict.headers["Retry-After"], path).toBeDefined();
    }
    expect(document.paths["/storefront/wishlist/share"].post.responses["409"].description).not.toContain("list-full");
  });
});
