import { timingSafeEqual } from "node:crypto";
import { InvalidHmacError, InvalidJwtError } from "@shopify/shopify-api";
import type { Context } from "hono";
import { canonicalPlatformId } from "~/lib/ids";
import { AppError } from "~/lib/problems";
import { findKeyForAuthentication, touchApiKey } from "~/services/keys/api-keys.server";
import { PRIVATE_KEY_PREFIX, PUBLIC_KEY_PREFIX } from "~/services/keys/key-secrets";
import { readShopSettings } from "~/services/shops/settings";
import { findShopByDomain } from "~/services/shops/shops.server";
import { platformApi, shopDomain } from "~/shopify.server";
import type { Caller, V1Env } from "./context";

const BEARER_CHALLENGE = { "WWW-Authenticate": 'Bearer realm="wishlist-service"' };

function unauthorized(detail: string, challenge = true) {
  return new AppError("unauthorized", { detail, headers: challenge ? BEARER_CHALLENGE : {} });
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The credential of `Authorization: Bearer <credential>`; undefined for any other form. */
function bearerCredential(authorization: string): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}

/** A JSON Web Token in compact form: three base64url parts (the platform's session tokens are such). */
const COMPACT_JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Whether a request presents a customer account session token: `Authorization: Bearer <JWT>`, told apart from
 * a private key by its form (a key is `svc_sk_...`, never with dots). Read before the token is verified, for
 * CORS (app.server.ts), so that the extension can read even a refusal.
 */
export function presentsSessionToken(authorization: string | undefined): boolean {
  const credential = authorization === undefined ? undefined : bearerCredential(authorization);
  return credential !== undefined && !credential.startsWith(PRIVATE_KEY_PREFIX) && COMPACT_JWT.test(credential);
}

async function privateKeyCaller(authorization: string): Promise<Caller> {
  const secret = bearerCredential(authorization);
  if (!secret || !secret.startsWith(PRIVATE_KEY_PREFIX)) {
    throw unauthorized(
      "Authorization must be `Bearer svc_sk_...` (a private key), or `Bearer <session token>` from the customer " +
        "account extension.",
    );
  }
  const key = await findKeyForAuthentication(secret);
  if (!key) throw unauthorized("Unknown API key.");
  if (key.revokedAt) throw unauthorized("This API key has been revoked.");
  if (key.shopUninstalledAt) throw shopUninstalled(key.shopDomain);
  touchApiKey({ shopId: key.shopId, keyId: key.id });
  return { mode: "private", shopId: key.shopId, shopDomain: key.shopDomain, credentialId: key.id, customerId: null };
}

async function publicKeyCaller(
  shopDomainHeader: string | undefined,
  publicKey: string | undefined,
  origin: string | undefined,
) {
  if (!shopDomainHeader || !publicKey) {
    throw unauthorized("Public-key calls send both X-Service-Shop and X-Service-Public-Key.", false);
  }
  const domain = shopDomain(shopDomainHeader);
  if (!domain) throw unauthorized("X-Service-Shop must be the shop's domain, `<name>.myshopify.com`.", false);
  const shop = publicKey.startsWith(PUBLIC_KEY_PREFIX) ? await findShopByDomain(domain) : null;
  if (!shop || !sameSecret(shop.publicKey, publicKey)) {
    throw unauthorized("The public key does not belong to this shop.", false);
  }
  if (shop.uninstalledAt) throw shopUninstalled(shop.domain);
  const settings = readShopSettings(shop.settings);
  // Browsers send Origin: only the shop's declared headless origins may use its public key.
  if (origin !== undefined && !settings.headlessOrigins.includes(origin)) {
    throw new AppError("forbidden", {
      detail: `Origin ${origin} is not among this shop's headless origins (settings.headlessOrigins).`,
    });
  }
  const caller: Caller = {
    mode: "public",
    shopId: shop.id,
    shopDomain: shop.domain,
    credentialId: "public",
    customerId: null,
    settings,
  };
  return caller;
}

/** The parameters the platform adds and signs; each may appear once (the platform never repeats them). */
const PROXY_RESERVED = ["shop", "logged_in_customer_id", "path_prefix", "timestamp", "signature"] as const;

/**
 * The query as the platform signs it, one entry per key. Refused before the signature is checked:
 *  - `hmac`: the platform library leaves both `signature` and `hmac` out of the message it checks (`hmac` is the
 *    admin's signature), so an `hmac` beside a valid `signature` would be a parameter no one signed. The
 *    platform signs every parameter but `signature` (shopify.dev, "Authenticate app proxies"), so a shopper's
 *    own `hmac` could never verify anyway;
 *  - any parameter given more than once: the platform signs a repeated key's values joined with commas,
 *    while the routes read the first value, so the value acted on would not be the value signed (and a
 *    repeated reserved key would name a different shop or customer to each reading). The storefront script
 *    never repeats one.
 */
