/**
 * Kysely on better-sqlite3 with the process's write lock (docs/decisions/016-sqlite-writers.md,
 * 017-data-layer.md). Two connections: one that writes and one that only reads (WAL lets readers and the
 * writer go on at once).
 *  - A transaction takes the process's write lock, then `BEGIN IMMEDIATE` (it holds SQLite's write lock
 *    from its start, so it never fails half-way with SQLITE_BUSY_SNAPSHOT), and runs on the writer.
 *  - A statement outside a transaction: a SELECT runs on the reader with no lock; anything else is a
 *    transaction of its own on the writer (same lock, same retries).
 *  - Values cross the driver as the app uses them on both engines: a `Date` is stored as ISO-8601 UTC text
 *    and read back as a `Date`, a boolean is stored as 0/1 and read back as a boolean (by the column's
 *    declared type, DATETIME or BOOLEAN, as Prisma's migrations declare them).
 */
import Database from "better-sqlite3";
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Kysely,
} from "kysely";
import { BUSY_RETRY_BOUND_MS, isSqliteBusy, retryWhileBusy, type SqliteWriteLock } from "./sqlite-lock.server";

/** A timestamp as stored in SQLite: ISO-8601 UTC text with an explicit offset (sortable as text). */
export function sqliteTimestamp(date: Date): string {
  return date.toISOString().replace("Z", "+00:00");
}

/** Stored timestamp text back to a Date (also the `YYYY-MM-DD HH:MM:SS` of SQLite's CURRENT_TIMESTAMP). */
export function parseSqliteTimestamp(value: string): Date {
  return new Date(/(?:Z|[+-]\d\d:?\d\d)$/i.test(value) ? value : `${value.replace(" ", "T")}Z`);
}

type Value = string | number | bigint | Buffer | null;
type Convert = (value: Value) => unknown;

const toBoolean: Convert = (value) => (value === null ? null : value === 1 || value === 1n || value === "1");
const toDate: Convert = (value) => (value === null ? null : parseSqliteTimestamp(String(value)));

