import type { Redis } from "ioredis";
import { getEnv } from "~/env.server";
import { getRequestRedis } from "~/redis.server";

/**
 * Where the rate limiter keeps its counters in Redis (docs/decisions/008-rate-limit-keys.md), spelled here
 * only: the limiter (app/api/v1/rate-limit.server.ts) counts under these keys, and the compliance service
 * (a customer's or a shop's erasure) forgets them through this module. A counter's key is
 * `<REDIS_PREFIX>:rl:<bucket>:<key>`: rate-limiter-flexible joins its `keyPrefix` and the key with `:`.
 */
export type RateLimitBucket = "shop" | "shopper" | "address";
/**
 * Buckets of actions that cost something outside the app or write: a test email sent (keyed by shop), an alert
 * email's unsubscribe link followed (keyed by a digest of the link, which names no one).
 */
export type ActionLimitBucket = "alert-test-email" | "alert-unsubscribe";

/** The `keyPrefix` of a bucket's limiter. */
export function rateLimitPrefix(bucket: RateLimitBucket | ActionLimitBucket): string {
  return `${getEnv().REDIS_PREFIX}:rl:${bucket}`;
}

/** A key within a bucket: the shop itself (`shop`), or a shopper or client address within the shop. */
export function rateLimitKey(shopId: string, within?: string): string {
  return within === undefined ? shopId : `${shopId}:${within}`;
}

/** Forgets one shopper's counters in a shop (`shopper` is the owner's key, `c:<customer id>`). */
export function forgetShopperRateLimits(shopId: string, shopper: string, connection?: Redis): Promise<number> {
  return forget(`${rateLimitPrefix("shopper")}:${rateLimitKey(shopId, shopper)}`, connection);
}

/** Forgets every counter of a shop, in every bucket. */
export function forgetShopRateLimits(shopId: string, connection?: Redis): Promise<number> {
  return forget(`${getEnv().REDIS_PREFIX}:rl:*:${shopId}*`, connection);
}

/** Deletes the counters matching `pattern` (a Redis glob); returns how many went. */
async function forget(pattern: string, connection: Redis | undefined): Promise<number> {
  const redis = connection ?? getRequestRedis();
  let removed = 0;
  const stream = redis.scanStream({ match: pattern, count: 500 });
  for await (const keys of stream as AsyncIterable<string[]>) {
    if (keys.length > 0) removed += await redis.unlink(...keys);
  }
  return removed;
}

/**
 * Where a credential's use is counted (app/services/keys/key-usage.server.ts), beside the limiters' counters so
 * that forgetting a shop's counters forgets these too: requests by the hour, `<prefix>:rl:usage:<shop>:<credential>:<hour>`
 * (`hour`: whole hours since the epoch), and the last refusal, `<prefix>:rl:limited:<shop>:<credential>`.
 */
export function keyUsageKeys(shopId: string, credentialId: string) {
  const prefix = `${getEnv().REDIS_PREFIX}:rl`;
  return {
    hour: (hour: number) => `${prefix}:usage:${shopId}:${credentialId}:${hour}`,
    limited: `${prefix}:limited:${shopId}:${credentialId}`,
  };
}
