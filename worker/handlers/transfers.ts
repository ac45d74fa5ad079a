import type { Job } from "bullmq";
import { transferJob, type TransferJobPayload } from "../../app/jobs/definitions";
import { runTransferJob } from "../../app/services/transfers/jobs.server";

/** Runs an import or an export (app/services/transfers); the row says which. */
export async function handleTransferJob(job: Job<TransferJobPayload>) {
  const { shopId, jobId } = transferJob.payload.parse(job.data);
  await runTransferJob({ shopId, jobId, finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1) });
}
