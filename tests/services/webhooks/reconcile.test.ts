/**
 * Queue reconciliation (docs/decisions/025-queue-reconciliation.md) of a delivery whose job BullMQ failed
 * for good for a reason other than its receiver: its row is still owed, and the failed job, kept under the
 * delivery's id, would make every re-add a no-op.
 */
import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { resetEnvCache } from "~/env.server";
import { JOBS } from "~/jobs/definitions";
import { queuePrefix } from "~/jobs/queues.server";
import { requeueOverdueDeliveries } from "~/services/webhooks/reconcile.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { createShop, createWebhookEndpoint } from "../../factories";
import { until } from "../../support/poll";
import { startProcess } from "../../support/processes";
import { drainOutbox, owedDeliveries } from "../../support/webhook-rows";
import { startOutboxRelay } from "../../../worker/outbox-loop";
import { startReceiver } from "./receiver";

Object.assign(process.env, { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" });
resetEnvCache();

describe("a delivery whose job failed for good but is still owed", () => {
  it("is queued again by the reconciliation pass, and delivered", { timeout: 240_000 }, async () => {
    const receiver = await startReceiver();
    const shop = await createShop();
    const { endpoint } = await createWebhookEndpoint(shop.id, receiver.url);
    const owner = { kind: "anonymous" as const, anonymousId: randomUUID() };
    await toggleItem({ shopId: shop.id, owner, item: { productId: "1", handle: "one" } });
    const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
    const queue = new Queue(JOBS.webhookDelivery.queue, { connection: redis, prefix: queuePrefix() });
    // Relayed with a job that cannot run (its payload is not a delivery's), one attempt: it fails for good
    // without reaching the receiver or the delivery log, as a job does when the database is down for all of
    // its attempts. The relay records the delivery as owed, as the real fan-out's would be.
    let jobId = "";
    await drainOutbox({
      fanOut: async (events) => {
        const event = events.find((candidate) => candidate.shopId === shop.id)!;
        jobId = `${event.id}-${endpoint.id}`;
        await queue.add(JOBS.webhookDelivery.name, { broken: true } as never, { jobId, attempts: 1 });
        return [{ eventId: event.id, endpointId: endpoint.id, shopId: shop.id }];
      },
    });
    const worker = startProcess("worker/index.ts", {});
    try {
      await worker.waitForOutput(/worker ready/);
      await until(
        () => queue.getJobState(jobId),
        (state) => state === "failed",
        "the broken job failed",
      );
      expect(await owedDeliveries(shop.id)).toBe(1);

      // The pass as the worker runs it, its clock past the grace period.
      const requeued = await requeueOverdueDeliveries(queue, { graceMs: 1_000, now: new Date(Date.now() + 60_000) });
      expect(requeued).toBe(1);
      const [delivered] = await receiver.waitFor(1);
      expect(JSON.parse(delivered!.body.toString("utf8"))).toMatchObject({
        id: jobId.split("-")[0],
        type: "item.added",
      });
      await until(
        () => owedDeliveries(shop.id),
        (count) => count === 0,
        "nothing owed any more",
      );
    } finally {
      expect(await worker.stop()).toBe(0);
      await queue.close();
      redis.disconnect();
      await receiver.close();
    }
  });
});

describe("a loss larger than one reconciliation pass", () => {
  it("is queued again pass after pass, not one pass per half grace period", async () => {
    const shop = await createShop();
    const { endpoint } = await createWebhookEndpoint(shop.id);
    const owner = { kind: "anonymous" as const, anonymousId: randomUUID() };
    for (let n = 1; n <= 25; n++) {
      await toggleItem({ shopId: shop.id, owner, item: { productId: String(n), handle: `p-${n}` } });
    }
    // Relayed and recorded as owed, but the jobs never reached Redis (it came back empty), and overdue.
    await drainOutbox({
      fanOut: async (events) =>
        events
          .filter((event) => event.shopId === shop.id)
          .map((event) => ({ eventId: event.id, endpointId: endpoint.id, shopId: shop.id })),
    });
    expect(await owedDeliveries(shop.id)).toBe(25);
    await database()
      .updateTable("WebhookDeliveryDue")
      .set({ dueAt: new Date(Date.now() - 10 * 60_000) })
      .where("shopId", "=", shop.id)
      .execute();

    const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
    const queue = new Queue(JOBS.webhookDelivery.queue, { connection: redis, prefix: queuePrefix() });
    // Passes of 10, and a half period of 30 minutes: only a pass that follows a full one at once can queue
    // all 25 within the test.
    const relay = startOutboxRelay({
      intervalMs: 50,
      requeue: {
        afterMs: 60 * 60_000,
        limit: 10,
        run: (limit) => requeueOverdueDeliveries(queue, { graceMs: 60_000, limit }),
      },
    });
    try {
      await until(
        async () => {
          const counts = await queue.getJobCounts("waiting", "prioritized");
          return counts.waiting! + counts.prioritized!;
        },
        (queued) => queued === 25,
        "all 25 owed deliveries queued again",
      );
    } finally {
      await relay.stop();
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    }
  });
});
