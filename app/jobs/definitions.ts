import { z } from "zod";

/**
 * Job definitions: name, payload schema and retry policy, apart from the handlers in worker/.
 * The health job proves the worker is connected and consuming; it does no work.
 */
export const HEALTH_QUEUE = "health";

export const healthJob = {
  name: "health.ping",
  payload: z.object({ requestedAt: z.string() }),
  options: { attempts: 1, removeOnComplete: 100, removeOnFail: 100 },
} as const;

/** Housekeeping on a schedule (BullMQ job schedulers: one schedule however many workers run). */
export const MAINTENANCE_QUEUE = "maintenance";

export const purgeIdempotencyJob = {
  name: "idempotency.purge",
  schedulerId: "idempotency-purge-hourly",
  everyMs: 60 * 60 * 1000,
  options: { attempts: 3, removeOnComplete: 10, removeOnFail: 50 },
} as const;

/**
 * The outbox keeps relayed events (and, through them, the webhook delivery log) for EVENT_RETENTION_DAYS;
 * older ones are deleted daily, in chunks.
 */
export const purgeEventsJob = {
  name: "events.purge",
  schedulerId: "events-purge-daily",
  everyMs: 24 * 60 * 60 * 1000,
  options: { attempts: 3, removeOnComplete: 10, removeOnFail: 50 },
} as const;

/**
 * Export files, import reports and uploads are deleted FILE_RETENTION_DAYS after their last use, hourly
 * (docs/decisions/021-retention-and-share-off.md). The schedule sends no payload; a job added by hand may
 * carry `now`, the clock the purge judges ages by (tests run it days ahead instead of waiting days).
 */
export const purgeFilesJob = {
  name: "files.purge",
  schedulerId: "files-purge-hourly",
  everyMs: 60 * 60 * 1000,
  payload: z.object({ now: z.iso.datetime().optional() }),
  options: { attempts: 3, removeOnComplete: 10, removeOnFail: 50 },
} as const;

/**
 * The outbox sweep of imports and exports: a job whose row committed but that BullMQ does not hold (Redis
 * refused or did not answer the request's add, or the web process died before it) is queued by the worker
 * once its row is `olderThanMs` old (docs/decisions/014-imports-exports.md). Requests wait at most 3 s for
 * their own add, so a job younger than that may still be on its way.
 */
export const sweepTransferJobsJob = {
  name: "transfers.sweep",
  schedulerId: "transfers-sweep",
  everyMs: 5_000,
  olderThanMs: 5_000,
  options: { attempts: 1, removeOnComplete: 10, removeOnFail: 50 },
} as const;

/**
 * The compliance outbox's sweep: a `ComplianceRequest` row still `queued` that BullMQ does not hold (the
 * webhook's add failed or the web process died first) is queued by the worker once `olderThanMs` old.
 */
export const sweepComplianceRequestsJob = {
  name: "compliance.sweep",
  schedulerId: "compliance-sweep",
  everyMs: 30_000,
  olderThanMs: 10_000,
  options: { attempts: 1, removeOnComplete: 10, removeOnFail: 50 },
} as const;

/**
 * The product snapshots' sweep (docs/decisions/022-product-snapshots.md): a shop holding items due for a
 * lookup for `olderThanMs` (the save's own job was lost with Redis, or never queued) gets its job queued.
 */
export const sweepProductSnapshotsJob = {
  name: "products.sweep",
  schedulerId: "products-sweep",
  everyMs: 60_000,
  olderThanMs: 60_000,
  options: { attempts: 1, removeOnComplete: 10, removeOnFail: 50 },
} as const;

/**
 * The platform's compliance webhooks (docs/decisions/020-compliance-and-lifecycle.md): one job per
 * `ComplianceRequest` row, with the row's id as job id. Retried for hours: the platform expects the work
 * done within 30 days, and a failure is most often the database or the storage briefly down.
 */
export const COMPLIANCE_QUEUE = "compliance";

export const COMPLIANCE_TOPICS = ["customers/data_request", "customers/redact", "shop/redact"] as const;
export type ComplianceTopic = (typeof COMPLIANCE_TOPICS)[number];

