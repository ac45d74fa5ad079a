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

const globalForRedis = globalThis as unknown as { requestRedis?: Redis; rateLimitRedis?: Redis };

/**
 * The shared fail-fast connection of the web process: readiness, the queues' adds (BullMQ), forgetting
 * counters. No auto-pipelining here: BullMQ defines its scripts on the connection when a queue is first
 * used, and ioredis's auto-pipelining queues a command into a pipeline built before its script was defined,
 * where it is missing; the reply count then falls short and ioredis throws from a callback, taking the
 * process down (redis/ioredis#1931; seen in a CI run of this project).
 */
export function getRequestRedis(): Redis {
  if (!globalForRedis.requestRedis) {
    const redis = createRedis("request");
    // Errors surface to callers (readiness answers 503); the connection keeps retrying in the background.
    redis.on("error", () => {});
    globalForRedis.requestRedis = redis;
  }
  return globalForRedis.requestRedis;
}

/**
 * The rate limiters' fail-fast connection, and theirs only. Commands issued in the same tick go out
 * together in one write (ioredis's auto-pipelining): a storefront request counts itself in two rate-limit
 * buckets, and that is one round trip, not two (docs/decisions/044-request-path-budgets.md). It is safe
 * here because the only script sent on it, the limiters', is defined by the first limiter before any
 * command goes out on the connection (see getRequestRedis for what goes wrong otherwise).
 */
export function getRateLimitRedis(): Redis {
  if (!globalForRedis.rateLimitRedis) {
    const redis = createRedis("request", { enableAutoPipelining: true });
    redis.on("error", () => {});
    globalForRedis.rateLimitRedis = redis;
  }
  return globalForRedis.rateLimitRedis;
}

/** Closes the web process's connections (the shared one and the rate limiters'). */
export async function closeRequestRedis(): Promise<void> {
  const connections = [globalForRedis.requestRedis, globalForRedis.rateLimitRedis];
  globalForRedis.requestRedis = undefined;
  globalForRedis.rateLimitRedis = undefined;
  await Promise.all(connections.map((redis) => redis?.quit().catch(() => redis.disconnect())));
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
