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

/**
 * Errors the driver raised (a connection it could not make, a statement on a connection that failed). A
 * socket error carries the same code whoever's socket it was: ECONNRESET from PostgreSQL's connection is
 * the database going away, the same code from the request's body is the client hanging up.
 */
const driverErrors = new WeakSet<object>();

function markDriverError(error: unknown): never {
  if (error instanceof Error) driverErrors.add(error);
  throw error;
}

/**
 * pg-pool's queue-timeout errors raised while every connection of the pool was established and in use:
 * the server answers, the process is busy. The same error while connections are still being made is a
 * server that does not answer (isPostgresUnavailable).
 */
const poolBusyErrors = new WeakSet<object>();
/** pg-pool's error for a connect that waited its whole timeout in the pool's queue. */
const POOL_WAIT_TIMEOUT = "timeout exceeded when trying to connect";
/** Connections of each pool that are established (made and not yet ended). */
const establishedConnections = new WeakMap<pg.Pool, number>();

/** Whether every connection the pool may open is established and checked out. */
export function isPoolSaturated(pool: pg.Pool): boolean {
  return (establishedConnections.get(pool) ?? 0) >= (pool.options.max ?? 10) && pool.idleCount === 0;
}

type Connect = () => Promise<pg.PoolClient>;
type Query = (...args: unknown[]) => unknown;

export function createPostgresPool(connectionString = getEnv().DATABASE_URL): pg.Pool {
  const env = getEnv();
  const pool = new pg.Pool({
    connectionString,
    connectionTimeoutMillis: 5_000,
    max: env.DATABASE_POOL_SIZE,
    types,
  });
  // The promise forms of connect and query (the ones Kysely uses) mark what they reject with; the
  // callback forms (pg-pool's own use) are left as they are.
  const connect = pool.connect.bind(pool) as unknown as Query;
  pool.connect = ((...args: unknown[]) =>
    args.length > 0
      ? connect(...args)
      : (connect() as ReturnType<Connect>).catch((error: unknown) => {
          if (error instanceof Error && error.message === POOL_WAIT_TIMEOUT && isPoolSaturated(pool)) {
            poolBusyErrors.add(error);
          }
          return markDriverError(error);
        })) as Connect;
  establishedConnections.set(pool, 0);
  pool.on("connect", (client) => {
    establishedConnections.set(pool, (establishedConnections.get(pool) ?? 0) + 1);
    client.once("end", () => establishedConnections.set(pool, (establishedConnections.get(pool) ?? 1) - 1));
  });
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as unknown as Query;
    client.query = ((...args: unknown[]) => {
      const result = query(...args);
      return result instanceof Promise ? result.catch(markDriverError) : result;
    }) as typeof client.query;
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

/**
 * Socket errors of a connection that cannot be made. ECONNRESET and EPIPE only count when the driver
 * raised them (driverErrors): from anywhere else the API reads them as the client hanging up on its request
 * body (app/api/body-limit.server.ts). A server stopping mid-handshake resets the socket without a 57P01.
 */
const CONNECTION_ERRORS = new Set([
  "ECONNREFUSED",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
/** The server is shutting down, crashed, still starting, or has no connection to spare. */
const SERVER_UNAVAILABLE = new Set(["57P01", "57P02", "57P03", "53300"]);
/** pg's own errors for a connection that ended or could not be had in time (they carry no code). */
const CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * Whether the pool had no connection to give in time: PostgreSQL answers, but every connection of this
 * process was established and in use (by slow statements, or held waiting for a lock) for the whole
 * connect timeout (poolBusyErrors).
 */
export function isPostgresPoolExhausted(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (poolBusyErrors.has(current)) return true;
    current = current.cause;
  }
  return false;
}

/**
 * Whether PostgreSQL could not be used at all (down, restarting, unreachable, out of connections), as
 * opposed to a statement it refused: the request is answered 503 and may be sent again.
 */
export function isPostgresUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    // Another client's connection failure (the AWS SDK's, whose errors carry `$metadata`) is not the
    // database's: the object store being down must not read "the database cannot be reached".
    if ("$metadata" in current) return false;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") {
      if (CONNECTION_ERRORS.has(code) || SERVER_UNAVAILABLE.has(code) || code.startsWith("08")) return true;
      if ((code === "ECONNRESET" || code === "EPIPE") && driverErrors.has(current)) return true;
    } else if (CONNECTION_MESSAGES.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}
