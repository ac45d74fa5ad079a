import { mkdirSync } from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { getEnv, sqliteFilePath } from "./env.server";
import { PrismaClient as PostgresClient } from "./generated/prisma-postgres/client";
import { PrismaClient as SqliteClient } from "./generated/prisma-sqlite/client";

/**
 * One data model, two engines (docs/decisions/001-two-database-engines.md). DATABASE_URL selects the
 * generated client and driver adapter; both clients come from schemas identical but for the provider,
 * so the SQLite client's type describes either.
 */
export type Db = SqliteClient;
export type { Prisma } from "./generated/prisma-sqlite/client";

/** A new client with its own connection(s); the app uses the shared `prisma` below. */
export function createDatabaseClient(): Db {
  const env = getEnv();
  if (env.DATABASE_ENGINE === "postgres") {
    const adapter = new PrismaPg({ connectionString: env.DATABASE_URL, connectionTimeoutMillis: 5_000 });
    return new PostgresClient({ adapter }) as unknown as Db;
  }
  mkdirSync(path.dirname(sqliteFilePath(env.DATABASE_URL)), { recursive: true });
  // better-sqlite3 waits up to `timeout` ms for a lock held by another process (web and worker share the file).
  const adapter = new PrismaBetterSQLite3({ url: env.DATABASE_URL, timeout: 10_000 });
  return new SqliteClient({ adapter });
}

const globalForDb = globalThis as unknown as { prisma?: Db };

/** The process-wide client (a global so Vite's dev reloads and the Remix bundle share one pool). */
export const prisma: Db = (globalForDb.prisma ??= createDatabaseClient());

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
}
