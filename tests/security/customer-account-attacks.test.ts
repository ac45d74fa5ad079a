/**
 * The customer account session token mode (docs/decisions/047-customer-account-session-tokens.md) under the
 * attacks of the review of issue 28 that the mode withstands, kept as regressions: tokens signed with what a
 * caller could know or choose (the API key, another algorithm, a `kid`, claims of the wrong types), and the
 * new CORS grant (`*`) asked for what it must not give: a public-key or private-key answer to an origin the
 * shop never declared. Every refusal writes nothing (every table digested before and after).
 */
import { randomUUID } from "node:crypto";
import { SignJWT, type JWTPayload } from "jose";
import { describe, expect, it } from "vitest";
import { getEnv, resetEnvCache } from "~/env.server";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createShopWithKey } from "../factories";
import { changesBetween, databaseState } from "../support/fuzz";
import { apiHarness } from "../support/harness";
import { BASE_URL } from "../support/http";

process.env.RATE_LIMIT_STOREFRONT_PER_MINUTE = "100000";
resetEnvCache();

const { app } = await apiHarness();
const { shop, secret } = await createShopWithKey();
await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true } });
const { apiKey, apiSecret } = { apiKey: getEnv().SHOPIFY_API_KEY, apiSecret: getEnv().SHOPIFY_API_SECRET };
const EVIL = "https://evil.example";

/** A payload as the platform writes it for customer 7301 of the shop, with `changes`. */
function claims(changes: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    dest: shop.domain,
    aud: apiKey,
    sub: "gid://shopify/Customer/7301",
    exp: now + 300,
    nbf: now,
    iat: now,
    jti: randomUUID(),
    ...changes,
  };
}

const sign = (payload: JWTPayload, key: string | Uint8Array, header: Record<string, unknown> = { alg: "HS256" }) =>
  new SignJWT(payload)
    .setProtectedHeader(header as { alg: string })
    .sign(typeof key === "string" ? new TextEncoder().encode(key) : key);

const toggle = (headers: Record<string, string>) =>
  app.request(`${BASE_URL}/v1/storefront/wishlist/toggle`, {
    method: "POST",
    headers: { Origin: EVIL, "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ productId: "8100000101", handle: "tidal-swim-shorts" }),
  });

describe("session tokens a caller can make", () => {
  it.each<[string, () => Promise<string>]>([
    ["HS256 with the app's API key (public) as the secret", () => sign(claims(), apiKey)],
    ["HS512 with the app's secret", () => sign(claims(), apiSecret, { alg: "HS512" })],
    [
      "a kid pointing at an empty key",
      () => sign(claims(), new Uint8Array(32), { alg: "HS256", kid: "../../dev/null" }),
    ],
    ["exp as a string", () => sign(claims({ exp: "9999999999" as never }), apiSecret)],
    ["aud as an array holding the API key", () => sign(claims({ aud: [apiKey] }), apiSecret)],
    ["sub as an array", () => sign(claims({ sub: ["gid://shopify/Customer/7301"] as never }), apiSecret)],
    ["dest with a port", () => sign(claims({ dest: `${shop.domain}:443` }), apiSecret)],
    ["dest with a path", () => sign(claims({ dest: `https://${shop.domain}/admin` }), apiSecret)],
    ["sub with a query", () => sign(claims({ sub: "gid://shopify/Customer/7301?x=1" }), apiSecret)],
    [
      "exp 11 s ago (past the library's 10 s of tolerance)",
      () => sign(claims({ exp: Math.floor(Date.now() / 1000) - 11 }), apiSecret),
    ],
  ])("%s: 401, nothing written", async (_case, token) => {
    const before = await databaseState();
    const response = await toggle({ Authorization: `Bearer ${await token()}` });
    expect(response.status).toBe(401);
    expect((await response.json()) as { type: string }).toMatchObject({ type: expect.stringMatching(/unauthorized$/) });
    expect(changesBetween(before, await databaseState())).toEqual([]);
  });
});

describe("the session tokens' CORS grant (*) and the other modes", () => {
  it("gives an undeclared origin no grant to a public-key answer: 403, nothing written", async () => {
    const before = await databaseState();
    const response = await toggle({ "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey });
    expect(response.status).toBe(403);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expect(changesBetween(before, await databaseState())).toEqual([]);
  });

  it("gives no grant to a private-key answer, storefront or private", async () => {
    for (const path of [`/v1/storefront/wishlist?customerId=7301`, "/v1/shop"]) {
      const response = await app.request(`${BASE_URL}${path}`, {
        headers: { Origin: EVIL, Authorization: `Bearer ${secret}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  it("takes a request with a public key and a session token as the token's, never the key's", async () => {
    const response = await toggle({
      "X-Service-Shop": shop.domain,
      "X-Service-Public-Key": shop.publicKey,
      Authorization: "Bearer a.b.c",
    });
    expect(response.status).toBe(401);
  });

  it("grants the session token's preflight none of the public key's headers, and none on the app proxy", async () => {
    const preflight = (path: string) =>
      app.request(`${BASE_URL}${path}`, {
        method: "OPTIONS",
        headers: {
          Origin: EVIL,
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization, x-service-shop, x-service-public-key",
        },
      });
    const storefront = await preflight("/v1/storefront/wishlist/toggle");
    expect(storefront.headers.get("access-control-allow-origin")).toBe("*");
    expect(storefront.headers.get("access-control-allow-headers")?.toLowerCase()).not.toContain("x-service");
    expect(
      (await preflight("/proxy/v1/storefront/wishlist/toggle")).headers.get("access-control-allow-origin"),
    ).toBeNull();
  });
});
