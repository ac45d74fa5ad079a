import type { Job } from "bullmq";
import { getEnv } from "../../app/env.server";
import { purgeEventsJob, purgeIdempotencyJob } from "../../app/jobs/definitions";
import { logger } from "../../app/logger.server";
import { purgeRelayedEvents } from "../../app/services/events/retention.server";
import { purgeExpiredIdempotencyKeys } from "../../app/services/idempotency/idempotency.server";
import { purgeProcessedPlatformWebhooks } from "../../app/services/shops/shops.server";

export async function handleMaintenanceJob(job: Job) {
  if (job.name === purgeIdempotencyJob.name) {
    const purged = await purgeExpiredIdempotencyKeys();
    // Processed platform webhook ids (replay protection) expire on the same hourly schedule.
    const platformWebhooks = await purgeProcessedPlatformWebhooks();
    logger.info(
      { jobId: job.id, purged, platformWebhooks },
      "expired idempotency keys and platform webhook ids purged",
    );
    return { purged, platformWebhooks };
  }
  if (job.name === purgeEventsJob.name) {
    const days = getEnv().EVENT_RETENTION_DAYS;
    const purged = await purgeRelayedEvents({ relayedBefore: new Date(Date.now() - days * 24 * 60 * 60 * 1000) });
    logger.info({ jobId: job.id, purged, days }, "relayed events and their delivery log purged");
    return { purged };
  }
  throw new Error(`unknown maintenance job ${job.name}`);
}
