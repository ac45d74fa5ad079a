/**
 * The metafield queue's jobs (docs/decisions/023-customer-metafield-sync.md): one run writes every
 * customer metafield a shop owes. The platform unavailable for now is retried with backoff; the rows stay
 * owed meanwhile, so nothing is lost when the attempts run out (the sweep queues the shop again).
 */
import type { Job } from "bullmq";
import { syncMetafieldsJob } from "../../app/jobs/definitions";
import { logger } from "../../app/logger.server";
import { syncShopMetafields } from "../../app/services/metafields/customer-metafields.server";
import { runJob } from "../outcomes";

export function handleMetafieldJob(job: Job) {
  return runJob(async () => {
    const { shopId } = syncMetafieldsJob.payload.parse(job.data);
    const summary = await syncShopMetafields({ shopId });
    if (summary.written + summary.removed + summary.refused > 0) {
      logger.info({ shopId, ...summary }, "customer metafields written");
    }
    return summary;
  });
}
