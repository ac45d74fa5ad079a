import type { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

/**
 * One way to write per process on SQLite (docs/decisions/016-sqlite-writers.md).
 *
 * A process has two connections that write to the database file: the direct-SQL writer (sql.server.ts)
 * and Prisma's. SQLite lets one connection write at a time, and a transaction of either path stays open
 * across `await`s. Both paths therefore take one process-wide async lock before they write, so they never
 * meet at SQLite's lock inside the process; and both connections have a busy timeout of 0, because
 * better-sqlite3 waits for a busy lock synchronously, stopping the event loop that the holder needs to
 * finish. The lock that another process holds (web and worker share the file) is waited for with async
 * retries (`retryWhileBusy`).
 */

export {
  BUSY_RETRY_BOUND_MS,
  isSqliteBusy,
  LOCK_WAIT_BOUND_MS,
  retryWhileBusy,
  sqliteWriteLock,
  type SqliteWriteLock,
} from "./data/sqlite-lock.server";
import { problemOfDomainError } from "./api/domain-problems.server";
import { retryWhileBusy, type SqliteWriteLock } from "./data/sqlite-lock.server";
import { DomainError } from "./lib/domain-error";

type AdapterFactory = PrismaBetterSQLite3;
type Adapter = Awaited<ReturnType<AdapterFactory["connect"]>>;
type Transaction = Awaited<ReturnType<Adapter["startTransaction"]>>;
type Query = Parameters<Adapter["queryRaw"]>[0];

const statement = (sql: string): Query => ({ sql, args: [], argTypes: [] });

/**
 * A statement that starts with SELECT never writes; anything else (INSERT, UPDATE, DELETE, PRAGMA, a
 * CTE...) is treated as a write, which at worst makes it wait for the lock.
 */
const isRead = (sql: string) => /^\s*SELECT\b/i.test(sql);

/**
 * Prisma's better-sqlite3 adapter with every write taking the process's write lock:
 *  - a statement outside a transaction that may write holds the lock for that statement;
 *  - a transaction (interactive `$transaction(async (tx) => ...)`, batch `$transaction([...])`, and the
 *    ones Prisma opens for nested writes) takes the lock before `BEGIN IMMEDIATE` and keeps it until its
 *    COMMIT or ROLLBACK, so it holds SQLite's write lock from its start and never fails half-way busy;
 *  - reads outside a transaction take no lock (WAL: readers never wait for the writer).
 * A busy database (another process) is retried asynchronously (`retryWhileBusy`). The wrapped adapter's
 * connection must have a busy timeout of 0.
 *
 * Inside an interactive transaction, write through its `tx`: a write through the shared client waits for
 * the lock that the transaction holds, until Prisma's transaction timeout rolls it back.
 */
export function serialisedSqliteAdapter(inner: AdapterFactory, lock: SqliteWriteLock) {
  return {
    provider: "sqlite" as const,
    adapterName: inner.adapterName,
    connect: async (): Promise<Adapter> => serialisedAdapter(await inner.connect(), lock),
    connectToShadowDb: () => inner.connectToShadowDb(),
  };
}

/** Prisma turns an error with a `code` into its own request error: hand it the problem instead. */
async function asProblem<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof DomainError ? problemOfDomainError(error) : error;
  }
}

function serialisedAdapter(inner: Adapter, lock: SqliteWriteLock): Adapter {
  const locked = async <T>(work: () => Promise<T>): Promise<T> =>
    asProblem(() =>
      retryWhileBusy(async () => {
        const release = await lock.acquire();
        try {
          return await work();
        } finally {
          release();
        }
      }),
    );
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    queryRaw: (query) =>
      isRead(query.sql) ? retryWhileBusy(() => inner.queryRaw(query)) : locked(() => inner.queryRaw(query)),
    executeRaw: (query) =>
      isRead(query.sql) ? retryWhileBusy(() => inner.executeRaw(query)) : locked(() => inner.executeRaw(query)),
    executeScript: (script) => locked(() => inner.executeScript(script)),
    ...(inner.getConnectionInfo ? { getConnectionInfo: () => inner.getConnectionInfo!() } : {}),
    dispose: () => inner.dispose(),
    async startTransaction(isolationLevel) {
      if (isolationLevel && isolationLevel !== "SERIALIZABLE") {
        throw new Error(`SQLite transactions are always SERIALIZABLE (asked for ${isolationLevel}).`);
      }
      const release = await retryWhileBusy(async () => {
        const release = await lock.acquire();
        try {
          await inner.executeRaw(statement("BEGIN IMMEDIATE"));
          return release;
        } catch (error) {
          release();
          throw error;
        }
      });
      return lockedTransaction(inner, release);
    },
  };
}

/**
 * A transaction on the adapter's one connection. Prisma sends COMMIT or ROLLBACK through `executeRaw`,
 * then calls `commit()` or `rollback()`; the lock is released then, or as soon as the connection is no
 * longer in a transaction after a failed COMMIT (which Prisma follows with neither call).
 */
function lockedTransaction(inner: Adapter, release: () => void): Transaction {
  let released = false;
  const done = async () => {
    if (!released) {
      released = true;
      release();
    }
  };
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    options: { usePhantomQuery: false },
    queryRaw: (query) => inner.queryRaw(query),
    async executeRaw(query) {
      const ending = /^\s*(COMMIT|ROLLBACK|END)\b/i.test(query.sql);
      try {
        return await inner.executeRaw(query);
      } catch (error) {
        if (ending) {
          await inner.executeRaw(statement("ROLLBACK")).catch(() => undefined);
          await done();
        }
        throw error;
      }
    },
    commit: done,
    rollback: done,
  };
}