export const complianceJob = {
  name: "compliance.run",
  payload: z.object({ requestId: z.string() }),
  options: {
    attempts: 12,
    backoff: { type: "exponential", delay: 10_000 },
    removeOnComplete: 1_000,
    removeOnFail: 1_000,
  },
} as const;

/**
 * Webhook deliveries (issue 5): one job per event and endpoint, id `<event id>-<endpoint id>` so a relay
 * that runs twice over the same events adds nothing twice. The payload carries the exact envelope bytes,
 * so every attempt sends the same body. Retries follow the published schedule (services/webhooks/schedule.ts).
 */
export const WEBHOOK_QUEUE = "webhooks";

export const deliverWebhookJob = {
  name: "webhook.deliver",
  payload: z.object({
    shopId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    endpointId: z.string(),
    body: z.string(),
    /**
     * Attempts made before this job: set when the relay queues again a delivery whose job Redis lost
     * (docs/decisions/025-queue-reconciliation.md), so the retry schedule and the log numbering go on.
     */
    attemptsBefore: z.number().int().min(0).optional(),
    /** A redelivery the merchant asked for: one attempt outside the delivery's own schedule. */
    redelivery: z.boolean().optional(),
  }),
  /** Completed jobs are kept an hour: long enough for any relay re-run to find their ids and add nothing. */
  options: { removeOnComplete: { age: 3_600 }, removeOnFail: { age: 7 * 24 * 3_600 } },
} as const;

export type DeliverWebhookPayload = z.infer<typeof deliverWebhookJob.payload>;

/**
 * Imports and exports (issue 6): one BullMQ job per TransferJob row, with the row's id as job id. A job
 * whose worker dies is run again whole; imports are idempotent and exports rewrite their file.
 */
export const TRANSFER_QUEUE = "transfers";

export const transferJob = {
  names: { import: "transfer.import", export: "transfer.export" },
  payload: z.object({ shopId: z.string(), jobId: z.string() }),
  options: {
    attempts: 3,
    backoff: { type: "exponential", delay: 5_000 },
    removeOnComplete: 100,
    removeOnFail: 500,
  },
} as const;

export type TransferJobPayload = z.infer<typeof transferJob.payload>;

/**
 * Product snapshots (docs/decisions/022-product-snapshots.md): one job per shop fills the titles and handles
 * of the shop's items saved without a title, from the platform's Admin API. Saves queue it `delayMs` later
 * under the shop's deduplication id, so a burst of saves costs one job; a save while it runs queues exactly
 * one more (`keepLastIfActive`), and never two runs of one shop at once. Transient failures are retried
 * (`backoff` type `products`: the wait the platform asked for, else exponential from 30 s).
 */
export const PRODUCT_QUEUE = "products";

export const productSnapshotJob = {
  name: "products.snapshot",
  payload: z.object({ shopId: z.string() }),
  delayMs: 3_000,
  options: {
    attempts: 6,
    backoff: { type: "products" },
    removeOnComplete: 100,
    removeOnFail: 500,
  },
} as const;

/**
 * The customer metafield sync (docs/decisions/023-customer-metafield-sync.md): one job per shop, id
 * `metafields-<shop id>`, added with a delay (METAFIELD_SYNC_DELAY_MS) so that the changes of a burst share
 * one run. Finished jobs are not kept: a kept job would make the next add with its id a no-op.
 */
export const METAFIELD_QUEUE = "metafields";

export const syncMetafieldsJob = {
  name: "metafields.sync",
  payload: z.object({ shopId: z.string() }),
  jobId: (shopId: string) => `metafields-${shopId}`,
  options: {
    attempts: 8,
    backoff: { type: "exponential", delay: 5_000 },
    removeOnComplete: true,
    removeOnFail: true,
  },
} as const;

/** The metafield sync's sweep: shops with customers owing a write get their job (Redis may have lost it). */
export const sweepMetafieldsJob = {
  name: "metafields.sweep",
  schedulerId: "metafields-sweep",
  everyMs: 30_000,
  options: { attempts: 1, removeOnComplete: 10, removeOnFail: 50 },
} as const;
