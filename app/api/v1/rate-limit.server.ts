import type { MiddlewareHandler } from "hono";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { getEnv } from "~/env.server";
import { AppError } from "~/lib/problems";
import { logger } from "~/logger.server";
import { getRequestRedis, whenRedisReady } from "~/redis.server";
import { mayHaveBody } from "./body.server";
import type { Caller, V1Env } from "./context";

/**
 * Rate limits (spec 8), counted in Redis so they hold across every app process
 * (docs/decisions/008-rate-limit-keys.md):
 *  - bucket `shop`: 600 requests a minute per shop on private (non-storefront) endpoints;
 *  - bucket `shopper`: 60 a minute per shopper on /v1/storefront/*, keyed by customer id, else anonymous
 *    id, else client address, within the shop.
 * Headers name the bucket: X-RateLimit-{Limit,Remaining,Reset}-{Shop|Shopper}, plus the IETF
 * RateLimit-Policy / RateLimit fields.
 */
export type Bucket = "shop" | "shopper";

function limitOf(bucket: Bucket) {
  const env = getEnv();
  return bucket === "shop"
    ? { points: env.RATE_LIMIT_PRIVATE_PER_MINUTE, duration: 60, header: "Shop" }
    : { points: env.RATE_LIMIT_STOREFRONT_PER_MINUTE, duration: 60, header: "Shopper" };
}

const limiters = new Map<Bucket, RateLimiterRedis>();

function limiterFor(bucket: Bucket): RateLimiterRedis {
  let limiter = limiters.get(bucket);
  if (!limiter) {
    const { points, duration } = limitOf(bucket);
    limiter = new RateLimiterRedis({
      storeClient: getRequestRedis(),
      keyPrefix: `${getEnv().REDIS_PREFIX}:rl:${bucket}`,
      points,
      duration,
      // If Redis is unreachable, count in process memory rather than refuse or stop limiting.
      insuranceLimiter: new RateLimiterMemory({ points, duration }),
    });
    limiters.set(bucket, limiter);
  }
  return limiter;
}

function shopperKey(caller: Caller, url: URL, body: unknown, clientAddress: string | undefined): string {
  if (caller.customerId) return `c:${caller.customerId}`;
  // Private keys act for many shoppers and name each one.
  const named =
    caller.mode === "private" ? (url.searchParams.get("customerId") ?? bodyField(body, "customerId")) : null;
  if (named) return `c:${named}`;
  const aid = url.searchParams.get("aid") ?? bodyField(body, "anonymousId");
  if (aid && /^[0-9a-fA-F-]{36}$/.test(aid)) return `a:${aid.toLowerCase()}`;
  return `ip:${clientAddress ?? "unknown"}`;
}

function bodyField(body: unknown, name: string): string | null {
  return typeof body === "object" && body !== null && name in body
    ? String((body as Record<string, unknown>)[name])
    : null;
}

function setHeaders(headers: Headers, bucket: Bucket, remaining: number, resetSeconds: number) {
  const { points, duration, header } = limitOf(bucket);
  headers.set(`X-RateLimit-Limit-${header}`, String(points));
  headers.set(`X-RateLimit-Remaining-${header}`, String(remaining));
  headers.set(`X-RateLimit-Reset-${header}`, String(resetSeconds));
  headers.set("RateLimit-Policy", `"${bucket}";q=${points};w=${duration}`);
  headers.set("RateLimit", `"${bucket}";r=${remaining};t=${resetSeconds}`);
}

export function rateLimit(
  bucket: Bucket,
  clientAddress: (c: Parameters<MiddlewareHandler<V1Env>>[0]) => string | undefined,
): MiddlewareHandler<V1Env> {
  return async (c, next) => {
    const caller = c.get("caller");
    const key =
      bucket === "shop"
        ? caller.shopId
        : `${caller.shopId}:${shopperKey(caller, new URL(c.req.url), await readJsonBody(c), clientAddress(c))}`;
    let result: RateLimiterRes;
    try {
      // A connection still being established refuses commands (fail-fast mode), which would silently
      // move counting to process memory; wait for it briefly. One that already failed falls through at
      // once to the in-memory insurance limiter.
      await whenRedisReady(getRequestRedis(), 1_000).catch(() => undefined);
      result = await limiterFor(bucket).consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        logger.error({ err: rejection }, "rate limiter failed");
        throw rejection;
      }
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      const headers = new Headers({ "Retry-After": String(retryAfter) });
      setHeaders(headers, bucket, 0, retryAfter);
      throw new AppError("rate-limited", {
        detail: `More than ${limitOf(bucket).points} requests a minute (${bucket} bucket). Retry in ${retryAfter} s.`,
        extensions: { bucket },
        headers: Object.fromEntries(headers),
      });
    }
    await next();
    setHeaders(c.res.headers, bucket, result.remainingPoints, Math.max(0, Math.ceil(result.msBeforeNext / 1000)));
  };
}

/** The parsed JSON body when there is one (already validated as JSON by `requireJsonBody`). */
export async function readJsonBody(c: Parameters<MiddlewareHandler<V1Env>>[0]): Promise<unknown> {
  if (!mayHaveBody(c)) return undefined;
  const text = await c.req.text();
  return text ? JSON.parse(text) : undefined;
}
