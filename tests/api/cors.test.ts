import { describe, expect, it } from "vitest";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createShopWithKey } from "../factories";
import { BASE_URL, createTestApp } from "../support/http";

const app = await createTestApp();
const { shop } = await createShopWithKey();
await updateShopSettings({ shopId: shop.id, patch: { headlessOrigins: ["https://headless.example"] } });
const other = await createShopWithKey();
await updateShopSettings({ shopId: other.shop.id, patch: { headlessOrigins: ["https://other.example"] } });

const preflight = (origin: string) =>
  app.request(`${BASE_URL}/v1/storefront/wishlist/toggle`, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "content-type, x-service-shop",
    },
  });

const publicCall = (origin: string, shopDomain = shop.domain, publicKey = shop.publicKey) =>
  app.request(`${BASE_URL}/v1/shop`, {
    headers: { Origin: origin, "X-Service-Shop": shopDomain, "X-Service-Public-Key": publicKey },
  });

describe("CORS for public-key calls", () => {
  it("grants a preflight to a declared headless origin, listing our headers", async () => {
    const response = await preflight("https://headless.example");
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://headless.example");
    expect(response.headers.get("access-control-allow-headers")).toContain("X-Service-Public-Key");
    expect(response.headers.get("vary")).toContain("Origin");
    // Every method the storefront operations use: PATCH renames a list and changes an item's note or quantity.
    expect(response.headers.get("access-control-allow-methods")?.split(", ")).toEqual([
      "GET",
      "POST",
      "PATCH",
      "DELETE",
      "OPTIONS",
    ]);
  });

  it("gives no grant to an undeclared origin", async () => {
    const response = await preflight("https://evil.example");
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("grants the response to the shop's own origin (errors included, so the browser can read them)", async () => {
    const response = await publicCall("https://headless.example");
    expect(response.status).toBe(403); // a private path, but readable by the allowed origin
    expect(response.headers.get("access-control-allow-origin")).toBe("https://headless.example");
    expect(response.headers.get("access-control-expose-headers")).toContain("X-RateLimit-Remaining-Shopper");
  });

  it("exposes every response header the storefront operations document, the address bucket's included", async () => {
    const response = await publicCall("https://headless.example");
    const exposed = new Set(
      (response.headers.get("access-control-expose-headers") ?? "").split(",").map((name) => name.trim().toLowerCase()),
    );
    const document = (await (await app.request(`${BASE_URL}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    const documented = new Set(
      Object.entries(document.paths)
        .filter(([path]) => path.startsWith("/storefront/"))
        .flatMap(([, operations]) => Object.values(operations))
        .flatMap((operation) => Object.values(operation.responses))
        .flatMap((answer) => Object.keys(answer.headers ?? {})),
    );
    expect(documented).toContain("X-RateLimit-Remaining-Address");
    expect([...documented].filter((name) => !exposed.has(name.toLowerCase()))).toEqual([]);
  });

  it("refuses another shop's origin with 403 and no grant", async () => {
    const response = await publicCall("https://other.example");
    expect(response.status).toBe(403);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expect((await response.json()).detail).toContain("not among this shop's headless origins");
  });

  it("follows settings changes: an origin removed from the list loses its grant", async () => {
    await updateShopSettings({ shopId: other.shop.id, patch: { headlessOrigins: [] } });
    expect((await preflight("https://other.example")).headers.get("access-control-allow-origin")).toBeNull();
  });

  it("refuses a public key that is not the shop's with 401", async () => {
    const response = await publicCall("https://headless.example", shop.domain, other.shop.publicKey);
    expect(response.status).toBe(401);
  });
});
