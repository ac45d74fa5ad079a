import { afterAll, describe, expect, it } from "vitest";
import { startFakeAdminApi } from "../../../scripts/lib/fake-admin-api";

// The platform's Admin API at the network boundary; set before app modules read the environment.
const platform = await startFakeAdminApi();
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
afterAll(() => platform.close());

const { database } = await import("~/data/database.server");
const { upsertSession } = await import("~/data/session-rows.server");
const { withProductTitles } = await import("~/services/analytics/product-titles.server");
const { createShop, sessionRow } = await import("../../factories");

const shop = await createShop();
await upsertSession(database(), sessionRow(shop.domain, `offline_${shop.domain}`, { accessToken: "shpat_offline" }));

const rows = [
  { productId: "11", handle: "kept-title", title: "Title from the snapshot", saves: 3 },
  { productId: "12", handle: "untitled", title: null, saves: 2 },
  { productId: "13", handle: null, title: null, saves: 1 },
];

describe("product titles of the analytics pages", () => {
  it("asks the platform for the products without a title snapshot only, by GID, and keeps the rest of each row", async () => {
    platform.calls.length = 0;
    platform.answer(() => ({
      status: 200,
      body: {
        data: {
          nodes: [
            { id: "gid://shopify/Product/12", title: "Named by the platform", handle: "untitled" },
            { id: "gid://shopify/Product/13", title: "Gone from every list", handle: "gone" },
          ],
        },
      },
    }));
    expect(await withProductTitles({ shopDomain: shop.domain, rows })).toEqual([
      { productId: "11", handle: "kept-title", title: "Title from the snapshot", saves: 3 },
      { productId: "12", handle: "untitled", title: "Named by the platform", saves: 2 },
      { productId: "13", handle: "gone", title: "Gone from every list", saves: 1 },
    ]);
    expect(platform.calls).toHaveLength(1);
    expect(platform.calls[0]!.accessToken).toBe("shpat_offline");
    expect(platform.calls[0]!.query).toContain("nodes(ids: $ids)");
    expect(platform.calls[0]!.variables).toEqual({ ids: ["gid://shopify/Product/12", "gid://shopify/Product/13"] });
  });

  it("falls back to the handle, then the id, when the platform cannot be reached or refuses the token", async () => {
    const fallback = [
      { productId: "11", handle: "kept-title", title: "Title from the snapshot", saves: 3 },
      { productId: "12", handle: "untitled", title: "untitled", saves: 2 },
      { productId: "13", handle: null, title: "Product 13", saves: 1 },
    ];
    platform.answer(() => "drop");
    expect(await withProductTitles({ shopDomain: shop.domain, rows })).toEqual(fallback);
    platform.answer(() => ({ status: 401, body: { errors: "Invalid API key or access token" } }));
    expect(await withProductTitles({ shopDomain: shop.domain, rows })).toEqual(fallback);
    platform.answer(() => "hang");
    expect(await withProductTitles({ shopDomain: shop.domain, rows })).toEqual(fallback);
  });

  it("does not call the platform when every row has its title", async () => {
    platform.calls.length = 0;
    expect(await withProductTitles({ shopDomain: shop.domain, rows: rows.slice(0, 1) })).toEqual(rows.slice(0, 1));
    expect(platform.calls).toHaveLength(0);
  });
});
