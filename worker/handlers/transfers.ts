import type { Job, Queue, Worker } from "bullmq";
import { transferJob, type TransferJobPayload } from "../../app/jobs/definitions";
import { logger } from "../../app/logger.server";
import { abandonTransferJob, runTransferJob, UNEXPECTED_FAILURE } from "../../app/services/transfers/jobs.server";

/** Runs an import or an export (app/services/transfers); the row says which. */
export async function handleTransferJob(job: Job<TransferJobPayload>) {
  const { shopId, jobId } = transferJob.payload.parse(job.data);
  await runTransferJob({ shopId, jobId, finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1) });
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