function proxyParameters(url: URL): Record<string, string> {
  const values = new Map<string, string[]>();
  for (const [key, value] of url.searchParams) values.set(key, [...(values.get(key) ?? []), value]);
  if (values.has("hmac")) {
    throw unauthorized("App proxy requests are signed with `signature` only: an `hmac` parameter is refused.", false);
  }
  // The platform signs the sorted `key=value` pairs run together: with `=` inside a name, one signed set
  // could be re-split into another that names a different customer. The platform never sends such a name.
  const split = [...values.keys()].filter((key) => key.includes("="));
  if (split.length) {
    throw unauthorized(`App proxy parameter names may not contain "=": ${split.join(", ")}.`, false);
  }
  const repeated = [...values].filter(([, list]) => list.length > 1).map(([key]) => key);
  if (repeated.length) {
    throw unauthorized(`App proxy parameters may appear only once: ${repeated.join(", ")} repeated.`, false);
  }
  const params = Object.fromEntries([...values].map(([key, list]) => [key, list[0]!]));
  assertOneSplit(params);
  return params;
}

/**
 * The signed message runs the pairs together with no separator between one value and the next name, so a
 * message has many splits: the platform signs the shopper's own parameters with its own, and a shopper
 * who chooses them can make the message of a guest's call also read as one naming a customer, another
 * shop, or a fresh timestamp. Neither `=` in names nor in values need be involved: a guest's
 * `c=y` + `logged_in_customer_id=` re-splits as `mc=yl` + `ogged_in_customer_id=`, which frees a
 * `logged_in_customer_id=777` written earlier in the guest's own parameters.
 *
 * Any such re-split keeps the message and moves a reserved `name=` to another place in it, so the
 * message then holds that `name=` twice (the platform's, now inside other parameters, and the moved
 * one). The message a request's own parameters make must therefore hold each reserved `name=` exactly as
 * often as the request carries the name: once, or not at all. The platform's own calls always do (their
 * own parameters are ids, a product handle and the like).
 */
function assertOneSplit(params: Record<string, string>): void {
  // The message as the platform library builds it to verify: names in `localeCompare` order.
  const message = Object.entries(params)
    .filter(([key]) => key !== "signature")
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([key, value]) => `${key}=${value}`)
    .join("");
  const ambiguous = PROXY_RESERVED.filter(
    (key) => key !== "signature" && message.split(`${key}=`).length - 1 !== (key in params ? 1 : 0),
  );
  if (ambiguous.length) {
    throw unauthorized(
      `App proxy parameters may not spell a reserved parameter inside others: ${ambiguous.join(", ")}.`,
      false,
    );
  }
}

function shopUninstalled(domain: string) {
  return new AppError("shop-uninstalled", {
    detail: `The app was uninstalled from ${domain}: its keys and storefront calls stay refused until it is installed again.`,
  });
}

/**
 * App proxy: the platform signs the forwarded query (`signature`: HMAC-SHA256 over the sorted
 * parameters with the app secret). The platform library verifies it (constant-time compare, timestamp
 * within 90 s) over the very parameter set read here, so the shop and the customer come only from the
 * signed values (docs/decisions/015-platform-callers.md).
 *
 * The signed `logged_in_customer_id` is read here once, in the canonical form of platform ids
 * (`canonicalPlatformId`: "0123" is customer 123), so every route, the rate limiter and idempotency see the
 * same customer. Empty means a guest. Anything else that is not a customer id is refused with 401: the
 * platform never signs one, so it is not a caller to serve as a guest either.
 */
/**
 * The shop and shopper of a request the platform's app proxy signed (the signature over the query
 * parameters, at most 90 seconds old); 401 for anything else. Also used by the alert emails' click route.
 */
export async function verifyAppProxyRequest(request: Request) {
  const params = proxyParameters(new URL(request.url));
  const { signature, timestamp } = params;
  if (!signature) throw unauthorized("App proxy requests must carry the platform's signature.", false);
  // The library skips the age check when `timestamp` is missing or not a number: require one.
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) {
    throw unauthorized("App proxy requests must carry the platform's signed timestamp.", false);
  }
  let valid: boolean;
  try {
    valid = await platformApi.utils.validateHmac(params, { signator: "appProxy" });
  } catch (error) {
    if (!(error instanceof InvalidHmacError)) throw error;
    throw unauthorized("The app proxy signature has expired (the platform signs each call for 90 seconds).", false);
  }
  if (!valid) throw unauthorized("The app proxy signature does not verify.", false);
  const domain = shopDomain(params.shop);
  if (!domain) throw unauthorized("The signed `shop` is not a shop domain.", false);
  const shop = await findShopByDomain(domain);
  if (!shop) throw unauthorized("The app is not installed on this shop.", false);
  if (shop.uninstalledAt) throw shopUninstalled(shop.domain);
  const customer = params.logged_in_customer_id;
  const customerId = customer ? canonicalPlatformId(customer) : null;
  if (customer && !customerId) {
    throw unauthorized("The signed `logged_in_customer_id` is not a customer id (digits, at most 2^64-1).", false);
  }
  return { shop, customerId };
}