function parameter(value: unknown): unknown {
  if (value instanceof Date) return sqliteTimestamp(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

interface Prepared {
  statement: Database.Statement;
  /** Per result column, the conversion its declared type asks for (undefined: as stored). */
  converters: Array<[string, Convert]> | null;
}

function convertersOf(statement: Database.Statement): Array<[string, Convert]> | null {
  if (!statement.reader) return null;
  const converters: Array<[string, Convert]> = [];
  for (const column of statement.columns()) {
    const type = column.type?.toUpperCase();
    if (type === "DATETIME") converters.push([column.name, toDate]);
    else if (type === "BOOLEAN") converters.push([column.name, toBoolean]);
  }
  return converters.length ? converters : null;
}

class Statements {
  private cache = new Map<string, Prepared>();
  constructor(readonly connection: Database.Database) {}

  execute(query: CompiledQuery): QueryResult<unknown> {
    let prepared = this.cache.get(query.sql);
    if (!prepared) {
      const statement = this.connection.prepare(query.sql);
      prepared = { statement, converters: convertersOf(statement) };
      this.cache.set(query.sql, prepared);
    }
    const { statement, converters } = prepared;
    const parameters = query.parameters.map(parameter);
    if (statement.reader) {
      const rows = statement.all(...parameters) as Array<Record<string, Value>>;
      if (converters) {
        for (const row of rows)
          for (const [name, convert] of converters) row[name] = convert(row[name] ?? null) as Value;
      }
      return { rows };
    }
    const { changes, lastInsertRowid } = statement.run(...parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }
}

/** A handle Kysely acquires for one statement or one transaction. */
class Connection implements DatabaseConnection {
  inTransaction = false;
  release: (() => void) | null = null;

  constructor(private readonly driver: SqliteDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { writer, reader, lock } = this.driver;
    if (this.inTransaction) return writer.execute(query) as QueryResult<R>;
    if (SelectQueryNode.is(query.query)) return reader.execute(query) as QueryResult<R>;
    return retryWhileBusy(async () => {
      const release = await lock.acquire();
      try {
        return writer.execute(query) as QueryResult<R>;
      } finally {
        release();
      }
    });
  }

  // eslint-disable-next-line require-yield -- streaming is not offered: every query reads its rows at once
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("Streaming queries are not supported on SQLite here: page with keyset cursors.");
  }
}

class SqliteDriver implements Driver {
  readonly writer: Statements;
  readonly reader: Statements;
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollback: Database.Statement;

  constructor(
    writer: Database.Database,
    reader: Database.Database,
    readonly lock: SqliteWriteLock,
  ) {
    this.writer = new Statements(writer);
    this.reader = new Statements(reader);
    this.begin = writer.prepare("BEGIN IMMEDIATE");
    this.commit = writer.prepare("COMMIT");
    this.rollback = writer.prepare("ROLLBACK");
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Connection(this);
  }

  /** Takes the write lock, then BEGIN IMMEDIATE; a busy start is thrown for the caller to retry. */
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const handle = connection as Connection;
    const release = await this.lock.acquire();
    try {
      this.begin.run();
    } catch (error) {
      release();
      throw error;
    }
    handle.release = release;
    handle.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    this.commit.run();
    this.end(connection as Connection);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      if (this.writer.connection.inTransaction) this.rollback.run();
    } finally {
      this.end(connection as Connection);
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.end(connection as Connection);
  }

  async destroy(): Promise<void> {
    this.reader.connection.close();
    this.writer.connection.close();
  }

  private end(handle: Connection): void {
    handle.inTransaction = false;
    const release = handle.release;
    handle.release = null;
    release?.();
  }
}

export interface SqliteDialectOptions {
  file: string;
  lock: SqliteWriteLock;
  /** PRAGMAs of the writing connection beyond WAL, NORMAL sync and foreign keys. */
  writerPragmas?: string[];
  /** How long opening waits for another process's lock. Default: BUSY_RETRY_BOUND_MS. */
  openWaitMs?: number;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Opens a connection and runs its set-up (journal mode, PRAGMAs, a first read of the schema), again and
 * again while another process holds a lock it needs, for up to `openWaitMs`; every statement after that
 * never waits (busy timeout 0, decision 016). The set-up can meet another process's lock: the worker
 * starting while the web process writes, or switching a freshly migrated file to WAL, which needs the
 * file to itself (issue 25, item 19). Each attempt closes its connection before the pause: a busy timeout
 * would wait holding the shared lock, which keeps the other process from committing (both then wait until
 * one gives up). The pause is synchronous, but it happens once, when the process opens its database
 * before it serves or consumes anything.
 */
function openConnection(
  file: string,
  options: Database.Options,
  openWaitMs: number,
  setUp: (connection: Database.Database) => void,
): Database.Database {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const connection = new Database(file, { ...options, timeout: 0 });
    try {
      setUp(connection);
      connection.prepare("SELECT count(*) FROM sqlite_schema").get();
      return connection;
    } catch (error) {
      connection.close();
      if (!isSqliteBusy(error)) throw error;
      if (Date.now() - started > openWaitMs) {
        throw new Error(
          `SQLite (${file}): another process held the database's lock for longer than ${openWaitMs / 1000} s ` +
            "while it was being opened. Is a migration or another copy of the app stuck?",
          { cause: error },
        );
      }
    }
    Atomics.wait(pause, 0, 0, Math.min(50, attempt * 5));
  }
}

export function sqliteDialect({
  file,
  lock,
  writerPragmas = [],
  openWaitMs = BUSY_RETRY_BOUND_MS,
}: SqliteDialectOptions): Dialect & {
  connections: { writer: Database.Database; reader: Database.Database };
} {
  const writer = openConnection(file, {}, openWaitMs, (connection) => {
    connection.pragma("journal_mode = WAL");
    connection.pragma("synchronous = NORMAL");
    connection.pragma("foreign_keys = ON");
    for (const pragma of writerPragmas) connection.pragma(pragma);
  });
  const reader = openConnection(file, { readonly: true }, openWaitMs, () => {});
  return {
    connections: { writer, reader },
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new SqliteDriver(writer, reader, lock),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
  };
}
