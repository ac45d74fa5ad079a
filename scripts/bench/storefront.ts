/**
 * `npm run bench -- storefront [--engine sqlite|postgres] [--duration 10]` (issues 4 and 12)
 * Toggle (POST /v1/storefront/wishlist/toggle, public key) and wishlist read (GET /v1/storefront/wishlist)
 * through the real server with its worker, next to two bare node:http references in the same run, each on
 * a database of its own:
 *  - the lean reference (scripts/bench/storefront-lean-reference.ts, issue 27): the same table work on
 *    tables holding only what it needs, no shop lookup; the goals are against it;
 *  - the fuller reference (scripts/bench/storefront-reference.ts, issues 4 and 12): the app's SQL on the
 *    app's schema (shop lookup by domain, list lookup, item toggle, list touch with count, outbox event).
 * Each request picks a random shopper among 1,000 and a random product among 20. Goals: >= 0.5x the lean
 * reference's throughput and p99 within 2x; the web process at most 150 MB RSS idle and 256 MB at its peak
 * under this load, and ready within 1.5 s of its start. On PostgreSQL, the database's view of the app's
 * connections is sampled during the toggle load (pg_stat_activity: what each one waits on).
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import {
  benchDatabase,
  benchSql,
  freePort,
  idleRssAfterWarmUp,
  load,
  memoryLine,
  startAppServer,
  startChild,
  sampleWaits,
  startWorker,
  stopChild,
  table,
  type Measurement,
} from "./lib";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    engine: { type: "string", default: "sqlite" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
  },
  allowPositionals: true,
});
const engine = values.engine === "postgres" ? "postgres" : "sqlite";
const duration = Number(values.duration);
const connections = Number(values.connections);

// Each server gets a freshly migrated database of its own: neither run reads or checkpoints the other's rows.
const database = await benchDatabase(engine, "storefront");
const referenceDatabase = await benchDatabase(engine, "storefront_reference");
const leanDatabase = await benchDatabase(engine, "storefront_lean");
const env = {
  DATABASE_URL: database.url,
  REDIS_PREFIX: `bench:${process.pid}`,
  LOG_LEVEL: "warn",
  RATE_LIMIT_STOREFRONT_PER_MINUTE: "100000000",
  RATE_LIMIT_STOREFRONT_PER_ADDRESS_PER_MINUTE: "100000000",
};
Object.assign(process.env, env);
// The shop through the app's service (the reference inserts the same row into its own database).
const { ensureShop } = await import("~/services/shops/shops.server");
const { closeDatabase } = await import("~/data/database.server");
const shop = await ensureShop({ domain: "bench-shop.myshopify.com" });
await closeDatabase();

const shoppers = Array.from({ length: 1000 }, () => randomUUID());
const pick = <T>(values: T[]) => values[Math.floor(Math.random() * values.length)]!;
const product = () => String(9000 + Math.floor(Math.random() * 20));
const headers = {
  "X-Service-Shop": shop.domain,
  "X-Service-Public-Key": shop.publicKey,
  "content-type": "application/json",
};

const toggleRequests = (path: string) => [
  {
    method: "POST" as const,
    path,
    setupRequest: (request: Record<string, unknown>) => ({
      ...request,
      body: JSON.stringify({ productId: product(), handle: "bench", anonymousId: pick(shoppers) }),
    }),
  },
];
const readRequests = (path: string) => [
  {
    method: "GET" as const,
    setupRequest: (request: Record<string, unknown>) => ({ ...request, path: `${path}?aid=${pick(shoppers)}` }),
  },
];

// One server at a time: two processes writing one SQLite file would measure lock contention instead.
const rows: Array<{ subject: Measurement; baseline: Measurement }> = [];
const subjects: Measurement[] = [];
// Ours runs as deployed: web server plus worker (whose outbox relay folds the events into the analytics).
const dropOnFailure = async (error: unknown): Promise<never> => {
  await Promise.all([database.drop(), referenceDatabase.drop(), leanDatabase.drop()]);
  throw error;
};
const server = await startAppServer(env).catch(dropOnFailure);
const worker = process.env.BENCH_WITHOUT_WORKER
  ? null
  : await startWorker(env).catch(async (error: unknown) => {
      await stopChild(server.child);
      return dropOnFailure(error);
    });
let idleRss = 0;
let waits: string | null = null;
try {
  // Reads of a shopper who saves nothing (the warm-up writes no row the load would find).
  const idleUrl = `${server.base}/v1/storefront/wishlist?aid=00000000-0000-0000-0000-000000000000`;
  idleRss = await idleRssAfterWarmUp(server.child.pid!, [{ url: idleUrl, init: { headers } }]);
  const ours = (name: string, requests: unknown[]) =>
    load(name, server.base, { headers, duration, connections, pid: server.child.pid!, requests: requests as never });
  const sampler = engine === "postgres" ? await sampleWaits(database.url) : null;
  subjects.push(await ours("toggle", toggleRequests("/v1/storefront/wishlist/toggle")));
  waits = (await sampler?.stop()) ?? null;
  subjects.push(await ours("wishlist read", readRequests("/v1/storefront/wishlist")));
} finally {
  await Promise.all([stopChild(server.child), worker && stopChild(worker)]);
}
// Every change wrote its event; the worker relayed them while the load ran (what is left was written last).
const counting = await benchSql(database.url);
const { events, pending } = (
  await counting.all<{ events: number; pending: number }>(
    `SELECT COUNT(*) AS "events", COUNT(*) - COUNT("dispatchedAt") AS "pending" FROM "Event"`,
  )
)[0]!;
await counting.close();
const referencePort = await freePort();
const reference = await startChild(
  "scripts/bench/storefront-reference.ts",
  [referenceDatabase.url, String(referencePort), shop.id, shop.domain, shop.publicKey],
  {},
  `http://127.0.0.1:${referencePort}/healthz`,
).catch(dropOnFailure);
const theirs = (base: string, pid: number) => (name: string, requests: unknown[]) =>
  load(name, base, { headers, duration, connections, pid, requests: requests as never });
try {
  const measure = theirs(`http://127.0.0.1:${referencePort}`, reference.pid!);
  rows.push({ subject: subjects[0]!, baseline: await measure("toggle", toggleRequests("/toggle")) });
  rows.push({ subject: subjects[1]!, baseline: await measure("wishlist read", readRequests("/wishlist")) });
} finally {
  await stopChild(reference);
}
const leanPort = await freePort();
const lean = await startChild(
  "scripts/bench/storefront-lean-reference.ts",
  [leanDatabase.url, String(leanPort)],
  {},
  `http://127.0.0.1:${leanPort}/healthz`,
).catch(dropOnFailure);
const leanRows: typeof rows = [];
try {
  const measure = theirs(`http://127.0.0.1:${leanPort}`, lean.pid!);
  leanRows.push({ subject: subjects[0]!, baseline: await measure("toggle", toggleRequests("/toggle")) });
  leanRows.push({ subject: subjects[1]!, baseline: await measure("wishlist read", readRequests("/wishlist")) });
} finally {
  await stopChild(lean);
  await Promise.all([database.drop(), referenceDatabase.drop(), leanDatabase.drop()]);
}

const driver = engine === "sqlite" ? "better-sqlite3" : "pg";
process.stdout.write(
  `\nStorefront benchmark, ${engine}, autocannon -c ${connections} -d ${duration}s, 1,000 shoppers x 20 products, ` +
    `Node ${process.version}.\n\nAgainst the lean reference (bare node:http + ${driver}, the same table work on ` +
    `tables of its own, no shop lookup; the goals):\n\n${table(leanRows)}\n\n` +
    `Against the fuller reference (bare node:http + ${driver}, the app's SQL on the app's schema, shop lookup ` +
    `included):\n\n${table(rows)}\n\n` +
    `${memoryLine(idleRss, Math.max(...subjects.map((subject) => subject.peakRssMb)))}\n` +
    `Cold start: the web process answered /healthz ${server.child.readyMs} ms after it was started ` +
    `(goal <= 1,500: ${server.child.readyMs <= 1_500 ? "met" : "**missed**"}).\n` +
    (waits ? `${waits}\n` : "") +
    `Outbox: ${Number(events)} events written, ${Number(events) - Number(pending)} relayed by the worker during ` +
    `the run, ${Number(pending)} pending when it stopped.\n`,
);
const failures = [...rows, ...leanRows].filter((row) => row.subject.non2xx > 0 || row.baseline.non2xx > 0);
if (failures.length) {
  process.stderr.write(
    `non-2xx answers: ${failures.map((row) => `${row.subject.name}: ${row.subject.non2xx}/${row.baseline.non2xx}`).join(", ")}\n`,
  );
  process.exit(1);
}
process.exit(0);
