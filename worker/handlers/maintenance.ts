import type { Job } from "bullmq";
import type { Redis } from "ioredis";
import { getEnv } from "../../app/env.server";
import {
  purgeEventsJob,
  purgeFilesJob,
  purgeIdempotencyJob,
  sweepComplianceRequestsJob,
  sweepMetafieldsJob,
  sweepProductSnapshotsJob,
  sweepTransferJobsJob,
} from "../../app/jobs/definitions";
import { enqueueMetafieldSync } from "../../app/jobs/queues.server";
import { logger } from "../../app/logger.server";
import { queueStrandedComplianceRequests } from "../../app/services/compliance/compliance.server";
import { purgeRelayedEvents } from "../../app/services/events/retention.server";
import { shopsOwingMetafields } from "../../app/services/metafields/customer-metafields.server";
import { queueDueProductSnapshots } from "../../app/services/products/snapshots.server";
import { purgeExpiredIdempotencyKeys } from "../../app/services/idempotency/idempotency.server";
import { purgeProcessedPlatformWebhooks } from "../../app/services/shops/platform-webhook-ledger.server";
import { purgeExpiredFiles } from "../../app/services/transfers/file-retention.server";
import { queueStrandedTransferJobs } from "../../app/services/transfers/jobs.server";
import { resealEndpointSecrets } from "../../app/services/webhooks/endpoint-secrets.server";
import { JobFailed, runJob } from "../outcomes";

/**
 * The maintenance queue's scheduled jobs: purges (idempotency keys, events, expired transfer files),
 * resealing webhook secrets after a rotation, and the sweeps that queue what the database says is to do and
 * BullMQ does not hold: accepted imports and exports, compliance requests, owed metafield writes, product
 * snapshot runs (on the worker's `connection`).
 */
export function handleMaintenanceJob(job: Job, connection?: Redis) {
  return runJob(() => maintain(job, connection));
}

async function maintain(job: Job, connection?: Redis) {
  if (job.name === sweepTransferJobsJob.name) {
    const createdBefore = new Date(Date.now() - sweepTransferJobsJob.olderThanMs);
    const queued = await queueStrandedTransferJobs({ createdBefore, connection });
    // Quiet when there is nothing to do: it runs every few seconds.
    if (queued.length > 0) {
      logger.warn(
        { jobIds: queued, count: queued.length },
        "transfer jobs queued by the sweep (not queued when accepted)",
      );
    }
    return { queued: queued.length };
  }
  if (job.name === sweepComplianceRequestsJob.name) {
    const receivedBefore = new Date(Date.now() - sweepComplianceRequestsJob.olderThanMs);
    const queued = await queueStrandedComplianceRequests({ receivedBefore, connection });
    if (queued.length > 0) {
      logger.warn({ requestIds: queued }, "compliance requests queued by the sweep (not queued when received)");
    }
    return { queued: queued.length };
  }
  if (job.name === sweepMetafieldsJob.name) {
    // A shop whose job is waiting gets no second one (its id is the shop's); any other is queued at once.
    const shops = await shopsOwingMetafields();
    await enqueueMetafieldSync(shops, { delayMs: 0, connection });
    return { shops: shops.length };
  }
  if (job.name === sweepProductSnapshotsJob.name) {
    const dueBefore = new Date(Date.now() - sweepProductSnapshotsJob.olderThanMs);
    const shopIds = await queueDueProductSnapshots({ dueBefore, connection });
    if (shopIds.length > 0) {
      logger.warn({ shopIds }, "product snapshot runs queued by the sweep (lookups left due)");
    }
    return { queued: shopIds.length, shopIds };
  }
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
  if (job.name === purgeFilesJob.name) {
    const { now } = purgeFilesJob.payload.parse(job.data ?? {});
    const purged = await purgeExpiredFiles({ now: now ? new Date(now) : new Date() });
    // A file whose deletion failed stays for the next run; failing the job would only delete the others again.
    const log = purged.failed > 0 ? logger.warn.bind(logger) : logger.info.bind(logger);
    log({ jobId: job.id, ...purged, days: getEnv().FILE_RETENTION_DAYS }, "expired transfer files deleted");
    return { results: purged.results, uploads: purged.uploads, failed: purged.failed };
  }
  throw new JobFailed(`unknown maintenance job ${job.name}`, null);
}
