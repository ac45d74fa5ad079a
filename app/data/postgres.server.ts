/**
 * The PostgreSQL pool of a process (DATABASE_POOL_SIZE connections) and how values cross it: `timestamp(3)`
 * columns (no time zone, UTC by convention) read as Dates in UTC, dates sent as UTC, and 64-bit counts
 * (`count(*)`) read as numbers (docs/decisions/017-data-layer.md).
 */
import pg from "pg";
import { getEnv } from "~/env.server";
import { logger } from "~/logger.server";

const TIMESTAMP = 1114;
const INT8 = 20;

// Dates sent as parameters are written in UTC, whatever the process's time zone.
pg.defaults.parseInputDatesAsUTC = true;

const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === TIMESTAMP) return (value: string) => new Date(`${value.replace(" ", "T")}Z`);
    if (oid === INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

export function createPostgresPool(): pg.Pool {
  const env = getEnv();
  const pool = new pg.Pool({
    connectionString: env.DATABASE_URL,
    connectionTimeoutMillis: 5_000,
    max: env.DATABASE_POOL_SIZE,
    types,
  });
  // A connection the server ends (a restart, a terminated backend) emits an error on its client, whether it
  // is idle in the pool or checked out (held by a transaction, or between two statements): without a
  // listener that error would end the process. The client is then unusable: a statement on it fails (the
  // request answers 503, see isDatabaseUnavailable) and the pool drops it when it is released.
  pool.on("connect", (client) => {
    client.on("error", (error) => logger.warn({ err: error }, "PostgreSQL connection lost"));
  });
  // The pool re-emits an idle client's error; the client's own listener above has logged it.
  pool.on("error", () => undefined);
  return pool;
}

/**
 * Ends the pool and waits until every connection has closed: `pool.end()` resolves as soon as the
 * clients are told to end, before their sockets close.
 */
export async function endPool(pool: pg.Pool): Promise<void> {
  const open = pool.totalCount;
  let closed = 0;
  const allClosed = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on("remove", () => {
      if (++closed >= open) resolve();
    });
  });
  await pool.end();
  await Promise.race([allClosed, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
}

/** Unique violations, deadlocks and serialisation failures: the transaction may be run again. */
const RETRYABLE = new Set(["23505", "40P01", "40001"]);

export function isRetryablePostgresError(error: unknown): boolean {
  return RETRYABLE.has((error as { code?: string })?.code ?? "");
}
