/**
 * Runs imports and exports (app/services/transfers) for BullMQ. An attempt that is `done` completes the
 * BullMQ job (the row says whether the transfer succeeded or failed); one that asks for a `retry` throws
 * its error, which reaches BullMQ as worker/outcomes.ts decides for every queue.
 */
import { DelayedError, type Job, type Queue, type Worker } from "bullmq";
import type { Redis } from "ioredis";
import { JOBS, sweepJob, type TransferJobPayload } from "~/jobs/definitions";
import { enqueueMetafieldSync, queue } from "~/jobs/queues.server";
import { logger } from "~/logger.server";
import { abandonTransferJob, runTransferJob, UNEXPECTED_FAILURE } from "~/services/transfers/transfer-run.server";
import { queueStrandedTransferJobs } from "~/services/transfers/jobs.server";
import type { JobHandler } from "../job-handler";
import { runJob } from "../outcomes";

/** How long a job waits while its shop runs as many jobs as it may, before it is looked at again. */
const SHOP_BUSY_WAIT_MS = 2_000;

/** Runs an import or an export; the row says which. */
async function handleTransferJob(job: Job<TransferJobPayload>, token?: string) {
  const { shopId, jobId } = JOBS.transfer.payload.parse(job.data);
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
  if (job.name === JOBS.transfer.name.import) {
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
function watchTransferWorker(worker: Worker, queue: Queue) {
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

/** The sweep of the job outbox: accepted imports and exports that BullMQ does not hold are queued. */
async function sweepStrandedTransfers(_job: Job, connection?: Redis) {
  const createdBefore = new Date(Date.now() - sweepJob("transfer").olderThanMs);
  const queued = await queueStrandedTransferJobs({ createdBefore, connection });
  // Quiet when there is nothing to do: it runs every few seconds.
  if (queued.length > 0) {
    logger.warn(
      { jobIds: queued, count: queued.length },
      "transfer jobs queued by the sweep (not queued when accepted)",
    );
  }
  return { queued: queued.length };
}

export const transferJobs = {
  consume: ({ connection }) => {
    const transfers = queue(JOBS.transfer.queue, connection);
    return {
      run: handleTransferJob,
      watch: (worker) => watchTransferWorker(worker, transfers),
      close: () => transfers.close(),
    };
  },
  sweep: sweepStrandedTransfers,
} satisfies JobHandler<"transfer">;
