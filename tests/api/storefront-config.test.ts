import { describe, expect, it } from "vitest";
import { updateShopSettings } from "~/services/shops/shops.server";
import { negotiateLocale } from "~/lib/negotiate-locale";
import { DEFAULT_STRINGS } from "~/services/shops/storefront-config.server";
import { createShopWithKey } from "../factories";
import { rawCall, signedProxyPath } from "../support/openapi-client";
import { apiHarness } from "../support/harness";

const { app, validator, callsOf } = await apiHarness();
const { shop, secret } = await createShopWithKey();
await updateShopSettings({
  shopId: shop.id,
  patch: { strings: { "pt-BR": { add: "Adicionar aos favoritos" }, fr: { add: "J'adore" } }, guestEnabled: false },
});
const { publicCall } = callsOf({ shop, secret });
const config = (acceptLanguage?: string) =>
  publicCall("/storefront/config", {
    headers: acceptLanguage !== undefined ? { "Accept-Language": acceptLanguage } : {},
  });

describe("GET /storefront/config", () => {
  it("answers the best-matching locale with built-in texts overridden by the shop's, and the shop's rules", async () => {
    const response = await config("fr-CA,fr;q=0.9,en;q=0.8");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-language")).toBe("fr");
    expect(response.headers.get("vary")).toContain("Accept-Language");
    expect(await response.json()).toEqual({
      locale: "fr",
      strings: { ...DEFAULT_STRINGS.fr, add: "J'adore" },
      guestEnabled: false,
      shareEnabled: true,
      multipleLists: false,
      maxLists: 20,
      sharePath: "/pages/wishlist",
      customerLoggedIn: false,
      proxyPath: "/apps/service",
      apiVersion: "v1",
    });
  });

  it("offers a locale only the shop has strings for, over its language fallback", async () => {
    const body = await (await config("pt-BR")).json();
    expect(body.locale).toBe("pt-BR");
    expect(body.strings.add).toBe("Adicionar aos favoritos");
    expect(body.strings.remove).toBe(DEFAULT_STRINGS.en!.remove); // untranslated keys fall back to English
  });

  it.each([
    ["de-AT", "de"],
    ["ja, es;q=0.5", "es"],
    ["en;q=0.1, de;q=0.9", "de"],
    ["xx-YY", "en"],
    ["*", "en"],
    ["not a language tag!!", "en"],
  ])("Accept-Language %j -> %s", (header, locale) => {
    expect(negotiateLocale(header, [...Object.keys(DEFAULT_STRINGS), "pt-BR"])).toBe(locale);
  });

  it("requires Accept-Language (400 naming the header)", async () => {
    const response = await config();
    expect(response.status).toBe(400);
    const problem = await response.json();
    expect(problem.errors).toEqual([{ parameter: "accept-language", detail: "is required" }]);
    expect(problem.detail).toBe("accept-language: is required");
  });

  it("tells the theme when the app proxy signed a logged-in customer", async () => {
    const response = await rawCall(
      app,
      validator,
      signedProxyPath("/proxy/v1/storefront/config", { shop: shop.domain, logged_in_customer_id: "12" }),
      { headers: { "Accept-Language": "en" } },
    );
    expect((await response.json()).customerLoggedIn).toBe(true);
  });
});

describe("settings.sharePath: a path on the shop's own domain", () => {
  // The storefront script links the header badge to it, and the share link is https://<shop><sharePath>:
  // a browser reads "//host" and "/\host" as another site, so either would send shoppers off the shop.
  it.each(["//evil.example/wishlist", "/\\evil.example/wishlist", "/\\/evil.example"])(
    "refuses %j with 422 and keeps the stored path",
    async (sharePath) => {
      const { shop: other, secret } = await createShopWithKey();
      const response = await rawCall(app, validator, "/v1/shop/settings", {
        method: "PATCH",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
        body: JSON.stringify({ sharePath }),
      });
      expect(response.status).toBe(422);
      expect((await response.json()).errors).toEqual([{ pointer: "#/sharePath", detail: expect.any(String) }]);
      const config = await rawCall(app, validator, "/v1/storefront/config", {
        headers: { "X-Service-Shop": other.domain, "X-Service-Public-Key": other.publicKey, "Accept-Language": "en" },
      });
      expect((await config.json()).sharePath).toBe("/pages/wishlist");
    },
  );

  it("accepts an ordinary page path", async () => {
    const { secret } = await createShopWithKey();
    const response = await rawCall(app, validator, "/v1/shop/settings", {
      method: "PATCH",
      headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
      body: JSON.stringify({ sharePath: "/pages/saved-items" }),
    });
    expect(response.status).toBe(200);
  });
});
