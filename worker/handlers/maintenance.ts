import type { Job } from "bullmq";
import { purgeIdempotencyJob } from "../../app/jobs/definitions";
import { logger } from "../../app/logger.server";
import { purgeExpiredIdempotencyKeys } from "../../app/services/idempotency/idempotency.server";

export async function handleMaintenanceJob(job: Job) {
  if (job.name !== purgeIdempotencyJob.name) throw new Error(`unknown maintenance job ${job.name}`);
  const purged = await purgeExpiredIdempotencyKeys();
  logger.info({ jobId: job.id, purged }, "expired idempotency keys purged");
  return { purged };
}
