/**
 * `npm run bench -- fairness [--engine sqlite|postgres] [--samples 100] [--noisy-events 300]` (issue 16, item 4)
 *
 * A quiet shop's change-to-delivery latency (a toggle through the real web server's API, until its
 * receiver has the event) while a noisy shop saturates its endpoints: 20 endpoints, half answering after
 * 5 s, half failing at once (retried), a backlog of events written up front and more written every second
 * of the run. The real worker, with the production defaults for concurrency and timeout.
 * Three phases in one run, on one database, in this order:
 *  1. baseline: the quiet shop alone;
 *  2. fair: the noisy shop saturating, the defaults (priorities by owed count, WEBHOOK_SHOP_CONCURRENCY 10);
 *  3. no share per shop: the same, with WEBHOOK_SHOP_CONCURRENCY = WEBHOOK_CONCURRENCY (priorities only),
 *     to show what the per-shop share buys.
 * Goal: the quiet shop's p99 under 1 s in phase 2 (docs/decisions/026-fairness-between-shops.md).
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { typeidUnboxed } from "typeid-js";
import {
  benchDatabase,
  benchSql,
  peakRssMb,
  startAppServer,
  startWorker,
  stopChild,
  toggleUntilDelivered,
  type BenchSql,
} from "./lib";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    engine: { type: "string", default: "sqlite" },
    samples: { type: "string", default: "100" },
    "noisy-events": { type: "string", default: "300" },
  },
  allowPositionals: true,
});
const engine = values.engine === "postgres" ? "postgres" : "sqlite";
const samples = Number(values.samples);
const noisyBacklog = Number(values["noisy-events"]);
const SLOW_MS = 5_000;
const GOAL_P99_MS = 1_000;

// One receiver for every endpoint: /quiet answers at once and notes arrivals; /slow/<n> after SLOW_MS;
// /fail/<n> answers 500 at once. Noisy requests are counted, with the most in flight at once.
const arrivals = new Map<string, number>();
let noisyRequests = 0;
let noisyInFlight = 0;
let noisyInFlightMax = 0;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    if (req.url === "/quiet") {
      const id = /"id":"(evt_[A-Za-z0-9]+)"/.exec(Buffer.concat(chunks).toString("utf8"))?.[1];
      if (id) arrivals.set(id, performance.now());
      res.writeHead(204).end();
      return;
    }
    noisyRequests++;
    if (req.url?.startsWith("/fail/")) {
      res.writeHead(500).end("failing on purpose");
      return;
    }
    noisyInFlight++;
    noisyInFlightMax = Math.max(noisyInFlightMax, noisyInFlight);
    const timer = setTimeout(() => {
      noisyInFlight--;
      res.writeHead(204).end();
    }, SLOW_MS);
    res.once("close", () => {
      if (!res.writableEnded) {
        clearTimeout(timer);
        noisyInFlight--;
      }
    });
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const database = await benchDatabase(engine, "fairness");
const env = {
  DATABASE_URL: database.url,
  REDIS_PREFIX: `bench:${process.pid}`,
  LOG_LEVEL: "warn",
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
  // Failed attempts are retried after 1, 4.4, 19 ... seconds, so the failing endpoints keep adding work.
  WEBHOOK_RETRY_UNIT_MS: "1000",
  RATE_LIMIT_STOREFRONT_PER_MINUTE: "100000000",
  RATE_LIMIT_STOREFRONT_PER_ADDRESS_PER_MINUTE: "100000000",
};
Object.assign(process.env, env);
const { ensureShop } = await import("~/services/shops/shops.server");
const { createEndpoint } = await import("~/services/webhooks/endpoints.server");
const { closeDatabase } = await import("~/data/database.server");
const events = ["item.added", "item.removed"] as const;
const quiet = await ensureShop({ domain: "quiet-shop.myshopify.com" });
const noisy = await ensureShop({ domain: "noisy-shop.myshopify.com" });
await createEndpoint({ shopId: quiet.id, url: `${receiverBase}/quiet`, events: [...events] });
for (let n = 0; n < 10; n++) {
  await createEndpoint({ shopId: noisy.id, url: `${receiverBase}/slow/${n}`, events: [...events] });
  await createEndpoint({ shopId: noisy.id, url: `${receiverBase}/fail/${n}`, events: [...events] });
}
await closeDatabase();
const sql = await benchSql(database.url);

const eventData = JSON.stringify({
  listId: "lst_bench",
  customerId: null,
  anonymousId: randomUUID(),
  item: { id: "itm_bench", productId: "1", variantId: null, handle: "one", titleSnapshot: "", addedAt: new Date() },
  count: 1,
});
async function writeNoisyEvents(db: BenchSql, count: number) {
  await db.transaction(async (tx) => {
    for (let n = 0; n < count; n++) {
      await tx.run(`INSERT INTO "Event" ("id", "shopId", "type", "data", "createdAt") VALUES (?, ?, ?, ?, ?)`, [
        typeidUnboxed("evt"),
        noisy.id,
        "item.added",
        eventData,
        new Date(),
      ]);
    }
  });
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Phase {
  name: string;
  latencies: number[];
  noisyRequests: number;
  noisyInFlightMax: number;
  workerPeakRssMb: number;
}

/** One phase: a web server and a worker with `workerEnv`; `noisyPerSecond` noisy events a second meanwhile. */
async function phase(name: string, workerEnv: Record<string, string>, noisyPerSecond: number): Promise<Phase> {
  const server = await startAppServer(env);
  const worker = await startWorker({ ...env, ...workerEnv });
  noisyRequests = 0;
  noisyInFlightMax = 0;
  let writing = noisyPerSecond > 0;
  const writer = (async () => {
    if (!writing) return;
    await writeNoisyEvents(sql, noisyBacklog);
    while (writing) {
      await writeNoisyEvents(sql, noisyPerSecond);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  })();
  const latencies: number[] = [];
  try {
    // Saturated before the first sample: the slow endpoints hold the noisy shop's slots (as many as its
    // share allows, 10 by default).
    const saturatedBy = performance.now() + 120_000;
    const share = workerEnv.WEBHOOK_SHOP_CONCURRENCY ?? process.env.WEBHOOK_SHOP_CONCURRENCY ?? "10";
    const saturated = Math.min(10, Number(share));
    while (noisyPerSecond > 0 && noisyInFlight < saturated) {
      if (performance.now() > saturatedBy) {
        throw new Error(`${name}: the noisy shop never had ${saturated} slow attempts in flight`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const anonymousId = randomUUID();
    for (let sample = 0; sample < samples; sample++) {
      latencies.push(
        await toggleUntilDelivered(server.base, quiet, sql, arrivals, { anonymousId, productId: String(sample % 10) }),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    writing = false;
    await writer;
  }
  const workerPeakRssMb = peakRssMb(worker.pid!);
  await Promise.all([stopChild(server.child), stopChild(worker)]);
  // The next phase starts from an empty queue and outbox: the noisy shop's leftovers are dropped.
  await sql.run(`UPDATE "Event" SET "dispatchedAt" = ? WHERE "dispatchedAt" IS NULL`, [new Date()]);
  await sql.run(`DELETE FROM "WebhookDeliveryDue"`);
  const { Redis } = await import("ioredis");
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const keys = await redis.keys(`${env.REDIS_PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  latencies.sort((a, b) => a - b);
  process.stdout.write(
    `${name}: quiet p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms\n`,
  );
  return { name, latencies, noisyRequests, noisyInFlightMax, workerPeakRssMb };
}

let phases: Phase[];
try {
  phases = [
    await phase("baseline: quiet shop alone", {}, 0),
    await phase("fair (defaults)", {}, 50),
    await phase("no share per shop (WEBHOOK_SHOP_CONCURRENCY=50)", { WEBHOOK_SHOP_CONCURRENCY: "50" }, 50),
  ];
} finally {
  await sql.close();
  receiver.close();
  await database.drop();
}

const baseline = phases[0]!;
const p99 = (phase: Phase) => percentile(phase.latencies, 99);
const fair = phases[1]!;
const met = p99(fair) < GOAL_P99_MS;
process.stdout.write(
  `\nFairness benchmark, ${engine}, Node ${process.version}: a quiet shop's change-to-delivery, ${samples} toggles ` +
    `per phase; the noisy shop: 20 endpoints (10 answer after ${SLOW_MS / 1000} s, 10 fail), ` +
    `${noisyBacklog} events up front and 50 a second.\n\n` +
    `| Phase | quiet p50 ms | quiet p99 ms (x baseline) | quiet max ms | noisy requests in the phase | noisy slow in flight, max | worker peak RSS MB |\n` +
    `|---|---|---|---|---|---|---|\n` +
    phases
      .map(
        (phase) =>
          `| ${phase.name} | ${percentile(phase.latencies, 50).toFixed(1)} | ${p99(phase).toFixed(1)} ` +
          `(${(p99(phase) / p99(baseline)).toFixed(1)}x) | ${phase.latencies.at(-1)!.toFixed(1)} | ` +
          `${phase.noisyRequests} | ${phase.noisyInFlightMax} | ${phase.workerPeakRssMb} |`,
      )
      .join("\n") +
    `\n\nGoal: quiet p99 under ${GOAL_P99_MS} ms while the noisy shop saturates (fair phase): ` +
    `${met ? "met" : "**missed**"}.\n`,
);
process.exit(met ? 0 : 1);