async function appProxyCaller(request: Request): Promise<Caller> {
  const { shop, customerId } = await verifyAppProxyRequest(request);
  return {
    mode: "proxy",
    shopId: shop.id,
    shopDomain: shop.domain,
    credentialId: "proxy",
    customerId,
    settings: readShopSettings(shop.settings),
  };
}

/** Customer GIDs as the platform writes them in a session token's `sub`. */
const CUSTOMER_GID = /^gid:\/\/shopify\/Customer\/([0-9]+)$/;

/**
 * The shop a session token's `dest` names: the platform writes the shop's domain (`<name>.myshopify.com`);
 * admin session tokens write it as an origin (`https://<name>.myshopify.com`), which is read the same way.
 */
function destinationShop(dest: unknown): string | null {
  if (typeof dest !== "string") return null;
  return shopDomain(dest.startsWith("https://") ? dest.slice("https://".length) : dest);
}

/**
 * Customer account extension (docs/decisions/047-customer-account-session-tokens.md): the session token the
 * extension gets from `shopify.sessionToken.get()`, sent as `Authorization: Bearer <token>`. The platform
 * signs it HS256 with the app's secret. It is verified by the platform library's `session.decodeSessionToken`,
 * the verifier `authenticate.public.customerAccount` calls (signature, algorithm, `exp` and `nbf` with the
 * library's 10 s of clock tolerance), with the audience checked too (that helper leaves it out): `aud` must be
 * this app's API key. Then:
 *  - `exp` and `nbf` must be present (the library's JWT verifier checks them only when they are);
 *  - `dest` names the shop, which must have the app installed (an uninstalled shop: 403 `shop-uninstalled`);
 *  - `sub` must name a customer (`gid://shopify/Customer/<id>`): the platform leaves it out when no customer is
 *    logged in, and this mode serves customers only, never guests.
 * Every failure is a 401 that says what was wrong, never the token itself (the library's message quotes it).
 */
async function customerAccountCaller(token: string): Promise<Caller> {
  let payload: Awaited<ReturnType<typeof platformApi.session.decodeSessionToken>>;
  try {
    payload = await platformApi.session.decodeSessionToken(token, { checkAudience: true });
  } catch (error) {
    if (!(error instanceof InvalidJwtError)) throw error;
    const reason = /invalid API key/i.test(error.message)
      ? "was issued for another app (`aud`)"
      : /"exp"|expired/i.test(error.message)
        ? "has expired"
        : /"nbf"/i.test(error.message)
          ? "is not valid yet (`nbf`)"
          : "does not verify (signature, algorithm or form)";
    throw unauthorized(`The customer account session token ${reason}.`);
  }
  if (typeof payload.exp !== "number" || typeof payload.nbf !== "number") {
    throw unauthorized("The customer account session token must carry `exp` and `nbf`.");
  }
  const domain = destinationShop(payload.dest);
  if (!domain) throw unauthorized("The session token's `dest` is not a shop domain.");
  const customerGid = CUSTOMER_GID.exec(typeof payload.sub === "string" ? payload.sub : "")?.[1];
  const customerId = customerGid === undefined ? null : canonicalPlatformId(customerGid);
  if (!customerId) {
    throw unauthorized(
      "The session token names no customer (`sub` must be `gid://shopify/Customer/<id>`): the wishlist page of " +
        "the customer account is for logged-in customers only.",
    );
  }
  const shop = await findShopByDomain(domain);
  if (!shop) throw unauthorized("The app is not installed on the session token's shop.");
  if (shop.uninstalledAt) throw shopUninstalled(shop.domain);
  return {
    mode: "customerAccount",
    shopId: shop.id,
    shopDomain: shop.domain,
    credentialId: "customerAccount",
    customerId,
    settings: readShopSettings(shop.settings),
  };
}

/**
 * Resolves the caller of a /v1 or /proxy/v1 request (the security schemes of docs/openapi.json); 401 when
 * no mode applies.
 */
export async function resolveCaller(c: Context<V1Env>): Promise<Caller> {
  if (c.req.path.startsWith("/proxy/")) return appProxyCaller(c.req.raw);
  const authorization = c.req.header("authorization");
  if (presentsSessionToken(authorization)) return customerAccountCaller(bearerCredential(authorization!)!);
  if (authorization !== undefined) return privateKeyCaller(authorization);
  const shop = c.req.header("x-service-shop");
  const publicKey = c.req.header("x-service-public-key");
  if (shop !== undefined || publicKey !== undefined) return publicKeyCaller(shop, publicKey, c.req.header("origin"));
  throw unauthorized(
    "No credentials. Send `Authorization: Bearer svc_sk_...` (server), X-Service-Shop and X-Service-Public-Key " +
      "(browser), or `Authorization: Bearer <session token>` (customer account extension).",
  );
}
