import type { MiddlewareHandler } from "hono";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { getEnv } from "~/env.server";
import { AppError } from "~/lib/problems";
import { logger } from "~/logger.server";
import { rateLimitKey, rateLimitPrefix, type RateLimitBucket } from "~/lib/rate-limit-keys.server";
import { getRateLimitRedis, whenRedisReady } from "~/redis.server";
import { recordKeyRefusal, recordKeyUse } from "~/services/keys/key-usage.server";
import type { V1Env } from "./context";
import { shopperOf } from "./shopper.server";

/**
 * Rate limits, counted in Redis so they hold across every app process
 * (docs/decisions/008-rate-limit-keys.md):
 *  - bucket `shop`: 600 requests a minute per shop on private (non-storefront) endpoints;
 *  - bucket `shopper`: 60 a minute per shopper on /v1/storefront/*, keyed by customer id, else anonymous
 *    id, else client address, within the shop;
 *  - bucket `address`: RATE_LIMIT_STOREFRONT_PER_ADDRESS_PER_MINUTE (300) a minute per client address on
 *    /v1/storefront/*, within the shop: the one a client cannot escape by rotating its anonymous id.
 * Headers name the bucket: X-RateLimit-{Limit,Remaining,Reset}-{Shop|Shopper|Address}, plus the IETF
 * RateLimit-Policy / RateLimit fields listing every bucket the request was counted in.
 * Each request also counts toward its credential's use (services/keys/key-usage.server.ts: the API keys page).
 */
type Bucket = RateLimitBucket;

const HEADER_SUFFIX: Record<Bucket, string> = { shop: "Shop", shopper: "Shopper", address: "Address" };

function limitOf(bucket: Bucket) {
  const env = getEnv();
  const points =
    bucket === "shop"
      ? env.RATE_LIMIT_PRIVATE_PER_MINUTE
      : bucket === "shopper"
        ? env.RATE_LIMIT_STOREFRONT_PER_MINUTE
        : env.RATE_LIMIT_STOREFRONT_PER_ADDRESS_PER_MINUTE;
  return { points, duration: 60, header: HEADER_SUFFIX[bucket] };
}

const limiters = new Map<string, RateLimiterRedis>();

function limiterFor(bucket: Bucket): RateLimiterRedis {
  const { points, duration } = limitOf(bucket);
  const cacheKey = `${bucket}:${points}`;
  let limiter = limiters.get(cacheKey);
  if (!limiter) {
    limiter = new RateLimiterRedis({
      storeClient: getRateLimitRedis(),
      keyPrefix: rateLimitPrefix(bucket),
      points,
      duration,
      // If Redis is unreachable, count in process memory rather than refuse or stop limiting.
      insuranceLimiter: new RateLimiterMemory({ points, duration }),
    });
    limiters.set(cacheKey, limiter);
  }
  return limiter;
}

interface Count {
  bucket: Bucket;
  remaining: number;
  resetSeconds: number;
}

function setHeaders(headers: Headers, counts: Count[]) {
  for (const { bucket, remaining, resetSeconds } of counts) {
    const { points, header } = limitOf(bucket);
    headers.set(`X-RateLimit-Limit-${header}`, String(points));
    headers.set(`X-RateLimit-Remaining-${header}`, String(remaining));
    headers.set(`X-RateLimit-Reset-${header}`, String(resetSeconds));
  }
  headers.set(
    "RateLimit-Policy",
    counts.map(({ bucket }) => `"${bucket}";q=${limitOf(bucket).points};w=${limitOf(bucket).duration}`).join(", "),
  );
  headers.set(
    "RateLimit",
    counts.map(({ bucket, remaining, resetSeconds }) => `"${bucket}";r=${remaining};t=${resetSeconds}`).join(", "),
  );
}

type V1Context = Parameters<MiddlewareHandler<V1Env>>[0];

/**
 * Counts the request in each bucket (the storefront's `shopper` and `address`, or the private `shop`).
 * Over any of them: 429 `rate-limited` with Retry-After (the longest wait among the buckets refused) and
 * `bucket` naming the first refused. A request without a known client address (in-process, no socket) is
 * not counted in the `address` bucket.
 */
export function rateLimit(
  buckets: readonly Bucket[],
  clientAddress: (c: V1Context) => string | undefined,
): MiddlewareHandler<V1Env> {
  return async (c, next) => {
    const caller = c.get("caller");
    const address = clientAddress(c);
    const keys: Array<{ bucket: Bucket; key: string }> = [];
    for (const bucket of buckets) {
      if (bucket === "shop") keys.push({ bucket, key: rateLimitKey(caller.shopId) });
      else if (bucket === "address") {
        if (address !== undefined) keys.push({ bucket, key: rateLimitKey(caller.shopId, address) });
      } else {
        const shopper = shopperOf(c).key ?? `ip:${address ?? "unknown"}`;
        keys.push({ bucket, key: rateLimitKey(caller.shopId, shopper) });
      }
    }
    // A connection still being established refuses commands (fail-fast mode), which would silently move
    // counting to process memory; wait for it briefly. One that already failed falls through at once to
    // the in-memory insurance limiter.
    await whenRedisReady(getRateLimitRedis(), 1_000).catch(() => undefined);
    const consumed = keys.map(({ bucket, key }) => limiterFor(bucket).consume(key));
    // In the same tick as the counters above: one pipelined write for all of them.
    recordKeyUse({ shopId: caller.shopId, credentialId: caller.credentialId });
    const outcomes = await Promise.allSettled(consumed);
    const counts: Count[] = [];
    const refused: Bucket[] = [];
    let retryAfter = 0;
    outcomes.forEach((outcome, index) => {
      const { bucket } = keys[index]!;
      const result = outcome.status === "fulfilled" ? outcome.value : outcome.reason;
      if (!(result instanceof RateLimiterRes)) {
        logger.error({ err: result }, "rate limiter failed");
        throw result;
      }
      const resetSeconds = Math.max(0, Math.ceil(result.msBeforeNext / 1000));
      if (outcome.status === "rejected") {
        refused.push(bucket);
        retryAfter = Math.max(retryAfter, resetSeconds, 1);
        counts.push({ bucket, remaining: 0, resetSeconds: Math.max(1, resetSeconds) });
      } else {
        counts.push({ bucket, remaining: result.remainingPoints, resetSeconds });
      }
    });
    if (refused.length > 0) {
      recordKeyRefusal({ shopId: caller.shopId, credentialId: caller.credentialId });
      const headers = new Headers({ "Retry-After": String(retryAfter) });
      setHeaders(headers, counts);
      const bucket = refused[0]!;
      throw new AppError("rate-limited", {
        detail: `More than ${limitOf(bucket).points} requests a minute (${bucket} bucket). Retry in ${retryAfter} s.`,
        extensions: { bucket },
        headers: Object.fromEntries(headers),
      });
    }
    await next();
    setHeaders(c.res.headers, counts);
  };
}
