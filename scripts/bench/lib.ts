import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";

import { freePort } from "../lib/net";

export { freePort };

export const ROOT = path.resolve(import.meta.dirname, "../..");

export interface Measurement {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  peakRssMb: number;
}

/** Starts a TypeScript entry point as a child process and waits until `readyUrl` answers. */
export async function startChild(script: string, args: string[], env: Record<string, string>, readyUrl: string) {
  // BENCH_PROFILE_DIR: a CPU profile of the process (written when it stops), as the worker's below.
  const profile = process.env.BENCH_PROFILE_DIR
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit"],
  });
  for (let attempt = 0; attempt < 300; attempt++) {
    if ((await fetch(readyUrl).catch(() => null))?.ok) return child;
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`${script} did not answer ${readyUrl}`);
}

/** The real worker process (outbox relay, queues), started like `npm start` does; resolves once it is ready. */
export async function startWorker(env: Record<string, string>) {
  const profile = process.env.BENCH_PROFILE_DIR
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", "worker/index.ts"], {
    cwd: ROOT,
    env: { ...process.env, ...env, NODE_ENV: "test", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "inherit"],
  });
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

export async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  if (child.exitCode === null) child.kill("SIGKILL");
}

/** Peak resident set size of a process so far (VmHWM), in MB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
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
  const result = await autocannon({ ...common, duration: options.duration });
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    peakRssMb: peakRssMb(options.pid),
  };
}

export function table(rows: Array<{ subject: Measurement; baseline: Measurement }>): string {
  const lines = [
    "| Endpoint | req/s | p50 ms | p99 ms | peak RSS MB | baseline req/s | baseline p50 | baseline p99 | throughput ratio | p99 ratio |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const { subject, baseline } of rows) {
    lines.push(
      `| ${subject.name} | ${subject.requestsPerSecond} | ${subject.p50} | ${subject.p99} | ${subject.peakRssMb} | ` +
        `${baseline.requestsPerSecond} | ${baseline.p50} | ${baseline.p99} | ` +
        `${(subject.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}x | ` +
        `${(subject.p99 / Math.max(baseline.p99, 1)).toFixed(2)}x |`,
    );
  }
  return lines.join("\n");
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

/** The real web server (production build) on a free port, with the given environment. */
export async function startAppServer(env: Record<string, string>) {
  const port = await freePort();
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
