import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { migrate } from "../../scripts/lib/databases";
import { cleanUpAtFileEnd, freePort, killChild } from "./processes";
import { until } from "./poll";

/**
 * Private instances of the services, for fault tests that stop and start them: the shared Redis and
 * PostgreSQL serve every other test file running in parallel and are never touched
 * (docs/decisions/004-test-isolation.md).
 */

/**
 * A redis-server of its own on `port`, without persistence (as CI and the dev orchestrator start it), so a
 * restart brings it back empty. Resolves once it accepts connections; rejects if it exits first (the port
 * taken meanwhile, say) or does not accept within the suite's bound.
 */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn("redis-server", ["--port", String(port), "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  child.once(
    "exit",
    cleanUpAtFileEnd(() => killChild(child)),
  );
  const client = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on("error", () => undefined); // refused while the server starts: retried below
  try {
    await until(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) return "exited";
        return client.connect().then(
          () => "up",
          () => "refused",
        );
      },
      (state) => state !== "refused",
      `redis-server on port ${port} accepting connections`,
    ).then((state) => {
      if (state === "exited") throw new Error(`redis-server on port ${port} exited before accepting connections`);
    });
  } finally {
    client.disconnect();
  }
  return child;
}

/** Kills a redis-server started by `startRedis` (SIGKILL: what it held in memory is gone) and waits for it. */
export const killRedis = (child: ChildProcess) => killChild(child);

function postgresBin(name: string): string {
  const root = "/usr/lib/postgresql";
  const version = readdirSync(root)
    .filter((entry) => /^\d+$/.test(entry))
    .sort((a, b) => Number(b) - Number(a))[0];
  if (!version) throw new Error(`no PostgreSQL server binaries under ${root} (apt-get install postgresql)`);
  return path.join(root, version, "bin", name);
}

/** A PostgreSQL server binary's command line as the `postgres` user (the server refuses to run as root). */
function asPostgres(binary: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", binary, ...args]] : [binary, args];
}

const run = promisify(execFile);

export interface PrivatePostgres {
  port: number;
  /** The migrated database of the cluster. */
  url: string;
  /** `pg_ctl stop -m fast`: sessions are ended, the server exits. */
  stop: () => Promise<void>;
  start: () => Promise<void>;
  /** Whether the server accepts connections now. */
  accepts: () => Promise<boolean>;
  /** Stops it for good and removes its files. */
  destroy: () => Promise<void>;
}

/**
 * A PostgreSQL cluster of its own (initdb in a temporary directory, trust auth on loopback, a free port),
 * with one database migrated as `npm run db:migrate` does.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(path.join(tmpdir(), "wishlist-pg-"));
  chmodSync(dir, 0o777); // the server runs as `postgres`: it creates its data directory inside
  const data = path.join(dir, "data");
  const port = await freePort();
  execFileSync(
    ...asPostgres(postgresBin("initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]),
    {
      stdio: "ignore",
    },
  );
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const pgCtl = (args: string[]) => asPostgres(postgresBin("pg_ctl"), ["-D", data, ...args]);
  const start = async () => void (await run(...pgCtl(["-o", options, "-l", path.join(dir, "log"), "-w", "start"])));
  const stop = async () => void (await run(...pgCtl(["-m", "fast", "-w", "stop"])));
  const accepts = async () => {
    const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("SELECT 1");
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const forget = cleanUpAtFileEnd(async () => {
    await run(...pgCtl(["-m", "immediate", "-w", "stop"])).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  await start();
  await until(accepts, Boolean, "the private PostgreSQL accepting connections");
  const admin = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query("CREATE DATABASE wishlist");
  await admin.end();
  const url = `postgresql://postgres@127.0.0.1:${port}/wishlist`;
  migrate(url);
  return {
    port,
    url,
    stop,
    start,
    accepts,
    destroy: async () => {
      forget();
      await stop().catch(() => undefined); // already stopped
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
