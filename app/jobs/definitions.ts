import type { JobsOptions } from "bullmq";
import { z } from "zod";
import type { Env } from "~/env.server";

/**
 * Every kind of background job, declared once (docs/decisions/039-job-and-webhook-registries.md): its queue
 * and name, payload schema, attempts and backoff, how the worker consumes its queue, and whether the
 * maintenance sweep reconciles it. The queues (./queues.server.ts), the worker (worker/main.ts) and the
 * maintenance queue's schedules read this table; the worker binds each kind to its handler
 * (worker/handlers/index.ts), and a kind without one does not compile. How to add one: CONTRIBUTING.md.
 */
interface JobKind {
  /** The BullMQ queue: a kind's own, or MAINTENANCE_QUEUE for the scheduled housekeeping. */
  queue: string;
  /** The BullMQ job name (a kind with several names lists them by variant). */
  name: string | Record<string, string>;
  payload?: z.ZodType;
  /** A second job name on the kind's queue for work taken in batches, with its payload (webhook deliveries). */
  batchName?: string;
  batchPayload?: z.ZodType;
  /** Attempts, backoff and how long BullMQ keeps finished jobs. */
  options: JobsOptions;
  /** How the worker consumes a kind's own queue. */
  consumer?: {
    concurrency: (env: Env) => number;
    /** Jobs are locked for WORKER_LOCK_DURATION_MS (a longer run renews its lock). */
    locked?: boolean;
    /** Stalled jobs are looked for every min(lock, 30 s); one that stalled more often than this is given up. */
    maxStalledCount?: number;
  };
  /** Scheduled on the maintenance queue (BullMQ job schedulers: one schedule however many workers run). */
  schedule?: { schedulerId: string; everyMs: number };
  /**
   * The maintenance sweep reconciles it: every `everyMs`, what the database says is to do and BullMQ does
   * not hold (Redis lost it, or the request's add never came) is queued, once it is `olderThanMs` old.
   */
  sweep?: { everyMs: number; olderThanMs?: number };
  /** Its payload names a shop (`shopId`): the shop's jobs are removed with its data (`removeJobsOfShop`). */
  shopScoped?: boolean;
  /** How long after it is queued it runs (a burst of adds in that time shares one run). */
  delayMs?: number;
}

/**
 * The most deliveries of one shop in one batch job (docs/decisions/045-webhook-batching.md): large enough
 * that the queue's work is a small part of a delivery's, small enough that a shop's batches still
 * interleave with other shops' deliveries in priority order. A batch job naming more is refused.
 */
export const DELIVERY_BATCH_SIZE = 250;

/** Housekeeping on a schedule: the purges, and the sweeps of the kinds that declare one. */
export const MAINTENANCE_QUEUE = "maintenance";

const HOUSEKEEPING = { attempts: 3, removeOnComplete: 10, removeOnFail: 50 } as const;
const HOUR_MS = 60 * 60 * 1000;

