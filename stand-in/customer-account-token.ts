/**
 * Session tokens as the platform issues them to a customer account UI extension (`shopify.sessionToken.get()`):
 * an HS256 JWT signed with the app's secret, `aud` the app's API key, `dest` the shop's domain, `sub` the
 * logged-in customer's GID, valid for five minutes (`exp`, `nbf`, `iat`, `jti`). Written with `jose`,
 * independently of the platform library the app verifies them with, so the tests prove the two agree.
 *
 * Run directly, it prints a token for a customer of the demo shop, to call the API as the customer account page
 * does (docs/customer-account.md):
 *
 *   npm run customer-account:token -- [customer id, default 7001]
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { SignJWT, type JWTPayload } from "jose";

export interface CustomerAccountTokenClaims {
  shopDomain: string;
  /** The customer's numeric id; null signs a token without `sub` (no customer logged in). */
  customerId: string | null;
  apiKey: string;
  apiSecret: string;
  /** Seconds from now until `exp` (negative: already expired). Five minutes, as the platform issues them. */
  lifetimeSeconds?: number;
  /** Seconds from now until `nbf` (positive: not valid yet). */
  notBeforeSeconds?: number;
  /** Claims to set or replace as they are (`sub` in another form, `dest` as an origin, ...). */
  overrides?: JWTPayload;
  /** Claims to leave out (`exp`, `nbf`, ...). */
  omit?: Array<keyof JWTPayload>;
}

export async function signCustomerAccountToken({
  shopDomain,
  customerId,
  apiKey,
  apiSecret,
  lifetimeSeconds = 300,
  notBeforeSeconds = 0,
  overrides = {},
  omit = [],
}: CustomerAccountTokenClaims): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims: JWTPayload = {
    dest: shopDomain,
    aud: apiKey,
    ...(customerId === null ? {} : { sub: `gid://shopify/Customer/${customerId}` }),
    exp: now + lifetimeSeconds,
    nbf: now + notBeforeSeconds,
    iat: now,
    jti: randomUUID(),
    ...overrides,
  };
  for (const name of omit) delete claims[name];
  return new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(new TextEncoder().encode(apiSecret));
}

/** `npm run customer-account:token`: a token for a demo shop customer, with the app's local credentials. */
async function printDemoToken() {
  const demo = JSON.parse(readFileSync(".data/demo-shop.json", "utf8")) as { shopDomain: string };
  const token = await signCustomerAccountToken({
    shopDomain: demo.shopDomain,
    customerId: process.argv[2] ?? "7001",
    apiKey: process.env.SHOPIFY_API_KEY ?? "local-dev-api-key",
    apiSecret: process.env.SHOPIFY_API_SECRET ?? "local-dev-api-secret",
  });
  process.stdout.write(`${token}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await printDemoToken();
