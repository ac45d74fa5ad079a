/**
 * Runs imports and exports (app/services/transfers) for BullMQ. An attempt that is `done` completes the
 * BullMQ job (the row says whether the transfer succeeded or failed); one that asks for a `retry` throws
 * its error, which reaches BullMQ as worker/outcomes.ts decides for every queue.
 */
import { DelayedError, type Job, type Queue, type Worker } from "bullmq";
import { transferJob, type TransferJobPayload } from "../../app/jobs/definitions";
import { enqueueMetafieldSync } from "../../app/jobs/queues.server";
import { logger } from "../../app/logger.server";
import {
  abandonTransferJob,
  runTransferJob,
  UNEXPECTED_FAILURE,
} from "../../app/services/transfers/transfer-run.server";
import { runJob } from "../outcomes";

/** How long a job waits while its shop runs as many jobs as it may, before it is looked at again. */
const SHOP_BUSY_WAIT_MS = 2_000;

/** Runs an import or an export; the row says which. */
export async function handleTransferJob(job: Job<TransferJobPayload>, token?: string) {
  const { shopId, jobId } = transferJob.payload.parse(job.data);
  const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  const outcome = await runJob(async () => {
    const attempt = await runTransferJob({ shopId, jobId, finalAttempt });
    if (attempt.outcome === "retry") throw attempt.error;
    return attempt.outcome;
  });
  if (outcome === "wait") {
    // Put back without an attempt counted (docs/decisions/026-fairness-between-shops.md); the jitter
    // keeps a shop's waiting jobs from coming back together.
    await job.moveToDelayed(Date.now() + Math.round(SHOP_BUSY_WAIT_MS * (0.8 + Math.random() * 0.4)), token);
    throw new DelayedError();
  }
  if (job.name === transferJob.names.import) {
    // The rows it wrote marked their customers' metafields as owed when the shop syncs them
    // (docs/decisions/023-customer-metafield-sync.md); the sync job of a shop that does not is a no-op.
    await enqueueMetafieldSync([shopId]).catch((error: unknown) =>
      logger.warn({ err: error, shopId }, "metafield sync not queued after an import; the sweep will queue it"),
    );
  }
}

/**
 * Keeps the TransferJob rows true when BullMQ gives up on a job without our handler finishing it: a
 * job whose worker died more often than the stall limit is failed by BullMQ's stall check (which reports
 * it only as `stalled`), and a final attempt may throw before its row was updated. The BullMQ job id is
 * the row's id.
 */
export function watchTransferWorker(worker: Worker, queue: Queue) {
  const abandon = (jobId: string, message: string) =>
    abandonTransferJob(jobId, message).catch((error: unknown) =>
      logger.error({ err: error, jobId }, "could not mark an abandoned transfer job failed"),
    );
  worker.on("stalled", (jobId) => {
    void queue.getJobState(jobId).then((state) => {
      if (state === "failed") {
        return abandon(jobId, "The job was stopped: the worker running it stopped repeatedly. Start it again.");
      }
    });
  });
  worker.on("failed", (job) => {
    if (job?.id && job.attemptsMade >= (job.opts.attempts ?? 1)) {
      void abandon(job.id, UNEXPECTED_FAILURE);
    }
  });
}
