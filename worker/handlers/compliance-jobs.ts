/**
 * Runs the platform's compliance requests (app/services/compliance) for BullMQ: one job per request row,
 * retried with backoff; a request whose last attempt fails is marked failed on its row, with the reason,
 * so the merchant's admin lists it and the logs say why.
 */
import type { Job, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { complianceJob } from "../../app/jobs/definitions";
import { logger } from "../../app/logger.server";
import { failComplianceRequest, runComplianceRequest } from "../../app/services/compliance/compliance.server";
import { runJob } from "../outcomes";

export function createComplianceHandler(connection?: Redis) {
  return (job: Job) =>
    runJob(async () => {
      const { requestId } = complianceJob.payload.parse(job.data);
      const summary = await runComplianceRequest(requestId, { connection });
      logger.info({ requestId, topic: job.name, summary }, "compliance request done");
      return summary;
    });
}

/** Marks a request failed once BullMQ has given up on its job (its last attempt failed). */
export function watchComplianceWorker(worker: Worker) {
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
