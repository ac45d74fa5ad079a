/**
 * Product snapshots (app/services/products/snapshots.server.ts) for BullMQ: one run per shop job. A
 * transient failure is retried after the wait the platform asked for (a long throttle), else with an
 * exponential backoff; the last attempt puts the shop's lookups off instead of failing.
 */
import type { BackoffStrategy, Job } from "bullmq";
import type { Redis } from "ioredis";
import { JOBS, sweepJob } from "~/jobs/definitions";
import { logger } from "~/logger.server";
import { queueDueProductSnapshots, runProductSnapshots } from "~/services/products/snapshots.server";
import type { JobHandler } from "../job-handler";
import { retryDelayOf, runJob } from "../outcomes";

function createProductSnapshotHandler(connection?: Redis) {
  return (job: Job) =>
    runJob(async () => {
      const { shopId } = JOBS.productSnapshot.payload.parse(job.data);
      const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const run = await runProductSnapshots({ shopId, finalAttempt, connection });
      if (run.asked > 0 || run.postponed) logger.info({ shopId, jobId: job.id, ...run }, "product snapshots run");
      return run;
    });
}

/** The wait the platform asked for, if the run failed for it; else 30 s, doubling per attempt, at most 15 min. */
const productSnapshotBackoff: BackoffStrategy = (attemptsMade, _type, error) =>
  retryDelayOf(error) ?? Math.min(30_000 * 2 ** Math.max(0, attemptsMade - 1), 15 * 60_000);

/** The sweep: a shop holding items due for a lookup (its save's job lost with Redis, or never queued). */
async function sweepDueProductSnapshots(_job: Job, connection?: Redis) {
  const dueBefore = new Date(Date.now() - sweepJob("productSnapshot").olderThanMs);
  const shopIds = await queueDueProductSnapshots({ dueBefore, connection });
  if (shopIds.length > 0) {
    logger.warn({ shopIds }, "product snapshot runs queued by the sweep (lookups left due)");
  }
  return { queued: shopIds.length, shopIds };
}

export const productJobs = {
  consume: ({ connection }) => ({
    run: createProductSnapshotHandler(connection),
    backoffStrategy: productSnapshotBackoff,
  }),
  sweep: sweepDueProductSnapshots,
} satisfies JobHandler<"productSnapshot">;
