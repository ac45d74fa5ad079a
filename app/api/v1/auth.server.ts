import { timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { AppError } from "~/lib/problems";
import { findKeyForAuthentication, touchApiKey } from "~/services/keys/keys.server";
import { PRIVATE_KEY_PREFIX, PUBLIC_KEY_PREFIX } from "~/services/keys/secrets";
import { readShopSettings } from "~/services/shops/settings";
import { findShopByDomain } from "~/services/shops/shops.server";
import { authenticate } from "~/shopify.server";
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

async function privateKeyCaller(authorization: string): Promise<Caller> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const secret = match?.[1];
  if (!secret || !secret.startsWith(PRIVATE_KEY_PREFIX)) {
    throw unauthorized("Authorization must be `Bearer svc_sk_...` (a private key).");
  }
  const key = await findKeyForAuthentication(secret);
  if (!key) throw unauthorized("Unknown API key.");
  if (key.revokedAt) throw unauthorized("This API key has been revoked.");
  touchApiKey(key.id);
  return { mode: "private", shopId: key.shop.id, shopDomain: key.shop.domain, credentialId: key.id, customerId: null };
}

async function publicKeyCaller(
  shopDomain: string | undefined,
  publicKey: string | undefined,
  origin: string | undefined,
) {
  if (!shopDomain || !publicKey) {
    throw unauthorized("Public-key calls send both X-Service-Shop and X-Service-Public-Key.", false);
  }
  const shop = publicKey.startsWith(PUBLIC_KEY_PREFIX) ? await findShopByDomain(shopDomain.toLowerCase()) : null;
  if (!shop || !sameSecret(shop.publicKey, publicKey)) {
    throw unauthorized("The public key does not belong to this shop.", false);
  }
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

/**
 * App proxy: the platform signs the forwarded query (`signature`: HMAC-SHA256 over the sorted
 * parameters with the app secret). The platform library verifies it (constant-time compare, timestamp
 * within 90 s); the shop and the customer come only from that signed query.
 */
async function appProxyCaller(request: Request): Promise<Caller> {
  const url = new URL(request.url);
  if (!url.searchParams.get("signature")) {
    throw unauthorized("App proxy requests must carry the platform's signature.", false);
  }
  try {
    await authenticate.public.appProxy(request);
  } catch (error) {
    if (error instanceof Response) {
      throw unauthorized("The app proxy signature does not verify or has expired.", false);
    }
    throw error;
  }
  const shop = await findShopByDomain(url.searchParams.get("shop") ?? "");
  if (!shop || shop.uninstalledAt) throw unauthorized("The app is not installed on this shop.", false);
  const customer = url.searchParams.get("logged_in_customer_id");
  const customerId = customer && /^\d+$/.test(customer) ? customer : null;
  return { mode: "proxy", shopId: shop.id, shopDomain: shop.domain, credentialId: "proxy", customerId };
}

/** Resolves the caller of a /v1 or /proxy/v1 request (spec 5); 401 when no mode applies. */
export async function resolveCaller(c: Context<V1Env>): Promise<Caller> {
  if (c.req.path.startsWith("/proxy/")) return appProxyCaller(c.req.raw);
  const authorization = c.req.header("authorization");
  if (authorization !== undefined) return privateKeyCaller(authorization);
  const shop = c.req.header("x-service-shop");
  const publicKey = c.req.header("x-service-public-key");
  if (shop !== undefined || publicKey !== undefined) return publicKeyCaller(shop, publicKey, c.req.header("origin"));
  throw unauthorized(
    "No credentials. Send `Authorization: Bearer svc_sk_...` (server), or X-Service-Shop and X-Service-Public-Key (browser).",
  );
}
