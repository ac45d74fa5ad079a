/**
 * `npm run bench -- webhooks [--engine sqlite|postgres] [--events 10000] [--samples 200]` (issue 5)
 *
 * 1. Throughput: the real worker (relay, BullMQ, signed deliveries, delivery log) drains N events from the
 *    outbox to a loopback receiver answering 204; deliveries/s from the first event written to the last
 *    delivery received. Baseline, same run, same receiver: a bare loop of undici POSTs of the same envelopes
 *    (the events' own, built as the worker builds them) with the same HMAC signing, at WEBHOOK_CONCURRENCY
 *    (the worker's limit over all shops; the single benchmark shop gets WEBHOOK_SHOP_CONCURRENCY of it).
 * 2. Change-to-delivery latency on an idle machine: toggles through the real web server's API, one at a
 *    time, each timed until the receiver has its event.
 * Goal: >= 3,000 deliveries/s (issue 27; 1,000 in issues 5 and 12) and >= 0.5x the bare loop on both engines; change-to-delivery
 * p50 under 50 ms. The events are written with plain SQL on the driver; the shop and endpoint through the
 * app's services.
 */
import { createHmac, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { typeidUnboxed } from "typeid-js";
import { Agent, request } from "undici";
import type { StoredEvent } from "~/services/events/relay.server";
import {
  benchDatabase,
  benchSql,
  currentRssMb,
  GOALS,
  memoryLine,
  peakRssMb,
  percentile,
  startAppServer,
  startWorker,
  stopChild,
  toggleUntilDelivered,
} from "./lib";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    engine: { type: "string", default: "sqlite" },
    events: { type: "string", default: "10000" },
    samples: { type: "string", default: "200" },
  },
  allowPositionals: true,
});
const engine = values.engine === "postgres" ? "postgres" : "sqlite";
const total = Number(values.events);
const samples = Number(values.samples);
const concurrency = 50;

// The receiver: counts deliveries and notes when each event id arrived.
const arrivals = new Map<string, number>();
let received = 0;
let onReceive: (() => void) | undefined;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    received++;
    const id = /"id":"(evt_[A-Za-z0-9]+)"/.exec(Buffer.concat(chunks).toString("utf8"))?.[1];
    if (id) arrivals.set(id, performance.now());
    res.writeHead(204).end();
    onReceive?.();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
const until = (count: number) =>
  new Promise<void>((resolve) => {
    if (received >= count) return resolve();
    onReceive = () => {
      if (received >= count) {
        onReceive = undefined;
        resolve();
      }
    };
  });

const database = await benchDatabase(engine, "webhooks");
const env = {
  DATABASE_URL: database.url,
  REDIS_PREFIX: `bench:${process.pid}`,
  LOG_LEVEL: "warn",
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
  WEBHOOK_CONCURRENCY: String(concurrency),
  RATE_LIMIT_STOREFRONT_PER_MINUTE: "100000000",
  RATE_LIMIT_STOREFRONT_PER_ADDRESS_PER_MINUTE: "100000000",
};
Object.assign(process.env, env);
// The shop and the endpoint through the app's services; the events in bulk with plain SQL on the driver.
const { ensureShop } = await import("~/services/shops/shops.server");
const { createEndpoint } = await import("~/services/webhooks/endpoints.server");
const { closeDatabase } = await import("~/data/database.server");
const { envelope } = await import("~/services/webhooks/fanout.server");
const { USER_AGENT } = await import("~/services/webhooks/delivery.server");
const shop = await ensureShop({ domain: "bench-shop.myshopify.com" });
const { secret } = await createEndpoint({ shopId: shop.id, url: receiverUrl, events: ["item.added", "item.removed"] });
await closeDatabase();
const sql = await benchSql(database.url);

