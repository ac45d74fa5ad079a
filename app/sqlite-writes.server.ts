import { AsyncLocalStorage } from "node:async_hooks";
import path from "node:path";
import type { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { E_TIMEOUT, Mutex, type MutexInterface, withTimeout } from "async-mutex";
import { getEnv } from "./env.server";
import { AppError } from "./lib/problems";

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

/** How long a write keeps retrying while another process holds the database's write lock; then a 503. */
export const BUSY_RETRY_BOUND_MS = 10_000;

/** Who holds the lock in an async flow: a direct-SQL transaction runs its work inside `holding`. */
interface Holder {
  active: boolean;
}

export interface SqliteWriteLock {
  /**
   * Waits, asynchronously, for the process's write lock and gives the function that releases it. Throws
   * at once in a flow that already holds it through a direct-SQL transaction: that wait could never end.
   */
  acquire(): Promise<() => void>;
  /** Runs `work` marked as the holder of the lock (so a nested write fails fast instead of deadlocking). */
  holding<T>(work: () => Promise<T>): Promise<T>;
}

interface LockState {
  mutex: MutexInterface;
  /** Development and tests only: which async flow holds the lock through a direct-SQL transaction. */
  flow: AsyncLocalStorage<Holder> | null;
}

/** The longest wait for this process's write lock; past it the write is refused with a 503. */
export const LOCK_WAIT_BOUND_MS = 20_000;

export interface SqliteWriteLockOptions {
  /**
   * Catch a write started inside a direct-SQL transaction at once (it would wait for the lock its own flow
   * holds). It needs AsyncLocalStorage, whose promise hooks cost every request about a fifth of the storefront's
   * throughput on Node 20 (docs/benchmarks.md), so it is on outside production only: the test suite runs every
   * write path with it. In production such a write fails after `waitBoundMs` instead. Default:
   * SQLITE_NESTED_WRITE_CHECK.
   */
  guardNesting?: boolean;
  waitBoundMs?: number;
}

// On globalThis: the server's modules and the Remix bundle each load their own copy of this file.
const globalForLocks = globalThis as unknown as { sqliteWriteLocks?: Map<string, LockState> };

/**
 * The write lock of this process for one database file (both paths name the file the same way). The
 * options apply when the file's lock is first made.
 */
export function sqliteWriteLock(
  file: string,
  { guardNesting = getEnv().SQLITE_NESTED_WRITE_CHECK, waitBoundMs = LOCK_WAIT_BOUND_MS }: SqliteWriteLockOptions = {},
): SqliteWriteLock {
  const locks = (globalForLocks.sqliteWriteLocks ??= new Map());
  const key = path.resolve(file);
  let state = locks.get(key);
  if (!state) {
    state = {
      mutex: withTimeout(new Mutex(), waitBoundMs),
      flow: guardNesting ? new AsyncLocalStorage<Holder>() : null,
    };
    locks.set(key, state);
  }
  const { mutex, flow } = state;
  return {
    acquire: async () => {
      if (flow?.getStore()?.active) {
        throw new Error(
          "A database write was started inside a direct-SQL transaction, which holds the SQLite write lock until " +
            "it ends: use the transaction's runner (tx) for every write in it.",
        );
      }
      try {
        return await mutex.acquire();
      } catch (error) {
        if (error !== E_TIMEOUT) throw error;
        throw new AppError("service-unavailable", {
          detail:
            `This process's database writes stayed queued for ${waitBoundMs / 1000} s; nothing was changed. ` +
            "Retry later.",
          headers: { "Retry-After": "1" },
        });
      }
    },
    holding: async (work) => {
      if (!flow) return work();
      const holder: Holder = { active: true };
      try {
        return await flow.run(holder, work);
      } finally {
        // Promises the work left running keep the store; they no longer hold the lock.
        holder.active = false;
      }
    },
  };
}

/** SQLITE_BUSY and its extended codes, from better-sqlite3 or as Prisma's adapter wraps them. */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  const original = (error as { cause?: { originalCode?: unknown } })?.cause?.originalCode;
  return [code, original].some((value) => typeof value === "string" && value.startsWith("SQLITE_BUSY"));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` again while it fails because the database is busy (another process writes), after an
 * async pause that grows to 50 ms with jitter, for up to BUSY_RETRY_BOUND_MS; then a 503 problem. Each
 * attempt must leave nothing behind when it fails (a transaction rolled back, the lock released).
 */
export async function retryWhileBusy<T>(attempt: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let attempts = 1; ; attempts++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
      if (Date.now() - started > BUSY_RETRY_BOUND_MS) {
        throw new AppError("service-unavailable", {
          detail:
            `The database stayed busy with another process's writes for ${BUSY_RETRY_BOUND_MS / 1000} s; ` +
            "nothing was changed. Retry later.",
          headers: { "Retry-After": "1" },
          cause: error,
        });
      }
    }
    await sleep(Math.min(50, attempts * 2) * (0.5 + Math.random()));
  }
}

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

function serialisedAdapter(inner: Adapter, lock: SqliteWriteLock): Adapter {
  const locked = async <T>(work: () => Promise<T>): Promise<T> =>
    retryWhileBusy(async () => {
      const release = await lock.acquire();
      try {
        return await work();
      } finally {
        release();
      }
    });
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
