import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import type pg from "pg";

import { freePort } from "../lib/net";
import { nodeArguments } from "../lib/processes";
import { numbered } from "./bare-server";

export { freePort };

export const ROOT = path.resolve(import.meta.dirname, "../..");

export interface Measurement {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  peakRssMb: number;
  /** The machine's CPU time stolen by the hypervisor during the measured phase, in % of all CPU time. */
  stolenPercent: number;
}

/** The machine's CPU counters (/proc/stat, all cores): stolen and total jiffies. */
function cpuTimes(): { stolen: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal guest guest_nice: guest time is counted in user already.
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return { stolen: fields[7] ?? 0, total };
}

/**
 * Measures the CPU stolen from this machine while `work` runs (a noisy neighbour on a shared host): printed
 * next to each phase, so that a run measured on a busy host is recognisable.
 */
export async function withStolenCpu<T>(work: () => Promise<T>): Promise<{ result: T; stolenPercent: number }> {
  const before = cpuTimes();
  const result = await work();
  const after = cpuTimes();
  const total = after.total - before.total;
  return { result, stolenPercent: total > 0 ? (100 * (after.stolen - before.stolen)) / total : 0 };
}

/**
 * Starts a TypeScript entry point as a child process and waits until `readyUrl` answers; `readyMs` is the
 * time from spawning it to its first answer (polled every 10 ms).
 */
export async function startChild(script: string, args: string[], env: Record<string, string>, readyUrl: string) {
  // BENCH_PROFILE_DIR: a CPU profile of the process (written when it stops), as the worker's below.
  const profile = process.env.BENCH_PROFILE_DIR
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  const started = performance.now();
  const child = spawn(process.execPath, [...profile, ...nodeArguments(script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit"],
  });
  while (performance.now() - started < 30_000) {
    if ((await fetch(readyUrl).catch(() => null))?.ok) {
      return Object.assign(child, { readyMs: Math.round(performance.now() - started) });
    }
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  child.kill("SIGKILL");
  throw new Error(`${script} did not answer ${readyUrl}`);
}

/**
 * The real worker process (outbox relay, queues), started like `npm run worker` does (its memory flags too,
 * unless `workerFlags` replaces them); resolves once it is ready.
 */
export async function startWorker(env: Record<string, string>, { workerFlags }: { workerFlags?: string[] } = {}) {
  const profile = process.env.BENCH_PROFILE_DIR
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  const child = spawn(
    process.execPath,
    [...profile, ...nodeArguments("worker/index.ts", workerFlags ? { workerFlags } : {})],
    {
      cwd: ROOT,
      env: { ...process.env, ...env, NODE_ENV: "test", LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("worker ready")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`worker exited with ${code}`)));
  });
  child.stdout!.resume();
  return child;
}

/** SIGTERM, then SIGKILL after `graceMs` (a CPU profile is written only by a process that exits by itself). */
export async function stopChild(child: ChildProcess, graceMs = 5_000) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, graceMs))]);
  if (child.exitCode === null) child.kill("SIGKILL");
}

/** Peak resident set size of a process so far (VmHWM), in MB. */
export function peakRssMb(pid: number): number {
  return statusMb(pid, "VmHWM");
}

/** Resident set size of a process now (VmRSS), in MB. */
export function currentRssMb(pid: number): number {
  return statusMb(pid, "VmRSS");
}