export const JOBS = {
  /** Proves the worker is connected and consuming; it does no work. */
  health: {
    queue: "health",
    name: "health.ping",
    payload: z.object({ requestedAt: z.string() }),
    options: { attempts: 1, removeOnComplete: 100, removeOnFail: 100 },
    consumer: { concurrency: () => 1 },
  },

  /**
   * Webhook deliveries (issue 5): one job per event and endpoint, id `<event id>-<endpoint id>` so a relay
   * that runs twice over the same events adds nothing twice. The payload carries the exact envelope bytes,
   * so every attempt sends the same body. Retries follow the published schedule
   * (services/webhooks/schedule.ts); the outbox relay, not the sweep, queues again what Redis lost
   * (docs/decisions/025-queue-reconciliation.md).
   */
  webhookDelivery: {
    queue: "webhooks",
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
      /**
       * Queued again by the reconciliation pass: made only while the delivery is still owed with no more
       * attempts logged than this job counts (the lost job may have been running, and logged its attempt).
       */
      requeued: z.boolean().optional(),
    }),
    /**
     * The first attempts of several deliveries of one shop, queued by one relay pass as one job
     * (docs/decisions/045-webhook-batching.md). It names the deliveries only: the worker reads their events
     * and builds the envelopes, so Redis holds no event body for them. A delivery whose first attempt fails
     * goes on as a job of its own (`name`, id `<event id>-<endpoint id>`), as does every retry, redelivery
     * and re-queued delivery.
     */
    batchName: "webhook.deliver-batch",
    batchPayload: z.object({
      shopId: z.string(),
      deliveries: z
        .array(z.object({ eventId: z.string().min(1), endpointId: z.string().min(1) }))
        .min(1)
        .max(DELIVERY_BATCH_SIZE),
    }),
    /** Completed jobs are kept an hour: long enough for any relay re-run to find their ids and add nothing. */
    options: { removeOnComplete: { age: 3_600 }, removeOnFail: { age: 7 * 24 * 3_600 } },
    // A job whose worker died is taken up again; only a job that keeps killing workers is given up.
    consumer: { concurrency: (env) => env.WEBHOOK_CONCURRENCY, locked: true, maxStalledCount: 5 },
    shopScoped: true,
  },

  /**
   * Imports and exports (issue 6): one BullMQ job per TransferJob row, with the row's id as job id. A job
   * whose worker dies is run again whole; imports are idempotent and exports rewrite their file. The sweep
   * is the outbox's (docs/decisions/014-imports-exports.md): requests wait at most 3 s for their own add,
   * so a job younger than that may still be on its way.
   */
  transfer: {
    queue: "transfers",
    name: { import: "transfer.import", export: "transfer.export" },
    payload: z.object({ shopId: z.string(), jobId: z.string() }),
    options: {
      attempts: 3,
      backoff: { type: "exponential", delay: 5_000 },
      removeOnComplete: 100,
      removeOnFail: 500,
    },
    // A job whose worker died runs again; one that stopped its worker three times is given up (and its row
    // marked failed by the handler's watch).
    consumer: { concurrency: (env) => env.TRANSFER_CONCURRENCY, locked: true, maxStalledCount: 2 },
    sweep: { everyMs: 5_000, olderThanMs: 5_000 },
    shopScoped: true,
  },

  /**
   * The platform's compliance webhooks (docs/decisions/020-compliance-and-lifecycle.md): one job per
   * `ComplianceRequest` row, with the row's id as job id. Retried for hours: the platform expects the work
   * done within 30 days, and a failure is most often the database or the storage briefly down. The sweep
   * queues a row still `queued` that BullMQ does not hold (the webhook's add failed or the process died).
   */
  compliance: {
    queue: "compliance",
    name: "compliance.run",
    payload: z.object({ requestId: z.string() }),
    options: {
      attempts: 12,
      backoff: { type: "exponential", delay: 10_000 },
      removeOnComplete: 1_000,
      removeOnFail: 1_000,
    },
    consumer: { concurrency: () => 1, locked: true },
    sweep: { everyMs: 30_000, olderThanMs: 10_000 },
  },

  /**
   * The customer metafield sync (docs/decisions/023-customer-metafield-sync.md): one job per shop, id
   * `metafields-<shop id>`, added with a delay (METAFIELD_SYNC_DELAY_MS) so that the changes of a burst share
   * one run. Finished jobs are not kept: a kept job would make the next add with its id a no-op. The sweep
   * queues the shops with customers owing a write (Redis may have lost their job).
   */
  metafieldSync: {
    queue: "metafields",
    name: "metafields.sync",
    payload: z.object({ shopId: z.string() }),
    options: {
      attempts: 8,
      backoff: { type: "exponential", delay: 5_000 },
      removeOnComplete: true,
      removeOnFail: true,
    },
    // Per shop: a few shops' syncs at once, each paced by its own platform rate limit.
    consumer: { concurrency: () => 4, locked: true },
    sweep: { everyMs: 30_000 },
    shopScoped: true,
  },

  /**
   * Product snapshots (docs/decisions/022-product-snapshots.md): one job per shop fills the titles and
   * handles of the shop's items saved without a title, from the platform's Admin API. Saves queue it
   * `delayMs` later under the shop's deduplication id, so a burst of saves costs one job; a save while it
   * runs queues exactly one more (`keepLastIfActive`), and never two runs of one shop at once. Transient
   * failures are retried (`backoff` type `products`: the wait the platform asked for, else exponential from
   * 30 s). The sweep queues a shop holding items due for a lookup for `olderThanMs`.
   */
  productSnapshot: {
    queue: "products",
    name: "products.snapshot",
    payload: z.object({ shopId: z.string() }),
    delayMs: 3_000,
    options: {
      attempts: 6,
      backoff: { type: "products" },
      removeOnComplete: 100,
      removeOnFail: 500,
    },
    // Shops run side by side (one shop's runs never overlap: its jobs share a deduplication id).
    consumer: { concurrency: () => 4, locked: true },
    sweep: { everyMs: 60_000, olderThanMs: 60_000 },
    shopScoped: true,
  },

  /**
   * Wishlist alerts, reading (docs/decisions/050-wishlist-alerts.md): one job per shop reads again the saved
   * products the platform said changed (products/update, inventory_levels/update), a save's first reading,
   * or the reconciliation found stale, and makes the alerts. Deduplicated per shop like the snapshots, so
   * one shop's runs never overlap and a burst of webhooks costs one run. The sweep queues a shop whose
   * refresh requests wait longer than `olderThanMs` (Redis lost the job).
   */
  alertRefresh: {
    queue: "alerts",
    name: "alerts.refresh",
    payload: z.object({ shopId: z.string() }),
    delayMs: 1_000,
    options: {
      attempts: 6,
      backoff: { type: "platform" },
      removeOnComplete: 100,
      removeOnFail: 500,
    },
    consumer: { concurrency: () => 2, locked: true },
    sweep: { everyMs: 30_000, olderThanMs: 30_000 },
    shopScoped: true,
  },

  /**
   * Wishlist alerts, sending: one job per shop sends its due alert emails, paced to the shop's rate; the
   * database holds each message's state, so the sweep queues any shop with a message due that no job holds.
   */
  alertSend: {
    queue: "alert-emails",
    name: "alerts.send",
    payload: z.object({ shopId: z.string() }),
    options: { attempts: 3, backoff: { type: "exponential", delay: 5_000 }, removeOnComplete: true, removeOnFail: 100 },
    consumer: { concurrency: () => 4, locked: true, maxStalledCount: 5 },
    sweep: { everyMs: 15_000 },
    shopScoped: true,
  },

  /**
   * Wishlist reminders (docs/decisions/050-wishlist-alerts.md#reminders): one job per shop reminds customers of
   * the items they saved the shop's reminder delay ago and have not bought, reading on from where the shop's
   * last run stopped, a bounded amount a run (a run with more left queues the next). Deduplicated per shop
   * like the readings, so one shop's runs never overlap. The sweep is what schedules it: hourly, every
   * installed shop whose reminder rule is on is queued (a reminder's moment is a day: an hour is nothing).
   */
  alertRemind: {
    queue: "alert-reminders",
    name: "alerts.remind",
    payload: z.object({ shopId: z.string() }),
    options: {
      attempts: 3,
      backoff: { type: "exponential", delay: 30_000 },
      removeOnComplete: true,
      removeOnFail: 100,
    },
    consumer: { concurrency: () => 2, locked: true },
    sweep: { everyMs: HOUR_MS },
    shopScoped: true,
  },

  /**
   * Hourly: saved products not read for a day are read again (webhooks the platform never delivered), alerts
   * older than ALERT_RETENTION_DAYS are deleted with their messages, and readings nobody needs are dropped.
   */
  alertsMaintenance: {
    queue: MAINTENANCE_QUEUE,
    name: "alerts.maintenance",
    payload: z.object({ now: z.iso.datetime().optional() }),
    options: HOUSEKEEPING,
    schedule: { schedulerId: "alerts-maintenance-hourly", everyMs: HOUR_MS },
  },

  /** Expired idempotency keys and processed platform webhook ids are purged, webhook secrets resealed. */
  idempotencyPurge: {
    queue: MAINTENANCE_QUEUE,
    name: "idempotency.purge",
    options: HOUSEKEEPING,
    schedule: { schedulerId: "idempotency-purge-hourly", everyMs: HOUR_MS },
  },

  /**
   * The outbox keeps relayed events (and, through them, the webhook delivery log) for EVENT_RETENTION_DAYS;
   * older ones are deleted daily, in chunks.
   */
  eventsPurge: {
    queue: MAINTENANCE_QUEUE,
    name: "events.purge",
    options: HOUSEKEEPING,
    schedule: { schedulerId: "events-purge-daily", everyMs: 24 * HOUR_MS },
  },

  /**
   * Export files, import reports and uploads are deleted FILE_RETENTION_DAYS after their last use, hourly
   * (docs/decisions/021-retention-and-share-off.md). The schedule sends no payload; a job added by hand may
   * carry `now`, the clock the purge judges ages by (tests run it days ahead instead of waiting days).
   */
  filesPurge: {
    queue: MAINTENANCE_QUEUE,
    name: "files.purge",
    payload: z.object({ now: z.iso.datetime().optional() }),
    options: HOUSEKEEPING,
    schedule: { schedulerId: "files-purge-hourly", everyMs: HOUR_MS },
  },
} as const satisfies Record<string, JobKind>;

