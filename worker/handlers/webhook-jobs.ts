/**
 * The webhook queue's jobs (docs/webhooks.md): one delivery attempt per job run. A failed attempt with
 * retries left ends the run with the delay it logged as `nextRetryAt`, and `webhookBackoff` hands that
 * delay to BullMQ, so the log and the queue agree; the last failed attempt fails the job for good.
 * A job of a shop that already has its share of this process's slots in flight is put back, delayed,
 * without an attempt (docs/decisions/026-fairness-between-shops.md).
 */
import { DelayedError, type BackoffStrategy, type Job } from "bullmq";
import type { Dispatcher } from "undici";
import { getEnv } from "~/env.server";
import { JOBS, type DeliverWebhookPayload } from "~/jobs/definitions";
import { logger } from "~/logger.server";
import { createRedis } from "~/redis.server";
import { deliverOnce } from "~/services/webhooks/delivery.server";
import { createDeliveryAgent } from "~/services/webhooks/ssrf.server";
import { retryDelayMs } from "~/services/webhooks/schedule";
import { JobFailed, retryDelayOf, runJob } from "../outcomes";
import type { JobHandler } from "../job-handler";
import { ShopSlots } from "../shop-slots";

function createWebhookHandler(dispatcher: Dispatcher, slots: ShopSlots) {
  return async (job: Job<DeliverWebhookPayload>, token?: string) => {
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
    return {
      run: createWebhookHandler(agent, new ShopSlots(env.WEBHOOK_SHOP_CONCURRENCY)),
      connection,
      backoffStrategy: webhookBackoff,
      close: async () => {
        await agent.close();
        await connection.quit().catch(() => connection.disconnect());
      },
    };
  },
} satisfies JobHandler<"webhookDelivery">;