// 1. Throughput through the worker.
const events: StoredEvent[] = [];
const worker = await startWorker(env);
let ours: { perSecond: number; seconds: number; rss: number };
try {
  const data = JSON.stringify({
    listId: "lst_bench",
    customerId: null,
    anonymousId: randomUUID(),
    item: { id: "itm_bench", productId: "1", variantId: null, handle: "one", titleSnapshot: "", addedAt: new Date() },
    count: 1,
  });
  const started = performance.now();
  for (let written = 0; written < total; written += 1_000) {
    await sql.transaction(async (tx) => {
      for (let index = written; index < Math.min(total, written + 1_000); index++) {
        const event = {
          id: typeidUnboxed("evt"),
          shopId: shop.id,
          type: "item.added" as const,
          data,
          createdAt: new Date(),
        };
        events.push(event);
        await tx.run(`INSERT INTO "Event" ("id", "shopId", "type", "data", "createdAt") VALUES (?, ?, ?, ?, ?)`, [
          event.id,
          event.shopId,
          event.type,
          event.data,
          event.createdAt,
        ]);
      }
    });
  }
  await until(total);
  const seconds = (performance.now() - started) / 1000;
  ours = { perSecond: Math.round(total / seconds), seconds, rss: peakRssMb(worker.pid!) };
} finally {
  await stopChild(worker);
}
const failed = Number(
  (await sql.all<{ n: number }>(`SELECT COUNT(*) AS "n" FROM "WebhookDelivery" WHERE "status" <> 'succeeded'`))[0]!.n,
);

// Baseline: bare undici POSTs of the same payloads (the envelopes of the events above, built as the worker
// builds them), same signing, same receiver, at WEBHOOK_CONCURRENCY (the worker's limit for all shops; one
// shop gets WEBHOOK_SHOP_CONCURRENCY of it, so the reference is not held to the app's per-shop share).
const agent = new Agent({ connections: concurrency });
received = 0;
const baselineStarted = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < total) {
      const body = envelope(events[next++]!, shop.domain);
      const t = Math.floor(Date.now() / 1000);
      const signature = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
      const response = await request(receiverUrl, {
        method: "POST",
        body,
        dispatcher: agent,
        headers: {
          "content-type": "application/json",
          "user-agent": USER_AGENT,
          "x-service-event": "item.added",
          "x-service-delivery": randomUUID(),
          "x-service-signature": `t=${t},v1=${signature}`,
        },
      });
      await response.body.dump();
    }
  }),
);
const baselineSeconds = (performance.now() - baselineStarted) / 1000;
const baseline = Math.round(total / baselineSeconds);
await agent.close();

// 2. Change-to-delivery latency: toggles through the API, one at a time, on an otherwise idle machine.
const server = await startAppServer(env);
const latencyWorker = await startWorker(env);
const latencies: number[] = [];
let webIdleRss = 0;
let webPeakRss = 0;
try {
  webIdleRss = currentRssMb(server.child.pid!);
  const anonymousId = randomUUID();
  for (let sample = 0; sample < samples; sample++) {
    latencies.push(
      await toggleUntilDelivered(server.base, shop, sql, arrivals, { anonymousId, productId: String(sample % 10) }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  webPeakRss = peakRssMb(server.child.pid!);
} finally {
  await Promise.all([stopChild(server.child), stopChild(latencyWorker)]);
  await sql.close();
  receiver.close();
  await database.drop();
}
latencies.sort((a, b) => a - b);

const ratio = ours.perSecond / baseline;
const met = (ok: boolean) => (ok ? "met" : "**missed**");
process.stdout.write(
  `\nWebhook benchmark, ${engine}, ${total} events, concurrency ${concurrency}, Node ${process.version}.\n\n` +
    `| Operation | app deliveries/s | reference deliveries/s | ratio | app time | reference time | worker peak RSS MB | goal (>= ${GOALS.deliveriesPerSecond}/s, >= 0.5x) |\n` +
    `|---|---|---|---|---|---|---|---|\n` +
    `| fan-out, outbox to receiver (all 2xx) | ${ours.perSecond} | ${baseline} | ${ratio.toFixed(2)}x | ` +
    `${ours.seconds.toFixed(1)} s | ${baselineSeconds.toFixed(1)} s | ${ours.rss} | ` +
    `${met(ours.perSecond >= GOALS.deliveriesPerSecond)}, ratio ${met(ratio >= GOALS.throughputRatio)} |\n\n` +
    `Reference: a bare loop of undici POSTs of the same envelopes with the same signing, at WEBHOOK_CONCURRENCY, same receiver.\n` +
    `Change-to-delivery (toggle through the API until the receiver has the event), ${samples} samples: ` +
    `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, ` +
    `max ${latencies.at(-1)!.toFixed(1)} ms.\n${memoryLine(webIdleRss, webPeakRss)} (web process of the latency ` +
    `run: idle after start, peak after the toggles.)\nDelivery attempts not 2xx: ${failed}.\n`,
);
process.exit(failed > 0 ? 1 : 0);
