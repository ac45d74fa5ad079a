import { describe, expect, it } from "vitest";
import { transaction } from "~/data/database.server";
import { fillProductSnapshot } from "~/data/item-rows.server";
import { rangeDays } from "~/services/analytics/reports.server";
import type { Owner } from "~/services/owners/owner";
import { addItem, removeItem, toggleItem } from "~/services/wishlists/wishlists.server";
import { createShopWithKey } from "../factories";
import { drainOutbox } from "../support/webhook-rows";
import { apiHarness } from "../support/harness";

const { app, clientFor } = await apiHarness();
const { shop, secret } = await createShopWithKey();
const api = clientFor(secret);

// The fixture: three shoppers over days counted back from today (D0 = today, UTC noon).
const now = new Date();
const day = (back: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - back, 12));
const A: Owner = { kind: "anonymous", anonymousId: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa" };
const B: Owner = { kind: "customer", customerId: "500" };
const C: Owner = { kind: "anonymous", anonymousId: "cccccccc-cccc-4ccc-8ccc-cccccccccccc" };
const item = (productId: string) => ({ productId, handle: `p-${productId}`, title: `Product ${productId}` });
const shopId = shop.id;

await addItem({ shopId, owner: B, item: item("104"), at: day(100) }); // outside every range
await addItem({ shopId, owner: B, item: item("103"), at: day(40) }); // 90d only
await addItem({ shopId, owner: B, item: item("102"), at: day(8) }); // 30d and 90d
await toggleItem({ shopId, owner: C, item: item("101"), at: day(1) }); // C saves 101 ...
await toggleItem({ shopId, owner: C, item: item("101"), at: day(1) }); // ... and removes it the same day
await addItem({ shopId, owner: A, item: item("103"), at: day(1) });
await addItem({ shopId, owner: A, item: item("101"), at: day(0) });
await addItem({ shopId, owner: A, item: item("102"), at: day(0) });
await removeItem({ shopId, owner: A, target: { productId: "102" }, at: day(1) }); // a removal dated D1
await addItem({ shopId, owner: B, item: item("101"), at: day(0) });
// The rollups are folded in from the outbox by the relay (the worker runs it): three relays at once, in
// small batches, so the figures below also prove that no event is counted twice.
await Promise.all([drainOutbox({ batchSize: 3 }), drainOutbox({ batchSize: 3 }), drainOutbox({ batchSize: 3 })]);
// The shop's catalogue has named 101 and 102 (as the worker's lookups do); 103 only carries the titles and
// handles its saves sent, which are a shopper's and never shown as the product's (decision 029).
await transaction(async (tx) => {
  for (const productId of ["101", "102"]) {
    await fillProductSnapshot(
      tx,
      shopId,
      { productId, title: `Catalogue ${productId}`, handle: `p-${productId}` },
      now,
    );
  }
});

describe("GET /v1/analytics/activity (hand-computed fixture)", () => {
  it("7d: zero-filled days; D0 3 saves by 2 shoppers; D1 2 saves, 2 removals, 2 shoppers; 3 distinct shoppers", async () => {
    const { data } = await api.GET("/analytics/activity", { params: { query: { range: "7d" } } });
    expect(data!.days.map((entry) => entry.date)).toEqual(rangeDays("7d"));
    const byDate = Object.fromEntries(data!.days.map((entry) => [entry.date, entry]));
    expect(byDate[rangeDays("7d").at(-1)!]).toMatchObject({ adds: 3, removes: 0, activeShoppers: 2 });
    expect(byDate[rangeDays("7d").at(-2)!]).toMatchObject({ adds: 2, removes: 2, activeShoppers: 2 });
    expect(data!.days.slice(0, 5).every((entry) => entry.adds === 0 && entry.removes === 0)).toBe(true);
    expect(data!.totals).toEqual({ adds: 5, removes: 2, activeShoppers: 3 });
  });

  it("30d is the default range and adds D8; 90d adds D40; D100 is never counted", async () => {
    const thirty = await api.GET("/analytics/activity");
    expect(thirty.data).toMatchObject({ range: "30d", totals: { adds: 6, removes: 2, activeShoppers: 3 } });
    expect(thirty.data!.days).toHaveLength(30);
    const ninety = await api.GET("/analytics/activity", { params: { query: { range: "90d" } } });
    expect(ninety.data!.totals).toEqual({ adds: 7, removes: 2, activeShoppers: 3 });
    expect(ninety.data!.days).toHaveLength(90);
  });
});

describe("GET /v1/analytics/top-products (hand-computed fixture)", () => {
  it("7d: 101 saved 3x (removed once, 2 lists now), then 102 and 103 tied at 1 (by id)", async () => {
    const { data } = await api.GET("/analytics/top-products", { params: { query: { range: "7d" } } });
    expect(data!.products).toEqual([
      { productId: "101", handle: "p-101", title: "Catalogue 101", saves: 3, removes: 1, savers: 2 },
      { productId: "102", handle: "p-102", title: "Catalogue 102", saves: 1, removes: 1, savers: 1 },
      // 103's handle and title are only what its saves sent: neither is the product's until the catalogue answers.
      { productId: "103", handle: null, title: null, saves: 1, removes: 0, savers: 2 },
    ]);
  });

  it("90d: 102 and 103 saved twice each; 104 (D100) absent", async () => {
    const { data } = await api.GET("/analytics/top-products", { params: { query: { range: "90d" } } });
    expect(data!.products.map((product) => [product.productId, product.saves])).toEqual([
      ["101", 3],
      ["102", 2],
      ["103", 2],
    ]);
  });

  it("refuses an unknown range (400) and a public key (403)", async () => {
    const bad = await app.request("http://localhost:3000/v1/analytics/activity?range=1y", {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(bad.status).toBe(400);
    const publicKey = await app.request("http://localhost:3000/v1/analytics/top-products", {
      headers: { "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey },
    });
    expect(publicKey.status).toBe(403);
  });
});
