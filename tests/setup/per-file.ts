import { randomBytes } from "node:crypto";
import { copyFileSync, rmSync } from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, inject } from "vitest";
import { postgresUrlFor, TEST_DATA_DIR, withAdminClient } from "../../scripts/lib/databases";
import { cleanUpLeftovers } from "../support/processes";

/**
 * Before each test file: a database of its own (a copy of the migrated template) and a Redis key
 * prefix of its own, set in process.env before any app module reads the environment.
 */
const engine = inject("engine");
const template = inject("templateDatabase");
const suffix = randomBytes(5).toString("hex");
// Captured now: a test file may point the app at another Redis (e.g. a dead port) for its own cases.
const cleanupRedisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

let cleanupDatabase: () => Promise<void>;
if (engine === "sqlite") {
  const file = path.join(TEST_DATA_DIR, `t-${suffix}.db`);
  copyFileSync(template, file);
  process.env.DATABASE_URL = `file:${file}`;
  cleanupDatabase = async () => {
    for (const extension of ["", "-wal", "-shm", "-journal"]) rmSync(`${file}${extension}`, { force: true });
  };
} else {
  const database = `wishlist_t_${suffix}`;
  await withAdminClient((client) => client.query(`CREATE DATABASE ${database} TEMPLATE ${template}`));
  process.env.DATABASE_URL = postgresUrlFor(database);
  cleanupDatabase = async () => {
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  };
}
process.env.REDIS_PREFIX = `test:${suffix}`;
// File storage (imports, exports) of its own, removed with the rest.
const storageDir = path.join(TEST_DATA_DIR, `files-${suffix}`);
process.env.STORAGE_DIR = storageDir;
process.env.LOG_LEVEL ??= "silent";
process.env.NODE_ENV = "test";

afterAll(async () => {
  // What a failed or timed-out test left running (its processes hold this file's database open).
  await cleanUpLeftovers();
  const { closeDatabase } = await import("~/data/database.server");
  const { closeRequestRedis } = await import("~/redis.server");
  await Promise.allSettled([closeDatabase(), closeRequestRedis()]);
  await cleanupDatabase();
  rmSync(storageDir, { recursive: true, force: true });
  const redis = new Redis(cleanupRedisUrl);
  try {
    const stream = redis.scanStream({ match: `test:${suffix}:*`, count: 500 });
    for await (const keys of stream as AsyncIterable<string[]>) if (keys.length) await redis.unlink(...keys);
  } finally {
    redis.disconnect();
  }
});
