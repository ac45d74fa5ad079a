import type { BackoffStrategy, Job } from "bullmq";
import type { Dispatcher } from "undici";
import { getEnv } from "../../app/env.server";
import { deliverWebhookJob, type DeliverWebhookPayload } from "../../app/jobs/definitions";
import { DeliveryFailed, deliverOnce } from "../../app/services/webhooks/delivery.server";
import { retryDelayMs } from "../../app/services/webhooks/schedule";

/**
 * One delivery attempt per job run. A failed attempt with retries left throws DeliveryFailed carrying the
 * delay it logged as `nextRetryAt`, and `webhookBackoff` hands that delay to BullMQ, so the log and the
 * queue agree. The last failed attempt throws too, which leaves the job in the failed set.
 */
export function createWebhookHandler(dispatcher: Dispatcher) {
  return async (job: Job<DeliverWebhookPayload>) => {
    const payload = deliverWebhookJob.payload.parse(job.data);
    const outcome = await deliverOnce(payload, {
      attemptsMade: job.attemptsMade,
      maxAttempts: job.opts.attempts ?? 1,
      dispatcher,
    });
    if (outcome.status === "failed") {
      throw new DeliveryFailed(
        `delivery ${outcome.deliveryId} failed (${outcome.statusCode ?? "no response"})`,
        outcome.retryInMs ?? 0,
      );
    }
    return outcome;
  };
}

export const webhookBackoff: BackoffStrategy = (attemptsMade, _type, error) =>
  error instanceof DeliveryFailed ? error.delayMs : retryDelayMs(attemptsMade, getEnv().WEBHOOK_RETRY_UNIT_MS);
