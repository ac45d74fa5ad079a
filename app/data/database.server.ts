/**
 * The data layer's handle on the database (docs/decisions/017-data-layer.md): one Kysely instance per
 * process on the engine DATABASE_URL names, typed by the rows generated from the Prisma schema. Only the
 * modules of app/data/ use it; services call their functions and group them in `transaction`.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { Kysely, type LogEvent, type Transaction } from "kysely";
import { PostgresDialect } from "kysely";
import type pg from "pg";
import { getEnv, sqliteFilePath } from "~/env.server";
import type { DB } from "~/generated/kysely/database";
import {
  createPostgresPool,
  endPool,
  isPostgresPoolExhausted,
  isPostgresUnavailable,
  isPoolSaturated,
  isRetryablePostgresError,
} from "./postgres.server";
import { sqliteDialect } from "./sqlite-dialect.server";
import { retryWhileBusy, sqliteWriteLock, type SqliteWriteLock } from "./sqlite-lock.server";

export type { DB } from "~/generated/kysely/database";

/** What a data-layer function runs its statements on: the shared handle or a transaction's. */
export type Queryable = Kysely<DB>;
export type Tx = Transaction<DB>;

export type Engine = "sqlite" | "postgres";

/**
 * What a caller may add to a service's unit of work: `within` runs last inside the service's transaction,
 * with its result, so that what it writes (the stored response of an Idempotency-Key) commits together
 * with the change or not at all. Every service function that changes data in one transaction takes one
 * as its last, optional parameter.
 */
export interface UnitOfWork<R> {
  within?: (tx: Tx, result: R) => Promise<void>;
}

interface Store {
  engine: Engine;
  db: Kysely<DB>;
  /** SQLite only. */
  lock: SqliteWriteLock | null;
  /** SQLite only: the writing connection (checkpoints). */
  sqliteWriter: import("better-sqlite3").Database | null;
  /** PostgreSQL only. */
  pool: pg.Pool | null;
}

const WEB_AUTOCHECKPOINT_PAGES = 10_000;
const TRANSACTION_DEADLINE_MS = 10_000;

let statementsRun = 0;
let statementObserver: ((sql: string, parameters: readonly unknown[]) => void) | undefined;
/** Kysely's log hook, called once per statement run. */
const countStatement = (event: LogEvent) => {
  const text = event.query.sql;
  // PostgreSQL's transactions run BEGIN and COMMIT through the log too; SQLite's driver does not: neither counts.
  if (text === "begin" || text === "commit" || text === "rollback") return;
  statementsRun++;
  statementObserver?.(text, event.query.parameters);
};

/**
 * Hands each statement this process runs through the data layer, as sent to the driver, to `observer`
 * (undefined: none). For the benchmarks, which replay a report's very statements on the bare driver.
 */
export function observeStatements(observer: ((sql: string, parameters: readonly unknown[]) => void) | undefined) {
  statementObserver = observer;
}

/**
 * How many statements this process has run through the data layer: the request budgets
 * (docs/decisions/044-request-path-budgets.md) are held by tests that read it around one request.
 */
export function statementCount(): number {
  return statementsRun;
}

function open(pool?: pg.Pool): Store {
  const env = getEnv();
  if (env.DATABASE_ENGINE === "postgres") {
    const shared = pool ?? createPostgresPool();
    return {
      engine: "postgres",
      db: new Kysely<DB>({ dialect: new PostgresDialect({ pool: shared }), log: countStatement }),
      lock: null,
      sqliteWriter: null,
      pool: shared,
    };
  }
  const file = sqliteFilePath(env.DATABASE_URL);
  mkdirSync(path.dirname(file), { recursive: true });
  const lock = sqliteWriteLock(file);
  const dialect = sqliteDialect({
    file,
    lock,
    writerPragmas: [
      // Commits copy the WAL back into the database (a checkpoint, with fsyncs) only past 40 MB: the worker
      // checkpoints several times a second, off the request path. The bound stays for when no worker runs.
      `wal_autocheckpoint = ${WEB_AUTOCHECKPOINT_PAGES}`,
      // 16 MB of page cache (default 2 MB): an import batch dirties pages all over the item indexes.
      "cache_size = -16384",
    ],
  });
  return {
    engine: "sqlite",
    db: new Kysely<DB>({ dialect, log: countStatement }),
    lock,
    sqliteWriter: dialect.connections.writer,
    pool: null,
  };
}

