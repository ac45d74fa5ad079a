/**
 * Runs the platform's compliance requests (app/services/compliance) for BullMQ: one job per request row,
 * retried with backoff; a request whose last attempt fails is marked failed on its row, with the reason,
 * so the merchant's admin lists it and the logs say why.
 */
import type { Job, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { JOBS, sweepJob } from "~/jobs/definitions";
import { logger } from "~/logger.server";
import {
  failComplianceRequest,
  queueStrandedComplianceRequests,
  runComplianceRequest,
} from "~/services/compliance/compliance.server";
import type { JobHandler } from "../job-handler";
import { runJob } from "../outcomes";

function createComplianceHandler(connection?: Redis) {
  return (job: Job) =>
    runJob(async () => {
      const { requestId } = JOBS.compliance.payload.parse(job.data);
      const summary = await runComplianceRequest(requestId, { connection });
      logger.info({ requestId, topic: job.name, summary }, "compliance request done");
      return summary;
    });
}

/** Marks a request failed once BullMQ has given up on its job (its last attempt failed). */
function watchComplianceWorker(worker: Worker) {
  worker.on("failed", (job, error) => {
    if (!job?.id || job.attemptsMade < (job.opts.attempts ?? 1)) return;
    void failComplianceRequest(job.id, "The request could not be completed after repeated attempts.").catch(
      (caught: unknown) =>
        logger.error(
          { err: caught, requestId: job.id, cause: error.message },
          "could not mark a compliance request failed",
        ),
    );
  });
}

/** The sweep: a request still `queued` that BullMQ does not hold (the webhook's add failed, or the process died). */
async function sweepStrandedRequests(_job: Job, connection?: Redis) {
  const receivedBefore = new Date(Date.now() - sweepJob("compliance").olderThanMs);
  const queued = await queueStrandedComplianceRequests({ receivedBefore, connection });
  if (queued.length > 0) {
    logger.warn({ requestIds: queued }, "compliance requests queued by the sweep (not queued when received)");
  }
  return { queued: queued.length };
}

export const complianceJobs = {
  consume: ({ connection }) => ({ run: createComplianceHandler(connection), watch: watchComplianceWorker }),
  sweep: sweepStrandedRequests,
} satisfies JobHandler<"compliance">;