export type JobKindName = keyof typeof JOBS;
type Jobs = typeof JOBS;

/** The kinds the worker consumes on a queue of their own. */
export type ConsumedKind = { [K in JobKindName]: Jobs[K] extends { consumer: object } ? K : never }[JobKindName];
/** The kinds run on the maintenance queue's schedule. */
export type ScheduledKind = { [K in JobKindName]: Jobs[K] extends { schedule: object } ? K : never }[JobKindName];
/** The kinds the maintenance sweep reconciles. */
export type SweptKind = { [K in JobKindName]: Jobs[K] extends { sweep: object } ? K : never }[JobKindName];

const kinds = Object.keys(JOBS) as JobKindName[];

export const CONSUMED_KINDS = kinds.filter((kind): kind is ConsumedKind => "consumer" in JOBS[kind]);
export const SCHEDULED_KINDS = kinds.filter((kind): kind is ScheduledKind => "schedule" in JOBS[kind]);
export const SWEPT_KINDS = kinds.filter((kind): kind is SweptKind => "sweep" in JOBS[kind]);

/** Every queue: each consumed kind's, and the maintenance queue. */
export type QueueName = (typeof JOBS)[ConsumedKind]["queue"] | typeof MAINTENANCE_QUEUE;

/** A scheduled job of the maintenance queue. */
export interface ScheduledJob {
  name: string;
  schedulerId: string;
  everyMs: number;
  options: JobsOptions;
}

