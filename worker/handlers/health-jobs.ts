/** The health queue's job: proves the worker is connected and consuming; it does no work. */
import type { Job } from "bullmq";
import { JOBS } from "~/jobs/definitions";
import { logger } from "~/logger.server";
import type { JobHandler } from "../job-handler";

async function handleHealthJob(job: Job) {
  const payload = JOBS.health.payload.parse(job.data);
  logger.info({ jobId: job.id, requestedAt: payload.requestedAt }, "health job consumed");
  return { ok: true, requestedAt: payload.requestedAt, consumedAt: new Date().toISOString() };
}

export const healthJobs = { consume: () => ({ run: handleHealthJob }) } satisfies JobHandler<"health">;
