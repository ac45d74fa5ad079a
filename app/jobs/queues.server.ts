/**
 * Every BullMQ queue of the app, as the job table (./definitions) declares them: the key prefix, one queue
 * object per name and connection, and the functions that enqueue each kind of job.
 * Web requests and services enqueue on the shared fail-fast connection (app/redis.server.ts), so a
 * request never hangs on Redis; the worker passes its own blocking connection.
 */
import { Queue, type ConnectionOptions } from "bullmq";
import type { Redis } from "ioredis";
import { getEnv } from "~/env.server";
import { createRedis, getRequestRedis } from "~/redis.server";
import { JOBS, type DeliverWebhookPayload, type JobKindName, type QueueName } from "./definitions";

const SHOP_SCOPED_KINDS = (Object.keys(JOBS) as JobKindName[]).filter((kind) => "shopScoped" in JOBS[kind]);

/** BullMQ keys live under the configured prefix, so tests and several apps can share one Redis. */
export function queuePrefix(): string {
  return `${getEnv().REDIS_PREFIX}:bull`;
}

/** A queue object of its own (the caller closes it); tests and the worker's schedulers use one. */
export function createQueue(name: QueueName, connection: ConnectionOptions = createRedis("request")): Queue {
  return new Queue(name, { connection, prefix: queuePrefix() });
}

const held = new WeakMap<Redis, Map<QueueName, Queue>>();

/**
 * The process's queue of this name on `connection` (by default the shared request connection): made
 * once per connection and kept, so enqueueing costs no setup. It closes with its connection.
 */
export function queue(name: QueueName, connection: Redis = getRequestRedis()): Queue {
  let queues = held.get(connection);
  if (!queues) held.set(connection, (queues = new Map()));
  let found = queues.get(name);
  if (!found) queues.set(name, (found = createQueue(name, connection)));
  return found;
}

/**
 * Queues an import or export; the BullMQ job id is the TransferJob row's id, so adding a job BullMQ holds
 * already (the request's own add and the worker's sweep, or two sweeps) adds nothing.
 */
export async function enqueueTransferJob(
  job: { id: string; shopId: string; kind: "import" | "export" },
  connection?: Redis,
) {
  await queue(JOBS.transfer.queue, connection).add(
    JOBS.transfer.name[job.kind],
    { shopId: job.shopId, jobId: job.id },
    { ...JOBS.transfer.options, jobId: job.id },
  );
}

/** The state of the transfer job with this id in BullMQ (`unknown`: BullMQ does not hold it). */
export async function transferJobState(jobId: string, connection?: Redis) {
  return queue(JOBS.transfer.queue, connection).getJobState(jobId);
}

/** Whether BullMQ holds the transfer job with this id, in any state (waiting, active, delayed, finished). */
export async function holdsTransferJob(jobId: string, connection?: Redis): Promise<boolean> {
  return (await transferJobState(jobId, connection)) !== "unknown";
}

/** Queues one webhook delivery job (`options` add to or override the definition's, e.g. its id, attempts). */
export async function enqueueWebhookDelivery(
  data: DeliverWebhookPayload,
  options: { jobId: string; attempts?: number; priority?: number; removeOnComplete?: boolean; removeOnFail?: boolean },
  connection?: Redis,
) {
  await queue(JOBS.webhookDelivery.queue, connection).add(JOBS.webhookDelivery.name, data, {
    ...JOBS.webhookDelivery.options,
    ...options,
  });
}

/** Queues a compliance request's work; the job id is the row's id, so a second add adds nothing. */
export async function enqueueComplianceJob(request: { id: string; topic: string }, connection?: Redis) {
  await queue(JOBS.compliance.queue, connection).add(
    JOBS.compliance.name,
    { requestId: request.id },
    { ...JOBS.compliance.options, jobId: request.id },
  );
}

const productDeduplicationId = (shopId: string) => `products-${shopId}`;

/**
 * Queues the shop's product snapshot job `JOBS.productSnapshot.delayMs` from now, deduplicated per shop: while
 * one waits, adding changes nothing; while one runs, one more is kept to run after it.
 */
export async function enqueueProductSnapshots(shopId: string, connection?: Redis) {
  await queue(JOBS.productSnapshot.queue, connection).add(
    JOBS.productSnapshot.name,
    { shopId },
    {
      ...JOBS.productSnapshot.options,
      delay: JOBS.productSnapshot.delayMs,
      deduplication: { id: productDeduplicationId(shopId), keepLastIfActive: true },
    },
  );
}

const alertRefreshDeduplicationId = (shopId: string) => `alerts-${shopId}`;
const alertSendDeduplicationId = (shopId: string) => `alert-emails-${shopId}`;
const alertRemindDeduplicationId = (shopId: string) => `alert-reminders-${shopId}`;

/** Queues the shop's alerts reading `JOBS.alertRefresh.delayMs` from now, deduplicated per shop as the snapshots are. */
export async function enqueueAlertRefresh(shopId: string, connection?: Redis) {
  await queue(JOBS.alertRefresh.queue, connection).add(
    JOBS.alertRefresh.name,
    { shopId },
    {
      ...JOBS.alertRefresh.options,
      delay: JOBS.alertRefresh.delayMs,
      deduplication: { id: alertRefreshDeduplicationId(shopId), keepLastIfActive: true },
    },
  );
}