const globalForData = globalThis as unknown as { dataStore?: Store };

function store(): Store {
  return (globalForData.dataStore ??= open());
}

/** The shared handle (opened on first use; a global so Vite's dev reloads and the Remix bundle share it). */
export function database(): Queryable {
  return store().db;
}

export function engine(): Engine {
  return getEnv().DATABASE_ENGINE;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` in one transaction: everything it does through `tx` commits together or not at all.
 * SQLite: it holds the process's write lock from its start and is started again while another process
 * writes (up to 10 s, then `unavailable`). PostgreSQL: run again on a deadlock or serialisation failure,
 * and with `retryOnUniqueViolation` on a unique violation too (two first writes of one row raced), for up
 * to 10 s. So `work` must do nothing outside `tx` that cannot be repeated.
 */
export async function transaction<T>(
  work: (tx: Tx) => Promise<T>,
  { retryOnUniqueViolation = false }: { retryOnUniqueViolation?: boolean } = {},
): Promise<T> {
  const { db, lock } = store();
  if (lock) return retryWhileBusy(() => db.transaction().execute((tx) => lock.holding(() => work(tx))));
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      const retryable = isRetryablePostgresError(error) && (retryOnUniqueViolation || !isUniqueViolation(error));
      if (!retryable || Date.now() - started > TRANSACTION_DEADLINE_MS) throw error;
    }
    await sleep(Math.min(50, attempt) * (0.5 + Math.random()));
  }
}

/**
 * Whether `error` means the database could not be used at all (PostgreSQL down, restarting or unreachable),
 * not that a statement was refused: nothing was written (a transaction commits whole or not at all), and
 * the same request may be sent again later.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return getEnv().DATABASE_ENGINE === "postgres" && isPostgresUnavailable(error);
}

/**
 * Whether `error` means the process had no database connection to spare (every connection of its pool in
 * use for the whole connect timeout): one of the cases of isDatabaseUnavailable, told apart because the
 * database itself answers and a client should retry soon rather than report an outage.
 */
export function isDatabaseBusy(error: unknown): boolean {
  return getEnv().DATABASE_ENGINE === "postgres" && isPostgresPoolExhausted(error);
}

/**
 * Whether every database connection of this process is established and in use right now (PostgreSQL; the
 * readiness probe reports it as busy instead of queueing a ping behind the requests).
 */
export function isDatabaseSaturated(): boolean {
  if (getEnv().DATABASE_ENGINE !== "postgres") return false;
  const { pool } = store();
  return pool !== null && isPoolSaturated(pool);
}

/** A unique violation (23505 on PostgreSQL, SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY on SQLite). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/**
 * SQLite: copies committed WAL pages into the database file without blocking readers or writers
 * (PASSIVE); the worker calls it often so the web process's commits rarely have to. Returns the WAL size
 * in pages before the copy. PostgreSQL: nothing (0).
 */
export async function checkpoint(): Promise<number> {
  const { lock, sqliteWriter } = store();
  if (!lock || !sqliteWriter) return 0;
  // Never inside a transaction of the writing connection (PASSIVE itself never waits).
  const release = await lock.acquire();
  try {
    const [result] = sqliteWriter.pragma("wal_checkpoint(PASSIVE)") as Array<{ log: number }>;
    return result?.log ?? 0;
  } finally {
    release();
  }
}

/** Closes the shared handle (and the PostgreSQL pool); the next use opens a new one. */
export async function closeDatabase(): Promise<void> {
  const current = globalForData.dataStore;
  globalForData.dataStore = undefined;
  if (!current) return;
  if (current.pool) {
    await endPool(current.pool);
    return;
  }
  await current.db.destroy();
}
