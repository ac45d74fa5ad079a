/** The health queue's job: proves the worker is connected and consuming; it does no work. */
import type { Job } from "bullmq";
import { healthJob } from "../../app/jobs/definitions";
import { logger } from "../../app/logger.server";

export async function handleHealthJob(job: Job) {
  const payload = healthJob.payload.parse(job.data);
  logger.info({ jobId: job.id, requestedAt: payload.requestedAt }, "health job consumed");
  return { ok: true, requestedAt: payload.requestedAt, consumedAt: new Date().toISOString() };
}
