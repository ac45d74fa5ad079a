/**
 * The web process's Redis connections (app/redis.server.ts). The shared one carries BullMQ, which defines
 * its scripts on the connection when a queue is first used: with ioredis's auto-pipelining, a script
 * defined after a pipeline was built is missing from it, the command is dropped, and ioredis throws
 * "results[i] is not iterable" from a callback, which takes the process down (seen in a CI run of this
 * project's tests; redis/ioredis#1931).
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeRequestRedis, getRateLimitRedis, getRequestRedis, whenRedisReady } from "~/redis.server";

afterAll(() => closeRequestRedis());

describe("the shared connection", () => {
  it("runs a script defined in the same tick as another command, as BullMQ's first add does", async () => {
    const redis = getRequestRedis();
    await whenRedisReady(redis, 10_000);
    const ping = redis.ping();
    redis.defineCommand("connectionsTestScript", { numberOfKeys: 0, lua: "return 7" });
    const script = (redis as unknown as { connectionsTestScript: () => Promise<number> }).connectionsTestScript();
    expect(await Promise.all([ping, script])).toEqual(["PONG", 7]);
  });
});

describe("the rate limiters' connection", () => {
  it("sends the commands of one tick in one write", async () => {
    const redis = getRateLimitRedis();
    await whenRedisReady(redis, 10_000);
    const stream = (redis as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
    const write = stream.write;
    let writes = 0;
    stream.write = function (this: unknown, ...args: unknown[]) {
      writes++;
      return write.apply(this, args);
    };
    try {
      expect(await Promise.all([redis.ping(), redis.ping()])).toEqual(["PONG", "PONG"]);
    } finally {
      stream.write = write;
    }
    expect(writes).toBe(1);
  });
});
