import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { getEnv, sqliteFilePath } from "./env.server";
import { createPostgresPool, endPool } from "./data/postgres.server";
import { retryWhileBusy, sqliteWriteLock } from "./sqlite-writes.server";

/**
 * Direct SQL on the same drivers Prisma uses, for the storefront's hot paths (decision 012): a toggle
 * through the ORM costs ~0.3 ms of CPU per query, a prepared statement a few microseconds. The SQL
 * written against this layer runs unchanged on both engines: `?` placeholders (numbered for PostgreSQL
 * here), TRUE/FALSE, ON CONFLICT and RETURNING, timestamps passed as ISO-8601 text. Everything else
 * stays on Prisma.
 */
export type SqlValue = string | number | boolean | null | Date;

export interface SqlRunner {
  readonly engine: "sqlite" | "postgres";
  get<T>(sql: string, params?: SqlValue[]): Promise<T | undefined>;
  all<T>(sql: string, params?: SqlValue[]): Promise<T[]>;
  /** Number of rows changed. */
  run(sql: string, params?: SqlValue[]): Promise<number>;
}

export interface SqlDatabase extends SqlRunner {
  /** Runs `work` in one transaction that holds the write lock from its start; retried when busy. */
  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
  /**
   * SQLite: copies committed WAL pages into the database file without blocking readers or writers
   * (PASSIVE); the worker calls it often so the web process's commits rarely have to. PostgreSQL: nothing.
   * Returns the WAL size in pages before the copy (0 on PostgreSQL).
   */
  checkpoint(): Promise<number>;
  close(): Promise<void>;
}

/** Timestamps as Prisma's adapters store them: ISO-8601 UTC text (SQLite) or `timestamp(3)` (PostgreSQL). */
export function sqlTimestamp(date: Date): string {
  return date.toISOString().replace("Z", "+00:00");
}

/** A timestamp column as read back: SQLite text with an offset, PostgreSQL text without one (UTC). */
export function parseTimestamp(value: unknown): Date {
  if (value instanceof Date) return value;
  const text = String(value);
  return new Date(/(?:Z|[+-]\d\d:?\d\d)$/i.test(text) ? text : `${text.replace(" ", "T")}Z`);
}

export function parseTimestampOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : parseTimestamp(value);
}

const TRANSACTION_DEADLINE_MS = 10_000;
const WEB_AUTOCHECKPOINT_PAGES = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sqliteParam(value: SqlValue): string | number | null {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return sqlTimestamp(value);
  return value;
}

/**
 * SQLite: two connections of its own next to Prisma's, one that writes and one that only reads (WAL lets
 * readers and the writer go on at once). A transaction takes the write lock up front (`BEGIN IMMEDIATE`),
 * so it can never fail half-way with SQLITE_BUSY_SNAPSHOT. The busy timeout is 0: waiting inside
 * better-sqlite3 would block the event loop, and with it whoever holds the lock. Before it begins, a
 * transaction takes the process's write lock, which Prisma's writes take too (sqlite-writes.server.ts,
 * docs/decisions/016-sqlite-writers.md), so no other write of this process can be in the way; a busy start
 * (another process writes) is retried after a short async wait. A read outside a transaction is one
 * synchronous statement on the reading connection and needs no lock.
 */