function statusMb(pid: number, field: "VmHWM" | "VmRSS"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/**
 * The web process's RSS once started and warmed up, before any load: a few sequential requests of each
 * kind the benchmark sends (JIT, module caches, connection pools), then VmRSS.
 */
export async function idleRssAfterWarmUp(
  pid: number,
  requests: Array<{ url: string; init?: RequestInit }>,
): Promise<number> {
  for (let round = 0; round < 20; round++) {
    for (const { url, init } of requests) await (await fetch(url, init)).arrayBuffer();
  }
  return currentRssMb(pid);
}

export async function load(
  name: string,
  url: string,
  options: {
    headers?: Record<string, string>;
    duration: number;
    connections: number;
    pid: number;
    /** Varies each request (method, path, body), e.g. a random shopper and product. */
    requests?: autocannon.Request[];
  },
): Promise<Measurement> {
  const common = { url, headers: options.headers, connections: options.connections, requests: options.requests };
  // Warm-up (JIT, connection pools, SQLite page cache), not measured.
  await autocannon({ ...common, duration: 2 });
  const { result, stolenPercent } = await withStolenCpu(() => autocannon({ ...common, duration: options.duration }));
  return {
    stolenPercent,
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
    peakRssMb: peakRssMb(options.pid),
  };
}

/** The value at percentile `p` (0-100) of ascending `sorted` values (nearest rank below). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The goals of issue 12 for a figure next to its reference, and for the web process's memory. */
export const GOALS = { throughputRatio: 0.5, p99Ratio: 2, idleRssMb: 150, peakRssMb: 256, deliveriesPerSecond: 3000 };

const met = (ok: boolean) => (ok ? "met" : "**missed**");

/**
 * One row per operation: the app next to its bare reference measured in the same run, the ratios, the web
 * process's peak RSS so far, and whether the throughput and p99 goals are met.
 */
export function table(rows: Array<{ subject: Measurement; baseline: Measurement; informative?: boolean }>): string {
  const lines = [
    "| Operation | app req/s | reference req/s | ratio | app p50/p99 ms | reference p50/p99 ms | p99 ratio | app peak RSS MB | CPU stolen (app/ref) | goal (>= 0.5x, p99 <= 2x) |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const { subject, baseline, informative } of rows) {
    const ratio = subject.requestsPerSecond / Math.max(baseline.requestsPerSecond, 1);
    const p99Ratio = subject.p99 / Math.max(baseline.p99, 1);
    lines.push(
      `| ${subject.name} | ${subject.requestsPerSecond} | ${baseline.requestsPerSecond} | ${ratio.toFixed(2)}x | ` +
        `${subject.p50}/${subject.p99} | ${baseline.p50}/${baseline.p99} | ${p99Ratio.toFixed(2)}x | ` +
        `${subject.peakRssMb} | ${subject.stolenPercent.toFixed(1)}%/${baseline.stolenPercent.toFixed(1)}% | ${
          informative
            ? "no goal (HTTP stack alone)"
            : `throughput ${met(ratio >= GOALS.throughputRatio)}, p99 ${met(p99Ratio <= GOALS.p99Ratio)}`
        } |`,
    );
  }
  return lines.join("\n");
}

/** The web process's memory against its goals: idle (after start and warm-up) and peak under the load. */
export function memoryLine(idleMb: number, peakMb: number): string {
  return (
    `Web process RSS: idle ${idleMb} MB (goal <= ${GOALS.idleRssMb}: ${met(idleMb <= GOALS.idleRssMb)}), ` +
    `peak ${peakMb} MB (goal <= ${GOALS.peakRssMb}: ${met(peakMb <= GOALS.peakRssMb)}).`
  );
}

/** A migrated scratch database for one benchmark run; `drop` removes it. */
export async function benchDatabase(engine: "sqlite" | "postgres", name: string) {
  const { migrate, postgresUrlFor, withAdminClient } = await import("../lib/databases");
  const { mkdirSync, rmSync } = await import("node:fs");
  const workDir = path.join(ROOT, ".data/bench");
  mkdirSync(workDir, { recursive: true });
  if (engine === "sqlite") {
    const file = path.join(workDir, `${name}.db`);
    const remove = () => {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
    };
    remove();
    const url = `file:${file}`;
    migrate(url);
    return { url, workDir, drop: async () => remove() };
  }
  const database = `wishlist_bench_${name}_${process.pid}`;
  await withAdminClient((client) => client.query(`CREATE DATABASE ${database}`));
  const url = postgresUrlFor(database);
  migrate(url);
  return {
    url,
    workDir,
    drop: () =>
      withAdminClient(async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`))),
  };
}

/**
 * The real web server (production build) on `port` (a free one by default), with the given environment.
 * Several processes behind one public URL share SHOPIFY_APP_URL, so a caller may pick the port first.
 */
export async function startAppServer(env: Record<string, string>, port?: number) {
  port ??= await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = await startChild(
    "server/index.ts",
    [],
    // As production runs it: without the development-only nested-write check (decision 016).
    { SQLITE_NESTED_WRITE_CHECK: "false", ...env, NODE_ENV: "test", PORT: String(port), HOST: "127.0.0.1" },
    `${base}/healthz`,
  );
  return { child, base };
}

export type BenchValue = string | number | boolean | null | Date;

/**
 * Plain SQL on the bare driver (better-sqlite3 or pg) for a benchmark's own seeding and counting, never
 * through the app's data layer: `?` placeholders on both engines, timestamps stored as the app stores them
 * (SQLite: ISO-8601 UTC text with milliseconds; PostgreSQL: timestamp(3)), booleans as 0/1 on SQLite.
 */
export interface BenchSql {
  readonly engine: "sqlite" | "postgres";
  all<T>(text: string, params?: BenchValue[]): Promise<T[]>;
  run(text: string, params?: BenchValue[]): Promise<void>;
  /** Runs `work` in one transaction on one connection. */
  transaction(work: (sql: BenchSql) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export async function benchSql(url: string): Promise<BenchSql> {
  if (url.startsWith("file:")) {
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(url.slice("file:".length));
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 10000");
    db.pragma("foreign_keys = ON");
    const param = (value: BenchValue) =>
      value instanceof Date
        ? value.toISOString().replace("Z", "+00:00")
        : typeof value === "boolean"
          ? Number(value)
          : value;
    const sqlite: BenchSql = {
      engine: "sqlite",
      all: async <T>(text: string, params: BenchValue[] = []) => db.prepare(text).all(...params.map(param)) as T[],
      run: async (text, params = []) => void db.prepare(text).run(...params.map(param)),
      transaction: async (work) => {
        db.exec("BEGIN IMMEDIATE");
        try {
          await work(sqlite);
          db.exec("COMMIT");
        } catch (error) {
          db.exec("ROLLBACK");
          throw error;
        }
      },
      close: async () => void db.close(),
    };
    return sqlite;
  }
  const { default: pg } = await import("pg");
  const { pgTypes } = await import("./pg-types");
  const pool = new pg.Pool({ connectionString: url, max: 2, types: pgTypes });
  const on = (client: pg.Pool | pg.PoolClient): BenchSql => ({
    engine: "postgres",
    all: async <T>(text: string, params: BenchValue[] = []) => (await client.query(numbered(text), params)).rows as T[],
    run: async (text, params = []) => void (await client.query(numbered(text), params)),
    transaction: async (work) => {
      const connection = await pool.connect();
      try {
        await connection.query("BEGIN");
        await work(on(connection));
        await connection.query("COMMIT");
      } catch (error) {
        await connection.query("ROLLBACK");
        throw error;
      } finally {
        connection.release();
      }
    },
    close: () => pool.end(),
  });
  return on(pool);
}

/**
 * Seeds `lists` customer lists of `itemsPerList` items each for a shop, in one transaction, as the app
 * writes them (TypeIDs, timestamps set explicitly).
 */
export async function seedLists(sql: BenchSql, shopId: string, lists: number, itemsPerList: number) {
  const { typeidUnboxed } = await import("typeid-js");
  const listIds: string[] = [];
  await sql.transaction(async (tx) => {
    for (let index = 0; index < lists; index++) {
      const listId = typeidUnboxed("lst");
      const at = new Date();
      listIds.push(listId);
      await tx.run(
        `INSERT INTO "List" ("id", "shopId", "customerId", "name", "isDefault", "shareEnabled", "createdAt", "updatedAt") ` +
          `VALUES (?, ?, ?, 'Wishlist', ?, ?, ?, ?)`,
        [listId, shopId, String(1000 + index), true, false, at, at],
      );
      for (let item = 0; item < itemsPerList; item++) {
        await tx.run(
          `INSERT INTO "Item" ("id", "listId", "ownerKey", "shopId", "productId", "variantId", "handle", "titleSnapshot", "addedAt") ` +
            `VALUES (?, ?, ?, ?, ?, '', ?, ?, ?)`,
          [
            typeidUnboxed("itm"),
            listId,
            `c:${1000 + index}`,
            shopId,
            String(9000 + item),
            `product-${item}`,
            `Product ${item}`,
            at,
          ],
        );
      }
    }
  });
  return listIds;
}

/**
 * One change-to-delivery sample: a storefront toggle through the web server's API (public key), timed
 * until `arrivals` (event id -> arrival time, filled by the benchmark's receiver) has its event. Fails
 * when the event has not arrived within two minutes.
 */
export async function toggleUntilDelivered(
  base: string,
  shop: { id: string; domain: string; publicKey: string },
  sql: BenchSql,
  arrivals: Map<string, number>,
  { anonymousId, productId }: { anonymousId: string; productId: string },
): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${base}/v1/storefront/wishlist/toggle`, {
    method: "POST",
    headers: {
      "X-Service-Shop": shop.domain,
      "X-Service-Public-Key": shop.publicKey,
      "content-type": "application/json",
    },
    body: JSON.stringify({ productId, handle: "bench", anonymousId }),
  });
  if (!response.ok) throw new Error(`toggle answered ${response.status}`);
  await response.arrayBuffer();
  const [event] = await sql.all<{ id: string }>(
    `SELECT "id" FROM "Event" WHERE "shopId" = ? ORDER BY "id" DESC LIMIT 1`,
    [shop.id],
  );
  const bound = performance.now() + 120_000;
  while (!arrivals.has(event!.id)) {
    if (performance.now() > bound) throw new Error(`event ${event!.id} not delivered within 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return arrivals.get(event!.id)! - started;
}

/**
 * Samples PostgreSQL's view of a database's connections every 50 ms until `stop`: how many were running,
 * idle in a transaction (waiting for the app to send its next statement), idle, or waiting on a lock, I/O
 * or the WAL (pg_stat_activity's state and wait event). Returns one line per kind, largest first.
 */
export async function sampleWaits(databaseUrl: string) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const name = new URL(databaseUrl).pathname.slice(1);
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query<{ kind: string; n: string }>(
        `SELECT COALESCE(state, '?') || COALESCE(' / ' || wait_event_type || ':' || wait_event, '') AS kind, COUNT(*) AS n
           FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'
          GROUP BY 1`,
        [name],
      );
      samples++;
      for (const { kind, n } of rows) counts.set(kind, (counts.get(kind) ?? 0) + Number(n));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    async stop(): Promise<string> {
      running = false;
      await loop;
      await client.end();
      const kinds = [...counts].sort(([, left], [, right]) => right - left);
      return (
        `PostgreSQL, the app's connections during the toggle load (${samples} samples of pg_stat_activity, ` +
        `mean connections per state / wait event): ` +
        kinds.map(([kind, n]) => `${kind} ${(n / samples).toFixed(2)}`).join("; ")
      );
    },
  };
}
