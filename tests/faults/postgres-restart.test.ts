import { Queue } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { startPrivatePostgres } from "../support/services";

/**
 * Issue 16, item 2: PostgreSQL stopped (`pg_ctl stop -m fast`: every session ended) under storefront load,
 * kept down until the web process has refused writes, then started again; a real web process and a real
 * worker on a private cluster of this file's own (the shared one serves the other test files). PostgreSQL
 * only: SQLite has no server to stop (a database it cannot use is covered by tests/readiness-database-down).
 *
 * While the database is down, every toggle is refused with a 503 problem naming it, never a 500, a hang or
 * a dropped connection; once it is back, both processes carry on without a restart, every accepted toggle
 * is stored with its event, and every event is delivered at least once.
 */
const cluster = await startPrivatePostgres();
process.env.DATABASE_URL = cluster.url; // this file's app modules (the reads below) use the private cluster
afterAll(() => cluster.destroy());

const { JOBS } = await import("~/jobs/definitions");
const { createQueue } = await import("~/jobs/queues.server");
const { closeDatabase } = await import("~/data/database.server");
const { createShop } = await import("../factories");
const { startProcess } = await import("../support/processes");
const { until } = await import("../support/poll");
const { startReceiver } = await import("../services/webhooks/receiver");
const load = await import("./storefront-load");

afterAll(() => closeDatabase());

describe("PostgreSQL stopped and started again under storefront load", () => {
  it(
    "the web answers 503 problems naming the database while it is down, recovers without a restart, and nothing is lost",
    { timeout: 300_000 },
    async () => {
      const receiver = await startReceiver();
      const shop = await createShop();
      await load.subscribeToItemEvents(shop.id, receiver.url);
      const env = { DATABASE_URL: cluster.url };
      const { web, baseUrl } = await load.startWeb(env);
      const worker = startProcess("worker/index.ts", {
        ...env,
        WEBHOOK_ALLOW_HTTP: "true",
        WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
        WEBHOOK_RETRY_UNIT_MS: "20",
        WEBHOOK_REQUEUE_AFTER_MS: "1000",
      });
      const storefront = load.startStorefrontLoad({ baseUrl, shop, loops: 4 });
      try {
        await worker.waitForOutput(/worker ready/, 90_000);
        await load.readinessUntil(baseUrl, (answer) => answer.status === 200, "ready before the fault");
        await storefront.acceptedMore(150, "toggles accepted before the fault");

        await cluster.stop();
        const down = await load.readinessUntil(
          baseUrl,
          (answer) => answer.status === 503,
          "/readyz 503 once the database is down",
        );
        expect(down.contentType).toBe("application/problem+json");
        expect(down.body).toMatchObject({
          detail: "Not ready: database unreachable.",
          checks: { database: "unreachable", redis: "ok" },
        });
        // Writes that cannot be made are refused, each with a problem document.
        await until(
          () => storefront.record.refused.length + storefront.record.violations.length,
          (count) => count >= 50,
          "toggles refused while the database is down",
        );
        expect(await cluster.accepts()).toBe(false);

        await cluster.start();
        await load.readinessUntil(baseUrl, (answer) => answer.status === 200, "/readyz 200 once the database is back");
        await storefront.acceptedMore(150, "toggles accepted after the database came back");
        await storefront.stop();

        const { record } = storefront;
        if (process.env.LOG_FAULTS) {
          const refused = record.refused.length;
          process.stderr.write(`postgres-restart: ${JSON.stringify({ accepted: record.accepted, refused })}\n`);
        }
        expect(record.violations).toEqual([]);
        expect(record.refused.length).toBeGreaterThanOrEqual(50);
        // Listed whole, so that a stray refusal shows its detail.
        expect(
          record.refused.filter(
            (refusal) =>
              refusal.status !== 503 || refusal.slug !== "service-unavailable" || !/database/i.test(refusal.detail),
          ),
        ).toEqual([]);
        await load.expectDatabaseMatches(shop.id, record);
        expect(await load.expectEveryEventDelivered(shop.id, receiver.received, 240_000)).toBe(record.accepted);
        // No delivery job stuck in the queue once everything is delivered.
        const queue: Queue = createQueue(JOBS.webhookDelivery.queue);
        try {
          await until(
            () => queue.getJobCounts("active", "wait", "delayed", "prioritized"),
            (counts) => Object.values(counts).every((count) => count === 0),
            "no delivery job left in the queue",
          );
        } finally {
          await queue.close();
        }
        expect(await web.stop(15_000)).toBe(0);
        expect(await worker.stop(30_000)).toBe(0);
      } finally {
        await storefront.stop();
        await worker.stop(15_000).catch(() => worker.child.kill("SIGKILL"));
        await web.stop(15_000).catch(() => web.child.kill("SIGKILL"));
        await receiver.close();
      }
    },
  );
});
