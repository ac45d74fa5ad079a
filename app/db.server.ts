import { mkdirSync } from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type pg from "pg";
import { getEnv, sqliteFilePath } from "./env.server";
import { PrismaClient as PostgresClient } from "./generated/prisma-postgres/client";
import { PrismaClient as SqliteClient } from "./generated/prisma-sqlite/client";
import { closeDatabase, sharedPostgresPool } from "./data/database.server";
import { createPostgresPool, createSqlDatabase, type SqlDatabase } from "./sql.server";
import { BUSY_RETRY_BOUND_MS, serialisedSqliteAdapter, sqliteWriteLock } from "./sqlite-writes.server";

/**
 * One data model, two engines (docs/decisions/001-two-database-engines.md). DATABASE_URL selects the
 * generated client and driver adapter; both clients come from schemas identical but for the provider,
 * so the SQLite client's type describes either.
 */
export type Db = SqliteClient;
export type { Prisma } from "./generated/prisma-sqlite/client";

/**
 * A new client with its own connection(s); the app uses the shared `prisma` below. On PostgreSQL it may
 * be given the pool to use (the shared client shares its pool with the direct-SQL layer).
 */
export function createDatabaseClient(pool?: pg.Pool): Db {
  const env = getEnv();
  if (env.DATABASE_ENGINE === "postgres") {
    const adapter = new PrismaPg(pool ?? createPostgresPool());
    return new PostgresClient({ adapter }) as unknown as Db;
  }
  const file = sqliteFilePath(env.DATABASE_URL);
  mkdirSync(path.dirname(file), { recursive: true });
  // No busy wait inside better-sqlite3 (it would stop the event loop): every write takes the process's
  // write lock, and a lock held by another process (web and worker share the file) is retried
  // asynchronously (sqlite-writes.server.ts, docs/decisions/016-sqlite-writers.md).
  const adapter = serialisedSqliteAdapter(
    new PrismaBetterSQLite3({ url: env.DATABASE_URL, timeout: 0 }),
    sqliteWriteLock(file),
  );
  // A transaction may wait for the lock up to the busy bound: Prisma must not give up first (P2028).
  return new SqliteClient({ adapter, transactionOptions: { maxWait: BUSY_RETRY_BOUND_MS + 5_000 } });
}

const globalForDb = globalThis as unknown as { prisma?: Db; sql?: SqlDatabase };

/** PostgreSQL: the data layer's pool (app/data/database.server.ts), so every path counts against one limit. */
function sharedPool(): pg.Pool | undefined {
  return sharedPostgresPool() ?? undefined;
}

/** The process-wide client (a global so Vite's dev reloads and the Remix bundle share one pool). */
export const prisma: Db = (globalForDb.prisma ??= createDatabaseClient(sharedPool()));

/** Direct SQL for the hot paths (decision 012), on the same PostgreSQL pool; opened on first use. */
export function sql(): SqlDatabase {
  return (globalForDb.sql ??= createSqlDatabase(sharedPool()));
}

/**
 * Per-connection settings. SQLite: WAL (readers never block the writer; persistent in the file),
 * NORMAL sync (durable in WAL mode at commit, fast), foreign keys on (off by default in SQLite).
 */
export async function prepareDatabase(): Promise<void> {
  if (getEnv().DATABASE_ENGINE !== "sqlite") return;
  await prisma.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await prisma.$queryRawUnsafe("PRAGMA synchronous = NORMAL");
  await prisma.$queryRawUnsafe("PRAGMA foreign_keys = ON");
}

export async function disconnectDatabase(): Promise<void> {
  await prisma.$disconnect();
  const direct = globalForDb.sql;
  globalForDb.sql = undefined;
  // On PostgreSQL the direct-SQL layer shares the data layer's pool, which closeDatabase ends.
  if (direct?.engine === "sqlite") await direct.close();
  await closeDatabase();
}
