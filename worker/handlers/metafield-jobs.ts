/**
 * The metafield queue's jobs (docs/decisions/023-customer-metafield-sync.md): one run writes every
 * customer metafield a shop owes. The platform unavailable for now is retried with backoff; the rows stay
 * owed meanwhile, so nothing is lost when the attempts run out (the sweep queues the shop again).
 */
import type { Job } from "bullmq";
import type { Redis } from "ioredis";
import { JOBS } from "~/jobs/definitions";
import { enqueueMetafieldSync } from "~/jobs/queues.server";
import { logger } from "~/logger.server";
import { shopsOwingMetafields, syncShopMetafields } from "~/services/metafields/customer-metafields.server";
import type { JobHandler } from "../job-handler";
import { runJob } from "../outcomes";

function handleMetafieldJob(job: Job) {
  return runJob(async () => {
    const { shopId } = JOBS.metafieldSync.payload.parse(job.data);
    const summary = await syncShopMetafields({ shopId });
    if (summary.written + summary.removed + summary.refused > 0) {
      logger.info({ shopId, ...summary }, "customer metafields written");
    }
    return summary;
  });
}

/** The sweep: shops with customers owing a write get their job (Redis may have lost it). */
async function sweepOwedMetafields(_job: Job, connection?: Redis) {
  // A shop whose job is waiting gets no second one (its id is the shop's); any other is queued at once.
  const shops = await shopsOwingMetafields();
  await enqueueMetafieldSync(shops, { delayMs: 0, connection });
  return { shops: shops.length };
}

export const metafieldJobs = {
  consume: () => ({ run: handleMetafieldJob }),
  sweep: sweepOwedMetafields,
} satisfies JobHandler<"metafieldSync">;
