/**
 * What authentication reads on every request, kept for a second (docs/decisions/044-request-path-budgets.md):
 * the shop row behind a domain (its public key, whether it is installed, its settings) and the private key
 * behind a secret's hash (with its shop). At a flash sale's pace, reading them each time was a statement in
 * every request.
 *
 * The bound of a change: one made through this process (install, uninstall, settings, a key revoked) clears
 * both at once, so the next request reads afresh; one made by another process (the worker's shop/redact,
 * another web process's uninstall, settings or revocation) is seen within AUTHENTICATION_TTL_MS. Secrets
 * are never kept: keys are found by the hash the database holds.
 */
import { LRUCache } from "lru-cache";
import type { ApiKeyAuthRow } from "~/data/api-key-rows.server";
import type { ShopAuthRow } from "~/data/shop-rows.server";

export const AUTHENTICATION_TTL_MS = 1_000;

/**
 * One set of caches per process, not per copy of this module: the web process runs two bundles of the app
 * (its own, with the API, and the Remix build, with the admin), and a key revoked or settings saved on an
 * admin page must clear what the API remembers. Hence kept on `globalThis`, as the Redis connection is.
 */
const shared = globalThis as unknown as {
  authenticationCaches?: Map<string, LRUCache<string, { value: unknown }>>;
  /** Counts the clearings: a read that began before one may have read what it cleared. */
  authenticationForgotten?: number;
};
const caches = (shared.authenticationCaches ??= new Map());
shared.authenticationForgotten ??= 0;

/** Each remembers misses too (an unknown domain or secret is answered from memory), up to `max` entries. */
function cacheOf<Value>(name: string) {
  let cache = caches.get(name) as LRUCache<string, { value: Value | null }> | undefined;
  if (!cache) {
    cache = new LRUCache<string, { value: Value | null }>({ max: 10_000, ttl: AUTHENTICATION_TTL_MS });
    caches.set(name, cache as LRUCache<string, { value: unknown }>);
  }
  const remembered = cache;
  return async (key: string, read: () => Promise<Value | null>): Promise<Value | null> => {
    const cached = remembered.get(key);
    if (cached) return cached.value;
    const clearedBefore = shared.authenticationForgotten;
    const value = await read();
    // Read before a change made here was committed (a key revoked while this request was being
    // authenticated): answer this request with it, but do not keep it for the next ones.
    if (shared.authenticationForgotten === clearedBefore) remembered.set(key, { value });
    return value;
  };
}

/** Shops by domain. */
export const rememberedShop = cacheOf<ShopAuthRow>("shops");
/** Private keys by the hash of their secret. */
export const rememberedKey = cacheOf<ApiKeyAuthRow>("keys");

/** After a change to a shop or a key made by this process: the next request reads afresh. */
export function forgetAuthentication(): void {
  shared.authenticationForgotten = (shared.authenticationForgotten ?? 0) + 1;
  for (const cache of caches.values()) cache.clear();
}