/**
 * The sweep of a kind: a maintenance job named `<queue>.sweep`, scheduled as `<queue>-sweep`, one attempt
 * (the next run comes within `everyMs` anyway).
 */
export function sweepJob(kind: SweptKind): ScheduledJob & { olderThanMs: number } {
  const { queue, sweep } = JOBS[kind];
  return {
    name: `${queue}.sweep`,
    schedulerId: `${queue}-sweep`,
    everyMs: sweep.everyMs,
    olderThanMs: "olderThanMs" in sweep ? sweep.olderThanMs : 0,
    options: { attempts: 1, removeOnComplete: 10, removeOnFail: 50 },
  };
}

/** What the worker schedules on the maintenance queue: the scheduled kinds and the sweeps. */
export const SCHEDULED_JOBS: ScheduledJob[] = [
  ...SCHEDULED_KINDS.map((kind) => ({ name: JOBS[kind].name, ...JOBS[kind].schedule, options: JOBS[kind].options })),
  ...SWEPT_KINDS.map(sweepJob),
];

export type DeliverWebhookPayload = z.infer<typeof JOBS.webhookDelivery.payload>;
export type DeliverWebhookBatchPayload = z.infer<typeof JOBS.webhookDelivery.batchPayload>;
export type TransferJobPayload = z.infer<typeof JOBS.transfer.payload>;
