/**
 * The webhook queue's jobs (docs/webhooks.md): a batch job makes the first attempts of several deliveries
 * of one shop (docs/decisions/045-webhook-batching.md), any other job one delivery attempt per run. A
 * failed first attempt of a batch goes on in a job of its own, delayed by the retry it logged. A failed attempt with
 * retries left ends the run with the delay it logged as `nextRetryAt`, and `webhookBackoff` hands that
 * delay to BullMQ, so the log and the queue agree; the last failed attempt fails the job for good.
 * A job of a shop that already has its share of this process's slots in flight is put back, delayed,
 * without an attempt (docs/decisions/026-fairness-between-shops.md).
 */
import { DelayedError, type BackoffStrategy, type Job, type Queue } from "bullmq";
import type { Dispatcher } from "undici";
import { getEnv } from "~/env.server";
import { JOBS, type DeliverWebhookBatchPayload } from "~/jobs/definitions";
import { queue } from "~/jobs/queues.server";
import { logger } from "~/logger.server";
import { createRedis } from "~/redis.server";
import { deliverBatch, deliverOnce } from "~/services/webhooks/delivery.server";
import { queueDeliveriesOfBatch } from "~/services/webhooks/fanout.server";
import { createDeliveryAgent } from "~/services/webhooks/ssrf.server";
import { retryDelayMs } from "~/services/webhooks/schedule";
import { JobFailed, retryDelayOf, runJob } from "../outcomes";
import type { JobHandler } from "../job-handler";
import { batchesPerShop, ShopSlots } from "../shop-slots";

function createBatchHandler(dispatcher: Dispatcher, slots: ShopSlots, webhooks: Queue) {
  return async (job: Job<DeliverWebhookBatchPayload>, token?: string) => {
    const payload = JOBS.webhookDelivery.batchPayload.parse(job.data);
    if (!slots.tryStartBatch(payload.shopId)) {
      await job.moveToDelayed(Date.now() + slots.holdMs(job.id!, { batch: true }), token);
      throw new DelayedError();
    }
    slots.forget(job.id!);
    const priority = job.opts.priority ?? 0;
    try {
      return await runJob(async () => {
        const outcome = await deliverBatch(payload, {
          dispatcher,
          take: () => slots.take(payload.shopId),
          queuedAt: new Date(job.timestamp),
          requeueAfterMs: getEnv().WEBHOOK_REQUEUE_AFTER_MS,
          queueRetry: (delivery, delayMs) =>
            queueDeliveriesOfBatch(webhooks, [{ payload: delivery, attemptsBefore: 1, delayMs }], priority),
        });
        // The batch completes once every delivery is logged or handed to a job of its own. Should that add
        // fail, the batch is run again (at least once: its logged deliveries are sent again).
        await queueDeliveriesOfBatch(
          webhooks,
          [
            ...outcome.retries.map(({ payload, retryAt }) => ({
              payload,
              attemptsBefore: 1,
              delayMs: Math.max(0, retryAt - Date.now()),
            })),
            ...outcome.unlogged.map((payload) => ({ payload, attemptsBefore: 0, delayMs: 0 })),
          ],
          priority,
        );
        return { succeeded: outcome.succeeded, failed: outcome.failed, skipped: outcome.skipped };
      });
    } finally {
      slots.endBatch(payload.shopId);
    }
  };
}

function createWebhookHandler(dispatcher: Dispatcher, slots: ShopSlots, webhooks: Queue) {
  const batch = createBatchHandler(dispatcher, slots, webhooks);
  return async (job: Job, token?: string) => {
    if (job.name === JOBS.webhookDelivery.batchName) return batch(job as Job<DeliverWebhookBatchPayload>, token);
    const payload = JOBS.webhookDelivery.payload.parse(job.data);
    if (!slots.tryTake(payload.shopId)) {
      await job.moveToDelayed(Date.now() + slots.holdMs(job.id!), token);
      throw new DelayedError(); // BullMQ: the job was moved, not failed; no attempt is counted
    }
    slots.forget(job.id!);
    try {
      return await runJob(async () => {
        // A delivery queued again after Redis lost its job goes on from the attempts it had made.
        const before = payload.attemptsBefore ?? 0;
        const outcome = await deliverOnce(payload, {
          attemptsMade: job.attemptsMade + before,
          maxAttempts: (job.opts.attempts ?? 1) + before,
          dispatcher,
        });
        if (outcome.status === "failed") {
          throw new JobFailed(
            `delivery ${outcome.deliveryId} failed (${outcome.statusCode ?? "no response"})`,
            outcome.retryInMs,
            true,
          );
        }
        return outcome;
      });
    } finally {
      slots.release(payload.shopId);
    }
  };
}

/** The delay the failed attempt logged; the published schedule for any other failure. */
export const webhookBackoff: BackoffStrategy = (attemptsMade, _type, error) =>
  retryDelayOf(error) ?? retryDelayMs(attemptsMade, getEnv().WEBHOOK_RETRY_UNIT_MS);

export const webhookJobs = {
  consume: ({ env }) => {
    // Deliveries finish by the hundred per second, each with a BullMQ script call: auto-pipelining sends the
    // commands issued in one tick in one write.
    const connection = createRedis("worker", { enableAutoPipelining: true });
    connection.on("error", (error) => logger.warn({ err: error }, "redis connection error"));
    const agent = createDeliveryAgent(env.WEBHOOK_CONCURRENCY);
    const slots = new ShopSlots(
      env.WEBHOOK_SHOP_CONCURRENCY,
      env.WEBHOOK_CONCURRENCY,
      batchesPerShop(env.WEBHOOK_CONCURRENCY),
    );
    // The batches' hand-offs (retries as jobs of their own) go out on a connection of their own, without
    // auto-pipelining: a second BullMQ client on an auto-pipelined connection may define scripts after a
    // pipeline was built without them (app/redis.server.ts, getRequestRedis).
    const handOffs = createRedis("worker");
    handOffs.on("error", (error) => logger.warn({ err: error }, "redis connection error"));
    return {
      run: createWebhookHandler(agent, slots, queue(JOBS.webhookDelivery.queue, handOffs)),
      connection,
      backoffStrategy: webhookBackoff,
      close: async () => {
        await agent.close();
        await Promise.all([connection, handOffs].map((redis) => redis.quit().catch(() => redis.disconnect())));
      },
    };
  },
} satisfies JobHandler<"webhookDelivery">;
