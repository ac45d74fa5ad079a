import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { JOBS } from "~/jobs/definitions";
import { queuePrefix } from "~/jobs/queues.server";
import { createShop } from "../factories";
import { freePort, startProcess } from "../support/processes";
import { until } from "../support/poll";
import { killRedis, startRedis } from "../support/services";
import { owedDeliveries } from "../support/webhook-rows";
import { startReceiver } from "../services/webhooks/receiver";
import {
  expectDatabaseMatches,
  expectEveryEventDelivered,
  readinessUntil,
  startStorefrontLoad,
  startWeb,
  subscribeToItemEvents,
} from "./storefront-load";

/**
 * Issue 16, item 2: Redis killed under storefront load and started again empty (no persistence, as CI and
 * the dev orchestrator start it), with a real web process and a real worker on a redis-server of this file's
 * own. The storefront keeps working without Redis (rate limits count in process memory, changes and their
 * events are written to the database, docs/decisions/010-storefront-writes.md); readiness says Redis is
 * down; once it is back, the outbox and the owed-delivery rows (docs/decisions/025-queue-reconciliation.md)
 * bring every event to the receiver.
 */
describe("Redis killed under storefront load and started again empty", () => {
  it(
    "the web keeps answering, every accepted toggle is stored and delivered, nothing stays owed",
    { timeout: 300_000 },
    async () => {
      const port = await freePort();
      let redis = await startRedis(port);
      // Until Redis dies the receiver holds what it gets, so the deliveries behind the held ones wait as jobs
      // in Redis only (their events already relayed): the ones an emptied Redis loses.
      let holding = true;
      const held: Array<() => void> = [];
      const receiver = await startReceiver((_request, _index, res) => {
        if (!holding) return;
        held.push(() => void res.writeHead(200).end("ok"));
        return "hold";
      });
      const shop = await createShop();
      await subscribeToItemEvents(shop.id, receiver.url);
      const redisUrl = `redis://127.0.0.1:${port}`;
      const { web, baseUrl } = await startWeb({ REDIS_URL: redisUrl });
      const worker = startProcess("worker/index.ts", {
        REDIS_URL: redisUrl,
        WEBHOOK_ALLOW_HTTP: "true",
        WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
        WEBHOOK_RETRY_UNIT_MS: "20",
        WEBHOOK_TIMEOUT_MS: "60000",
        // Owed deliveries overdue by a second are queued again (the jobs the emptied Redis lost).
        WEBHOOK_REQUEUE_AFTER_MS: "1000",
      });
      const load = startStorefrontLoad({ baseUrl, shop, loops: 4 });
      const phases: Record<string, number> = {};
      let phaseStart = Date.now();
      const phase = (name: string) => {
        phases[name] = Date.now() - phaseStart;
        phaseStart = Date.now();
      };
      try {
        await worker.waitForOutput(/worker ready/, 90_000);
        await readinessUntil(baseUrl, (answer) => answer.status === 200, "ready before the fault");
        await load.acceptedMore(150, "toggles accepted before the fault");
        await receiver.waitFor(1, 90_000);
        const owed = await until(
          () => owedDeliveries(shop.id),
          (count) => count > held.length + 50,
          "deliveries waiting in Redis behind the held ones",
        );

        phase("ready and backlog");
        await killRedis(redis);
        holding = false;
        for (const release of held.splice(0)) release();
        const down = await readinessUntil(baseUrl, (answer) => answer.status === 503, "/readyz 503 once Redis is gone");
        expect(down.contentType).toBe("application/problem+json");
        expect(down.body).toMatchObject({
          detail: "Not ready: redis unreachable.",
          checks: { database: "ok", redis: "unreachable" },
        });
        // Storefront writes go on while Redis is down: the changes and their events need only the database.
        await load.acceptedMore(150, "toggles accepted while Redis is down");
        expect((await readinessUntil(baseUrl, () => true, "/readyz while down")).status).toBe(503);

        phase("down");
        redis = await startRedis(port); // empty: no persistence
        await readinessUntil(baseUrl, (answer) => answer.status === 200, "/readyz 200 once Redis is back");
        await load.acceptedMore(150, "toggles accepted after Redis came back");
        await load.stop();
        phase("back");
        const { record } = load;
        if (process.env.LOG_FAULTS) {
          const refused = record.refused.length;
          process.stderr.write(
            `redis-restart: ${JSON.stringify({ accepted: record.accepted, refused, owedAtKill: owed })}\n`,
          );
        }

        expect(record.violations).toEqual([]);
        // Nothing needed refusing here: a toggle needs the database only.
        expect(record.refused).toEqual([]);
        await expectDatabaseMatches(shop.id, record);
        const events = await expectEveryEventDelivered(shop.id, receiver.received, 240_000);
        expect(events).toBe(record.accepted);
        phase("delivered");
        if (process.env.LOG_FAULTS) process.stderr.write(`redis-restart phases (ms): ${JSON.stringify(phases)}\n`);

        // No delivery job stuck in the queue (active, waiting or delayed) once all is delivered.
        const probe = new Redis({ port, maxRetriesPerRequest: null });
        const queue = new Queue(JOBS.webhookDelivery.queue, { connection: probe, prefix: queuePrefix() });
        try {
          await until(
            () => queue.getJobCounts("active", "wait", "delayed", "prioritized"),
            (counts) => Object.values(counts).every((count) => count === 0),
            "no delivery job left in the queue",
          );
        } finally {
          await queue.close();
          probe.disconnect();
        }
        expect(await web.stop(15_000)).toBe(0);
      } finally {
        holding = false;
        for (const release of held.splice(0)) release();
        await load.stop();
        await worker.stop(15_000).catch(() => worker.child.kill("SIGKILL"));
        await web.stop(15_000).catch(() => web.child.kill("SIGKILL"));
        await killRedis(redis);
        await receiver.close();
      }
    },
  );
});
