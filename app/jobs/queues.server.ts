/**
 * Every BullMQ queue of the app, defined once (the job definitions are in ./definitions): the names, the
 * key prefix, one queue object per name and connection, and the functions that enqueue each kind of job.
 * Web requests and services enqueue on the shared fail-fast connection (app/redis.server.ts), so a
 * request never hangs on Redis; the worker passes its own blocking connection.
 */
import { Queue, type ConnectionOptions } from "bullmq";
import type { Redis } from "ioredis";
import { getEnv } from "~/env.server";
import { createRedis, getRequestRedis } from "~/redis.server";
import {
  deliverWebhookJob,
  HEALTH_QUEUE,
  MAINTENANCE_QUEUE,
  TRANSFER_QUEUE,
  transferJob,
  WEBHOOK_QUEUE,
  type DeliverWebhookPayload,
} from "./definitions";

export const QUEUE_NAMES = [HEALTH_QUEUE, MAINTENANCE_QUEUE, TRANSFER_QUEUE, WEBHOOK_QUEUE] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

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
  await queue(TRANSFER_QUEUE, connection).add(
    transferJob.names[job.kind],
    { shopId: job.shopId, jobId: job.id },
    { ...transferJob.options, jobId: job.id },
  );
}

/** Whether BullMQ holds the transfer job with this id, in any state (waiting, active, delayed, finished). */
export async function holdsTransferJob(jobId: string, connection?: Redis): Promise<boolean> {
  return (await queue(TRANSFER_QUEUE, connection).getJobState(jobId)) !== "unknown";
}

/** Queues one webhook delivery job (`options` add to or override the definition's, e.g. its id, attempts). */
export async function enqueueWebhookDelivery(
  data: DeliverWebhookPayload,
  options: { jobId: string; attempts?: number },
  connection?: Redis,
) {
  await queue(WEBHOOK_QUEUE, connection).add(deliverWebhookJob.name, data, {
    ...deliverWebhookJob.options,
    ...options,
  });
}
