/**
 * One writer at a time per process on SQLite (docs/decisions/016-sqlite-writers.md, 017-data-layer.md).
 *
 * SQLite lets one connection write at a time, and a transaction stays open across `await`s. Every write
 * of the process therefore takes one async lock first, so no two of them ever meet at SQLite's lock inside
 * the process; the connection's busy timeout is 0, because better-sqlite3 waits for a busy lock
 * synchronously, stopping the event loop that the holder needs to finish. The lock that another process
 * holds (web and worker share the file) is waited for with async retries (`retryWhileBusy`).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import path from "node:path";
import { E_TIMEOUT, Mutex, type MutexInterface, withTimeout } from "async-mutex";
import { getEnv } from "~/env.server";
import { DomainError } from "~/lib/domain-error";

/** How long a write keeps retrying while another process holds the database's write lock. */
export const BUSY_RETRY_BOUND_MS = 10_000;

/** The longest wait for this process's write lock; past it the write is refused (unavailable). */
export const LOCK_WAIT_BOUND_MS = 20_000;

interface Holder {
  active: boolean;
}

export interface SqliteWriteLock {
  /**
   * Waits, asynchronously, for the process's write lock and gives the function that releases it. Throws
   * at once in a flow that already holds it through a transaction: that wait could never end.
   */
  acquire(): Promise<() => void>;
  /** Runs `work` marked as the holder of the lock (so a nested write fails fast instead of deadlocking). */
  holding<T>(work: () => Promise<T>): Promise<T>;
}

interface LockState {
  mutex: MutexInterface;
  /** Development and tests only: which async flow holds the lock through a transaction. */
  flow: AsyncLocalStorage<Holder> | null;
}

export interface SqliteWriteLockOptions {
  /**
   * Catch a write started inside a transaction through the shared handle rather than the transaction's
   * (it would wait for the lock its own flow holds). It needs AsyncLocalStorage, whose promise hooks cost
   * every request about a fifth of the storefront's throughput on Node 20 (docs/benchmarks.md), so it is on
   * outside production only: the test suite runs every write path with it. In production such a write
   * fails after `waitBoundMs` instead. Default: SQLITE_NESTED_WRITE_CHECK.
   */
  guardNesting?: boolean;
  waitBoundMs?: number;
}

const globalForLocks = globalThis as unknown as { sqliteWriteLocks?: Map<string, LockState> };

/** The write lock of this process for one database file. The options apply when it is first made. */
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
          "A database write was started inside a transaction, which holds the SQLite write lock until it ends: " +
            "use the transaction's handle (tx) for every statement in it.",
        );
      }
      try {
        return await mutex.acquire();
      } catch (error) {
        if (error !== E_TIMEOUT) throw error;
        throw new DomainError(
          "unavailable",
          `This process's database writes stayed queued for ${waitBoundMs / 1000} s; nothing was changed. Retry later.`,
          { retryAfterSeconds: 1 },
        );
      }
    },
    holding: async (work) => {
      if (!flow) return work();
      const holder: Holder = { active: true };
      try {
        return await flow.run(holder, work);
      } finally {
        holder.active = false;
      }
    },
  };
}

/** SQLITE_BUSY and its extended codes, as better-sqlite3 reports them. */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` again while it fails because the database is busy (another process writes), after an
 * async pause that grows to 50 ms with jitter, for up to BUSY_RETRY_BOUND_MS; then `unavailable`. Each
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
        throw new DomainError(
          "unavailable",
          `The database stayed busy with another process's writes for ${BUSY_RETRY_BOUND_MS / 1000} s; ` +
            "nothing was changed. Retry later.",
          { retryAfterSeconds: 1, cause: error },
        );
      }
    }
    await sleep(Math.min(50, attempts * 2) * (0.5 + Math.random()));
  }
}