/** Queues the shop's alert sender `delayMs` from now, deduplicated per shop: one sender of a shop at a time. */
export async function enqueueAlertSend(shopId: string, delayMs: number, connection?: Redis) {
  await queue(JOBS.alertSend.queue, connection).add(
    JOBS.alertSend.name,
    { shopId },
    {
      ...JOBS.alertSend.options,
      delay: delayMs,
      deduplication: { id: alertSendDeduplicationId(shopId), keepLastIfActive: true },
    },
  );
}

/** Queues the shop's reminders run, deduplicated per shop: one run of a shop at a time, one more kept after it. */
export async function enqueueAlertRemind(shopId: string, connection?: Redis) {
  await queue(JOBS.alertRemind.queue, connection).add(
    JOBS.alertRemind.name,
    { shopId },
    {
      ...JOBS.alertRemind.options,
      deduplication: { id: alertRemindDeduplicationId(shopId), keepLastIfActive: true },
    },
  );
}

/** Whether BullMQ holds the compliance job with this id, in any state. */
export async function holdsComplianceJob(requestId: string, connection?: Redis): Promise<boolean> {
  return (await queue(JOBS.compliance.queue, connection).getJobState(requestId)) !== "unknown";
}

/**
 * Queues the metafield sync of these shops after `delayMs` (by default METAFIELD_SYNC_DELAY_MS). The job id
 * is the shop's, so a shop whose job is already waiting gets no second one: the waiting run takes the new
 * changes too.
 */
export async function enqueueMetafieldSync(
  shopIds: readonly string[],
  { delayMs = getEnv().METAFIELD_SYNC_DELAY_MS, connection }: { delayMs?: number; connection?: Redis } = {},
) {
  if (shopIds.length === 0) return;
  await queue(JOBS.metafieldSync.queue, connection).addBulk(
    [...new Set(shopIds)].map((shopId) => ({
      name: JOBS.metafieldSync.name,
      data: { shopId },
      opts: { ...JOBS.metafieldSync.options, jobId: `metafields-${shopId}`, delay: delayMs },
    })),
  );
}

/**
 * Replaces the body of the delivery jobs BullMQ still holds for these events and endpoints (waiting,
 * delayed, retrying, or kept after finishing), so a later attempt sends the new bytes and Redis keeps no
 * copy of the old ones. Returns how many jobs it rewrote.
 */
export async function rewriteDeliveryBodies(
  deliveries: ReadonlyArray<{ eventId: string; endpointId: string; body: string }>,
  connection?: Redis,
): Promise<number> {
  const webhooks = queue(JOBS.webhookDelivery.queue, connection);
  let rewritten = 0;
  for (const delivery of deliveries) {
    const job = await webhooks.getJob(`${delivery.eventId}-${delivery.endpointId}`);
    if (!job) continue;
    await job.updateData({ ...(job.data as DeliverWebhookPayload), body: delivery.body });
    rewritten += 1;
  }
  return rewritten;
}

/** `work`, or a rejection once `ms` have passed (the work itself goes on; its outcome is then ignored). */
export async function withinMs(ms: number, work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the job queue within ${ms} ms`)), ms);
  });
  work.catch(() => {}); // a late failure after the timeout is not an unhandled rejection
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Removes the jobs of one shop that BullMQ holds on the queues of the shop-scoped kinds (waiting,
 * delayed, retrying, or kept after finishing), a page at a time, and the shop's product deduplication key;
 * a job running right now is left to finish (its shop's rows are gone, so it does nothing) and expires
 * with the rest. Returns how many it removed.
 */
export async function removeJobsOfShop(shopId: string, connection?: Redis): Promise<number> {
  let removed = 0;
  await queue(JOBS.productSnapshot.queue, connection).removeDeduplicationKey(productDeduplicationId(shopId));
  await queue(JOBS.alertRefresh.queue, connection).removeDeduplicationKey(alertRefreshDeduplicationId(shopId));
  await queue(JOBS.alertSend.queue, connection).removeDeduplicationKey(alertSendDeduplicationId(shopId));
  await queue(JOBS.alertRemind.queue, connection).removeDeduplicationKey(alertRemindDeduplicationId(shopId));
  for (const kind of SHOP_SCOPED_KINDS) {
    const held = queue(JOBS[kind].queue, connection);
    for (const state of ["waiting", "delayed", "prioritized", "failed", "completed"] as const) {
      const PAGE = 500;
      for (let start = 0; ; start += PAGE) {
        const jobs = await held.getJobs([state], start, start + PAGE - 1, true);
        const theirs = jobs.filter((job) => (job?.data as { shopId?: string } | undefined)?.shopId === shopId);
        for (const job of theirs) {
          try {
            await job.remove();
            removed += 1;
          } catch {
            // Taken by a worker between the page and the removal: it finds no rows and ends.
          }
        }
        // Removals shift the pages: the next page starts where this one's survivors end.
        start -= theirs.length;
        if (jobs.length < PAGE) break;
      }
    }
  }
  return removed;
}
