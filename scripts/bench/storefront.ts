/**
 * `npm run bench -- storefront [--engine sqlite|postgres] [--duration 10]` (issue 4)
 * Toggle (POST /v1/storefront/wishlist/toggle, public key) and wishlist read (GET /v1/storefront/wishlist)
 * through the real server, next to the bare node:http reference doing the same toggle and read in one
 * transaction on the same database (scripts/bench/storefront-reference.ts), in the same run. Each request
 * picks a random shopper among 1,000 and a random product among 20. Goal: >= 0.5x the reference's
 * throughput and p99 within 2x.
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import {
  benchDatabase,
  freePort,
  load,
  startAppServer,
  startChild,
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
const env = {
  DATABASE_URL: database.url,
  REDIS_PREFIX: `bench:${process.pid}`,
  LOG_LEVEL: "warn",
  RATE_LIMIT_STOREFRONT_PER_MINUTE: "100000000",
  RATE_LIMIT_STOREFRONT_PER_ADDRESS_PER_MINUTE: "100000000",
};
Object.assign(process.env, env);
const { prisma } = await import("../../app/db.server");
const { ensureShop } = await import("../../app/services/shops/shops.server");
const shop = await ensureShop({ domain: "bench-shop.myshopify.com" });
await prisma.$disconnect();

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
const server = await startAppServer(env);
const worker = process.env.BENCH_WITHOUT_WORKER ? null : await startWorker(env);
try {
  const ours = (name: string, requests: unknown[]) =>
    load(name, server.base, { headers, duration, connections, pid: server.child.pid!, requests: requests as never });
  subjects.push(await ours("toggle", toggleRequests("/v1/storefront/wishlist/toggle")));
  subjects.push(await ours("wishlist read", readRequests("/v1/storefront/wishlist")));
} finally {
  await Promise.all([stopChild(server.child), worker && stopChild(worker)]);
}
// Every change wrote its event; the worker relayed them while the load ran (what is left was written last).
const events = await prisma.event.count();
const pending = await prisma.event.count({ where: { dispatchedAt: null } });
await prisma.$disconnect();
const referencePort = await freePort();
const reference = await startChild(
  "scripts/bench/storefront-reference.ts",
  [referenceDatabase.url, String(referencePort), shop.id],
  {},
  `http://127.0.0.1:${referencePort}/healthz`,
);
try {
  const theirs = (name: string, requests: unknown[]) =>
    load(name, `http://127.0.0.1:${referencePort}`, {
      headers,
      duration,
      connections,
      pid: reference.pid!,
      requests: requests as never,
    });
  rows.push({ subject: subjects[0]!, baseline: await theirs("toggle", toggleRequests("/toggle")) });
  rows.push({ subject: subjects[1]!, baseline: await theirs("wishlist read", readRequests("/wishlist")) });
} finally {
  await stopChild(reference);
  await Promise.all([database.drop(), referenceDatabase.drop()]);
}

process.stdout.write(
  `\nStorefront benchmark, ${engine}, autocannon -c ${connections} -d ${duration}s, 1,000 shoppers x 20 products, ` +
    `Node ${process.version}. Baseline: bare node:http + ${engine === "sqlite" ? "better-sqlite3" : "pg"}, same ` +
    `transaction, same database.\n\n${table(rows)}\n\nOutbox: ${events} events written, ${events - pending} relayed ` +
    `by the worker during the run, ${pending} pending when it stopped.\n`,
);
const failures = rows.filter((row) => row.subject.non2xx > 0 || row.baseline.non2xx > 0);
if (failures.length) {
  process.stderr.write(
    `non-2xx answers: ${failures.map((row) => `${row.subject.name}: ${row.subject.non2xx}/${row.baseline.non2xx}`).join(", ")}\n`,
  );
  process.exit(1);
}
process.exit(0);
