import { Redis, type RedisOptions } from "ioredis";
import { getEnv } from "./env.server";

/**
 * Redis connections. Request paths fail fast when Redis is away (no offline queue, one retry), so a
 * request never hangs on it; workers block on Redis and must retry forever (BullMQ's requirement).
 */
export function createRedis(role: "request" | "worker", overrides: RedisOptions = {}): Redis {
  const options: RedisOptions =
    role === "request"
      ? { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 }
      : { maxRetriesPerRequest: null, enableReadyCheck: false };
  return new Redis(getEnv().REDIS_URL, { ...options, ...overrides });
}

const globalForRedis = globalThis as unknown as { requestRedis?: Redis };

/**
 * The shared fail-fast connection of the web process. Commands issued in the same tick go out together in
 * one write (ioredis's auto-pipelining): a storefront request counts itself in two rate-limit buckets, and
 * that is one round trip, not two (docs/decisions/044-request-path-budgets.md).
 */
export function getRequestRedis(): Redis {
  if (!globalForRedis.requestRedis) {
    const redis = createRedis("request", { enableAutoPipelining: true });
    // Errors surface to callers (readiness answers 503); the connection keeps retrying in the background.
    redis.on("error", () => {});
    globalForRedis.requestRedis = redis;
  }
  return globalForRedis.requestRedis;
}

export async function closeRequestRedis(): Promise<void> {
  const redis = globalForRedis.requestRedis;
  globalForRedis.requestRedis = undefined;
  if (redis) await redis.quit().catch(() => redis.disconnect());
}

/**
 * Resolves once the connection is ready (fail-fast connections refuse commands while connecting), or
 * rejects after `timeoutMs`.
 */
export async function whenRedisReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === "ready") return;
  // A connection that already failed is reconnecting in the background: report it down at once.
  if (redis.status === "reconnecting" || redis.status === "end" || redis.status === "close") {
    throw new Error(`redis not ready (status ${redis.status})`);
  }
  if (redis.status === "wait") void redis.connect().catch(() => {});
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off("ready", onReady);
      reject(new Error(`redis not ready after ${timeoutMs} ms (status ${redis.status})`));
    }, timeoutMs);
    function onReady() {
      clearTimeout(timer);
      resolve();
    }
    redis.once("ready", onReady);
  });
}
