import type { Job } from "bullmq";
import { getEnv } from "../../app/env.server";
import { purgeEventsJob, purgeIdempotencyJob } from "../../app/jobs/definitions";
import { logger } from "../../app/logger.server";
import { purgeRelayedEvents } from "../../app/services/events/retention.server";
import { purgeExpiredIdempotencyKeys } from "../../app/services/idempotency/idempotency.server";
import { purgeProcessedPlatformWebhooks } from "../../app/services/shops/shops.server";
import { resealEndpointSecrets } from "../../app/services/webhooks/endpoint-secrets.server";
import { JobFailed, runJob } from "../outcomes";

/** The maintenance queue's scheduled jobs: purges, and resealing webhook secrets after a rotation. */
export function handleMaintenanceJob(job: Job) {
  return runJob(() => maintain(job));
}

async function maintain(job: Job) {
  if (job.name === purgeIdempotencyJob.name) {
    const purged = await purgeExpiredIdempotencyKeys();
    // Processed platform webhook ids (replay protection) expire on the same hourly schedule.
    const platformWebhooks = await purgeProcessedPlatformWebhooks();
    // Webhook secrets still sealed under SERVICE_SECRET_PREVIOUS (or in the first `v1.` form) are sealed again
    // under SERVICE_SECRET, so within an hour of a rotation the previous secret can go
    // (docs/decisions/013-webhook-delivery.md).
    const secrets = await resealEndpointSecrets();
    if (secrets.unreadable > 0) {
      logger.warn(
        { jobId: job.id, unreadable: secrets.unreadable },
        "webhook secrets that decrypt under neither SERVICE_SECRET nor SERVICE_SECRET_PREVIOUS: those endpoints cannot sign deliveries",
      );
    }
    logger.info(
      { jobId: job.id, purged, platformWebhooks, resealedSecrets: secrets.resealed },
      "expired idempotency keys and platform webhook ids purged, webhook secrets resealed",
    );
    return { purged, platformWebhooks, secrets };
  }
  if (job.name === purgeEventsJob.name) {
    const days = getEnv().EVENT_RETENTION_DAYS;
    const purged = await purgeRelayedEvents({ relayedBefore: new Date(Date.now() - days * 24 * 60 * 60 * 1000) });
    logger.info({ jobId: job.id, purged, days }, "relayed events and their delivery log purged");
    return { purged };
  }
  throw new JobFailed(`unknown maintenance job ${job.name}`, null);
}