function sqliteDatabase(url: string): SqlDatabase {
  const file = sqliteFilePath(url);
  mkdirSync(path.dirname(file), { recursive: true });
  const writer = new Database(file, { timeout: 0 });
  writer.pragma("journal_mode = WAL");
  writer.pragma("synchronous = NORMAL");
  writer.pragma("foreign_keys = ON");
  // Commits copy the WAL back into the database (a checkpoint, with fsyncs) only past 40 MB: the worker
  // checkpoints several times a second, off the request path (decision 012). The bound stays for when
  // no worker runs.
  writer.pragma(`wal_autocheckpoint = ${WEB_AUTOCHECKPOINT_PAGES}`);
  // 16 MB of page cache (default 2 MB): an import batch dirties pages all over the item indexes; with the
  // default the 50 MB import benchmark's real run took ~40 s, with this ~36 s (docs/benchmarks.md).
  writer.pragma("cache_size = -16384");
  const reader = new Database(file, { readonly: true, timeout: 0 });
  const runnerOf = (db: Database.Database): SqlRunner => {
    const statements = new Map<string, Database.Statement>();
    const prepare = (sql: string) => {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      return statement;
    };
    return {
      engine: "sqlite",
      get: async <T>(sql: string, params: SqlValue[] = []) => prepare(sql).get(...params.map(sqliteParam)) as T,
      all: async <T>(sql: string, params: SqlValue[] = []) => prepare(sql).all(...params.map(sqliteParam)) as T[],
      run: async (sql: string, params: SqlValue[] = []) => prepare(sql).run(...params.map(sqliteParam)).changes,
    };
  };
  const writing = runnerOf(writer);
  const reading = runnerOf(reader);
  const lock = sqliteWriteLock(file);
  const begin = writer.prepare("BEGIN IMMEDIATE");
  const commit = writer.prepare("COMMIT");
  const rollback = writer.prepare("ROLLBACK");

  function transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    return retryWhileBusy(async () => {
      const release = await lock.acquire();
      let begun = false;
      try {
        begin.run();
        begun = true;
        const result = await lock.holding(() => work(writing));
        commit.run();
        return result;
      } catch (error) {
        if (begun && writer.inTransaction) rollback.run();
        throw error;
      } finally {
        release();
      }
    });
  }

  return {
    engine: "sqlite",
    get: reading.get,
    all: reading.all,
    // A single write outside a transaction is a transaction of its own (same lock, same retries).
    run: (sql, params) => transaction((tx) => tx.run(sql, params)),
    transaction,
    checkpoint: async () => {
      // Never inside a transaction of the writing connection (PASSIVE itself never waits).
      const release = await lock.acquire();
      try {
        const [result] = writer.pragma("wal_checkpoint(PASSIVE)") as Array<{ log: number }>;
        return result?.log ?? 0;
      } finally {
        release();
      }
    },
    close: async () => {
      reader.close();
      writer.close();
    },
  };
}

/** PostgreSQL `timestamp` (1114) as the text PostgreSQL sends, so no time zone is applied on the way in. */
const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 1114 ? (value: string) => value : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

const numbered = new Map<string, string>();
function pgText(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    let index = 0;
    text = sql.replace(/\?/g, () => `$${++index}`);
    numbered.set(sql, text);
  }
  return text;
}

function pgParam(value: SqlValue): string | number | boolean | null {
  return value instanceof Date ? value.toISOString() : value;
}

/** Retried: unique violations, deadlocks and serialisation failures (the transaction is run again). */
const PG_RETRYABLE = new Set(["23505", "40P01", "40001"]);

function pgRunner(client: pg.Pool | pg.PoolClient): SqlRunner {
  const query = (sql: string, params: SqlValue[] = []) =>
    client.query({ text: pgText(sql), values: params.map(pgParam), types: pgTypes });
  return {
    engine: "postgres",
    get: async <T>(sql: string, params?: SqlValue[]) => (await query(sql, params)).rows[0] as T | undefined,
    all: async <T>(sql: string, params?: SqlValue[]) => (await query(sql, params)).rows as T[],
    run: async (sql: string, params?: SqlValue[]) => (await query(sql, params)).rowCount ?? 0,
  };
}

/** PostgreSQL: the pool Prisma's adapter also uses (db.server.ts), so both count against one limit. */
function postgresDatabase(pool: pg.Pool): SqlDatabase {
  return {
    ...pgRunner(pool),
    async transaction(work) {
      const started = Date.now();
      for (let attempt = 1; ; attempt++) {
        const client = await pool.connect();
        try {
          await client.query("BEGIN");
          const result = await work(pgRunner(client));
          await client.query("COMMIT");
          return result;
        } catch (error) {
          await client.query("ROLLBACK").catch(() => undefined);
          const code = (error as { code?: string }).code ?? "";
          if (!PG_RETRYABLE.has(code) || Date.now() - started > TRANSACTION_DEADLINE_MS) throw error;
        } finally {
          client.release();
        }
        await sleep(Math.min(50, attempt) * (0.5 + Math.random()));
      }
    },
    checkpoint: async () => 0,
    close: () => endPool(pool),
  };
}

export { createPostgresPool, endPool };

export function createSqlDatabase(pool?: pg.Pool): SqlDatabase {
  const env = getEnv();
  return env.DATABASE_ENGINE === "postgres"
    ? postgresDatabase(pool ?? createPostgresPool())
    : sqliteDatabase(env.DATABASE_URL);
}
