/**
 * Each credential's use, for the admin's API keys page: requests in the last 24 hours and the last time the
 * credential was refused with 429 (docs/decisions/061-key-usage-in-redis.md). Counted in Redis by the rate limiter,
 * on its connection in the tick of its own counters (auto-pipelined), never awaited by the request: a figure of
 * operations, not a record. Redis restarted empty forgets it, and the page then counts from zero.
 */
import { logger } from "~/logger.server";
import { keyUsageKeys } from "~/lib/rate-limit-keys.server";
import { getRateLimitRedis, getRequestRedis, whenRedisReady } from "~/redis.server";

const HOUR_MS = 3_600_000;
/** Hourly counters live a little over a day: the window read is the current hour and the 23 before it. */
const HOUR_TTL_SECONDS = 25 * 3600;
const WINDOW_HOURS = 24;
/** How long the last refusal is remembered. */
const LIMITED_TTL_DAYS = 30;

/**
 * Counts one request of a credential (a private key's id, or `public`, `proxy`, `customerAccount`). The rate limiter
 * calls it in the tick it sends its own counters, so that auto-pipelining sends all of them in one write: the
 * request's one Redis round trip (tests/api/request-budgets.test.ts).
 */
export function recordKeyUse(
  { shopId, credentialId }: { shopId: string; credentialId: string },
  now = Date.now(),
): void {
  const hourKey = keyUsageKeys(shopId, credentialId).hour(Math.floor(now / HOUR_MS));
  const redis = getRateLimitRedis();
  settle([redis.incr(hourKey), redis.expire(hourKey, HOUR_TTL_SECONDS)]);
}

/** Remembers that a credential was refused with 429 now (a write of its own, on the refused path only). */
export function recordKeyRefusal(
  { shopId, credentialId }: { shopId: string; credentialId: string },
  now = Date.now(),
): void {
  const { limited } = keyUsageKeys(shopId, credentialId);
  settle([getRateLimitRedis().set(limited, new Date(now).toISOString(), "EX", LIMITED_TTL_DAYS * 86_400)]);
}

/** Never awaited by the request: a failed count is dropped (Redis away: the limiter's insurance counts). */
function settle(writes: Array<Promise<unknown>>): void {
  Promise.all(writes).catch((error: unknown) => logger.debug({ err: error }, "could not count a key's use"));
}

export interface KeyUsage {
  /** Requests in the current hour and the 23 before it. */
  requests24h: number;
  /** ISO timestamp of the last 429, within the last LIMITED_TTL_DAYS days; null if none. */
  lastRateLimitedAt: string | null;
}

/**
 * The use of each of a shop's credentials, by credential id. `null` when Redis does not answer: the page then
 * says the figures are unavailable rather than show zeros.
 */
export async function readKeyUsage(
  { shopId, credentialIds }: { shopId: string; credentialIds: readonly string[] },
  now = Date.now(),
): Promise<Map<string, KeyUsage> | null> {
  if (credentialIds.length === 0) return new Map();
  const hour = Math.floor(now / HOUR_MS);
  const names = credentialIds.flatMap((credentialId) => {
    const keys = keyUsageKeys(shopId, credentialId);
    return [keys.limited, ...Array.from({ length: WINDOW_HOURS }, (_, back) => keys.hour(hour - back))];
  });
  let values: Array<string | null>;
  try {
    const redis = getRequestRedis();
    await whenRedisReady(redis, 1_000);
    values = await redis.mget(names);
  } catch (error) {
    logger.warn({ err: error }, "could not read key usage");
    return null;
  }
  const usage = new Map<string, KeyUsage>();
  credentialIds.forEach((credentialId, index) => {
    const [limited, ...hours] = values.slice(index * (WINDOW_HOURS + 1), (index + 1) * (WINDOW_HOURS + 1));
    usage.set(credentialId, {
      requests24h: hours.reduce((sum, count) => sum + (count === null ? 0 : Number(count)), 0),
      lastRateLimitedAt: limited ?? null,
    });
  });
  return usage;
}
