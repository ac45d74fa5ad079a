import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeAdminApi, themeWithBlocks } from "../../scripts/lib/fake-admin-api";

// The platform stand-in, at the network boundary; set before app modules read the environment.
const platform = await startFakeAdminApi();
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
afterAll(() => platform.close());

const { database } = await import("~/data/database.server");
const { resetEnvCache } = await import("~/env.server");
const { SHOPIFY_API_VERSION } = await import("~/shopify-api-version");
const { createShopWithKey } = await import("../factories");
const { apiHarness } = await import("../support/harness");

const { clientFor } = await apiHarness();
const { shop, secret } = await createShopWithKey();
await database()
  .insertInto("Session")
  .values({
    id: `offline_${shop.domain}`,
    shop: shop.domain,
    state: "",
    isOnline: false,
    accessToken: "shpat_offline_token",
  })
  .execute();
const api = clientFor(secret);
const EMBED = "shopify://apps/wishlist-service/blocks/app-embed/0b7c7c4e-1111-4222-8333-944455556666";

beforeEach(() => {
  platform.calls.length = 0;
});

describe("GET /v1/shop/embed-status", () => {
  it("reports enabled when the published theme has the app embed on (settings_data with its comment header)", async () => {
    platform.answer(() => ({ status: 200, body: themeWithBlocks({ "123": { type: EMBED, disabled: false } }) }));
    const { data, response } = await api.GET("/shop/embed-status");
    expect(response.status).toBe(200);
    expect(data).toMatchObject({
      enabled: true,
      state: "enabled",
      // The numeric id as a decimal string, as every platform id in the API; the gid stays beside it.
      theme: { id: "123456789", gid: "gid://shopify/OnlineStoreTheme/123456789", name: "Dawn" },
    });
    expect(Object.keys(data!.theme!).sort()).toEqual(["gid", "id", "name"]);
    expect(data!.editorUrl).toBe(
      `https://${shop.domain}/admin/themes/current/editor?context=apps&activateAppId=local-dev-api-key%2Fapp-embed`,
    );
    expect(platform.calls).toHaveLength(1);
    expect(platform.calls[0]).toMatchObject({
      path: `/admin/api/${SHOPIFY_API_VERSION}/graphql.json`,
      accessToken: "shpat_offline_token",
    });
    expect(platform.calls[0]!.query).toContain("roles: [MAIN]");
  });

  const OTHER_APPS_EMBED = "shopify://apps/other-wishlist/blocks/app-embed/1f0c2a4e-2222-4333-8444-a55566667777";
  it.each([
    ["disabled", { "1": { type: EMBED, disabled: true } }],
    ["not_added", { "1": { type: "shopify://apps/other-app/blocks/star/abc" } }],
    // Another app's embed with the same block handle is not ours, enabled or not.
    ["not_added", { "1": { type: OTHER_APPS_EMBED, disabled: false } }],
    ["not_added", { "1": { type: EMBED.replace("wishlist-service", "wishlist-service-pro") } }],
    ["not_added", { "1": { type: EMBED.replace("/blocks/app-embed/", "/blocks/app-embed-2/") } }],
    ["not_added", { "1": { type: `shopify://apps/other/blocks/x/${EMBED}` } }],
    // Ours disabled next to another app's enabled one: ours decides.
    ["disabled", { "1": { type: OTHER_APPS_EMBED }, "2": { type: EMBED, disabled: true } }],
  ] as const)("reports %s for %j", async (state, blocks) => {
    platform.answer(() => ({ status: 200, body: themeWithBlocks(blocks, false) }));
    const { data } = await api.GET("/shop/embed-status");
    expect(data).toMatchObject({ enabled: false, state });
  });

  it("reads past malformed blocks in settings_data.json", async () => {
    const settings = JSON.stringify({ current: { blocks: { "1": null, "2": { type: 7 }, "3": { type: EMBED } } } });
    platform.answer(() => ({
      status: 200,
      body: {
        data: {
          themes: {
            nodes: [
              {
                id: "gid://shopify/OnlineStoreTheme/1",
                name: "Dawn",
                files: { nodes: [{ body: { content: settings } }] },
              },
            ],
          },
        },
      },
    }));
    expect((await api.GET("/shop/embed-status")).data).toMatchObject({ enabled: true, state: "enabled" });
  });

  it("reports enabled for our embed next to another app's disabled one", async () => {
    platform.answer(() => ({
      status: 200,
      body: themeWithBlocks({ "1": { type: OTHER_APPS_EMBED, disabled: true }, "2": { type: EMBED } }, false),
    }));
    expect((await api.GET("/shop/embed-status")).data).toMatchObject({ enabled: true, state: "enabled" });
  });

  it("matches the theme extension's id too once it is configured (SHOPIFY_WISHLIST_THEME_ID)", async () => {
    process.env.SHOPIFY_WISHLIST_THEME_ID = "0b7c7c4e-1111-4222-8333-944455556666";
    resetEnvCache();
    try {
      platform.answer(() => ({ status: 200, body: themeWithBlocks({ "1": { type: EMBED } }, false) }));
      expect((await api.GET("/shop/embed-status")).data).toMatchObject({ enabled: true, state: "enabled" });
      // Our app handle with another extension's id: an older or foreign extension, not this one.
      const stranger = EMBED.replace("0b7c7c4e-1111", "99999999-1111");
      platform.answer(() => ({ status: 200, body: themeWithBlocks({ "1": { type: stranger } }, false) }));
      expect((await api.GET("/shop/embed-status")).data).toMatchObject({ enabled: false, state: "not_added" });
    } finally {
      delete process.env.SHOPIFY_WISHLIST_THEME_ID;
      resetEnvCache();
    }
  });

  it.each(["1", "9007199254740993", "18446744073709551615"])(
    "gives the theme id %s as the decimal string of its gid, without losing digits past 2^53",
    async (numericId) => {
      const body = themeWithBlocks({ "1": { type: EMBED } }, false);
      body.data.themes.nodes[0]!.id = `gid://shopify/OnlineStoreTheme/${numericId}`;
      platform.answer(() => ({ status: 200, body }));
      const { data } = await api.GET("/shop/embed-status");
      expect(data!.theme).toEqual({ id: numericId, gid: `gid://shopify/OnlineStoreTheme/${numericId}`, name: "Dawn" });
    },
  );

  it.each([
    "gid://shopify/Product/123",
    "gid://shopify/OnlineStoreTheme/",
    "123456789",
    "gid://shopify/OnlineStoreTheme/12a",
  ])("answers 502 platform-unavailable, not a malformed id, when the theme's id is %s", async (id) => {
    const body = themeWithBlocks({ "1": { type: EMBED } }, false);
    body.data.themes.nodes[0]!.id = id;
    platform.answer(() => ({ status: 200, body }));
    const { response, error } = await api.GET("/shop/embed-status");
    expect(response.status).toBe(502);
    expect(error).toMatchObject({ type: "http://localhost:3000/problems/platform-unavailable" });
  });

  it("reports no_main_theme when the shop has no published theme", async () => {
    platform.answer(() => ({ status: 200, body: { data: { themes: { nodes: [] } } } }));
    expect((await api.GET("/shop/embed-status")).data).toMatchObject({
      enabled: false,
      state: "no_main_theme",
      theme: null,
    });
  });

  it("answers 502 platform-unavailable when the platform errors", async () => {
    platform.answer(() => ({ status: 500, body: { errors: "boom" } }));
    const { response, error } = await api.GET("/shop/embed-status");
    expect(response.status).toBe(502);
    expect(error).toMatchObject({ type: "http://localhost:3000/problems/platform-unavailable" });
  });

  it("answers 502 within the timeout when the platform hangs, instead of hanging", async () => {
    platform.answer(() => "hang");
    const started = Date.now();
    const { response } = await api.GET("/shop/embed-status");
    expect(response.status).toBe(502);
    // The request's own timeout (5 s, SHOPIFY_ADMIN_API_TIMEOUT_MS's default) ended it; the bound only
    // tells that apart from the platform's connection being held until it drops (minutes).
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it("answers 409 platform-not-connected when the platform refuses the token", async () => {
    platform.answer(() => ({ status: 401, body: { errors: "Invalid API key or access token" } }));
    const { response, error } = await api.GET("/shop/embed-status");
    expect(response.status).toBe(409);
    expect(error).toMatchObject({ type: "http://localhost:3000/problems/platform-not-connected" });
  });
});
