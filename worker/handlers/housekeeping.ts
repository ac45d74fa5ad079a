/**
 * The maintenance queue's scheduled purges: idempotency keys and processed platform webhook ids (with the
 * resealing of webhook secrets after a rotation), relayed events, expired transfer files.
 */
import type { Job } from "bullmq";
import { getEnv } from "~/env.server";
import { JOBS } from "~/jobs/definitions";
import { logger } from "~/logger.server";
import { purgeRelayedEvents } from "~/services/events/retention.server";
import { purgeExpiredIdempotencyKeys } from "~/services/idempotency/idempotency.server";
import { purgeProcessedPlatformWebhooks } from "~/services/shops/platform-webhook-ledger.server";
import { purgeExpiredFiles } from "~/services/transfers/file-retention.server";
import { resealEndpointSecrets } from "~/services/webhooks/endpoint-secrets.server";
import type { JobHandler } from "../job-handler";

export const idempotencyPurge = {
  run: async (job: Job) => {
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
  },
} satisfies JobHandler<"idempotencyPurge">;

export const eventsPurge = {
  run: async (job: Job) => {
    const days = getEnv().EVENT_RETENTION_DAYS;
    const purged = await purgeRelayedEvents({ relayedBefore: new Date(Date.now() - days * 24 * 60 * 60 * 1000) });
    logger.info({ jobId: job.id, purged, days }, "relayed events and their delivery log purged");
    return { purged };
  },
} satisfies JobHandler<"eventsPurge">;

export const filesPurge = {
  run: async (job: Job) => {
    const { now } = JOBS.filesPurge.payload.parse(job.data ?? {});
    const purged = await purgeExpiredFiles({ now: now ? new Date(now) : new Date() });
    // A file whose deletion failed stays for the next run; failing the job would only delete the others again.
    const log = purged.failed > 0 ? logger.warn.bind(logger) : logger.info.bind(logger);
    log({ jobId: job.id, ...purged, days: getEnv().FILE_RETENTION_DAYS }, "expired transfer files deleted");
    return { results: purged.results, uploads: purged.uploads, failed: purged.failed };
  },
} satisfies JobHandler<"filesPurge">;
