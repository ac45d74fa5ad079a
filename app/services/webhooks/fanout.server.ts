/**
 * The relay's fan-out (docs/webhooks.md, docs/decisions/013-webhook-delivery.md): every outbox event
 * becomes one delivery per subscribed, enabled endpoint of its shop; a shop's deliveries of one relay pass
 * are queued as batch jobs (docs/decisions/045-webhook-batching.md), all added to the queue at once.
 */
import type { Queue } from "bullmq";
import { database } from "~/data/database.server";
import {
  countDueDeliveriesByShop,
  type DueDelivery,
  type findOverdueDeliveries,
} from "~/data/webhook-delivery-due-rows.server";
import { findEnabledEndpointsOfShops } from "~/data/webhook-endpoint-rows.server";
import {
  DELIVERY_BATCH_SIZE,
  JOBS,
  type DeliverWebhookBatchPayload,
  type DeliverWebhookPayload,
} from "~/jobs/definitions";
import { isRedactedEventData, REDACTED_EVENT_DATA } from "~/services/events/redacted-events";
import type { StoredEvent } from "~/services/events/relay.server";
import { WEBHOOK_ATTEMPTS } from "./schedule";

/**
 * The POST body, the envelope described in docs/webhooks.md: built once per event so every delivery (and
 * a redelivery) sends the same bytes.
 */
export function envelope(event: StoredEvent, shopDomain: string): string {
  return (
    `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"shopDomain":${JSON.stringify(shopDomain)},` +
    `"createdAt":${JSON.stringify(event.createdAt.toISOString())},"data":${event.data}}`
  );
}

/** Whether an envelope is that of an event a customers/redact erased (docs/decisions/028-redacted-events.md). */
export function isRedactedEnvelope(body: string): boolean {
  return body.endsWith(`,"data":${REDACTED_EVENT_DATA}}`);
}

function deliveryJobId(eventId: string, endpointId: string): string {
  return `${eventId}-${endpointId}`;
}

function jobOptions(eventId: string, endpointId: string, attemptsBefore: number, priority: number) {
  return {
    ...JOBS.webhookDelivery.options,
    jobId: deliveryJobId(eventId, endpointId),
    attempts: WEBHOOK_ATTEMPTS - attemptsBefore,
    backoff: { type: "webhook" },
    priority,
  };
}

/** BullMQ's largest priority number (the lowest precedence it can express). */
export const LOWEST_PRIORITY = 2_097_151;

/**
 * Fair order between shops (docs/decisions/026-fairness-between-shops.md): each new delivery of a shop is
 * queued with priority n when it is the shop's n-th owed delivery, counting what the shop is owed already.
 * BullMQ hands out lower numbers first, so every shop's first owed delivery goes before any shop's second:
 * a shop with a backlog of thousands (a burst, endpoints that fail or answer slowly) queues behind a
 * quiet shop's next delivery instead of in front of it. Within a shop the order stays first in, first out.
 */
export async function shopPriorities(shopIds: readonly string[]): Promise<(shopId: string) => number> {
  const owed = await countDueDeliveriesByShop(database(), shopIds);
  return (shopId) => {
    const position = (owed.get(shopId) ?? 0) + 1;
    owed.set(shopId, position);
    return Math.min(position, LOWEST_PRIORITY);
  };
}

interface QueuedJob {
  name: string;
  data: object;
  opts: object;
}

/**
 * The deliveries of one relay pass as jobs: a shop's deliveries in batch jobs of up to DELIVERY_BATCH_SIZE
 * (first attempts only; each names its deliveries, the worker reads their events). A shop with one delivery
 * in the pass gets a batch of one: every first attempt goes through the batch's lease, so two relays whose
 * passes overlap (two workers) send a delivery once, whichever way each pass grouped it. A batch's id is that
 * of its first delivery and its size; a delivery's own id (`<event>-<endpoint>`) is left to the jobs that
 * carry it on (its retries, the reconciliation pass).
 */
function deliveryJobs(
  deliveries: Array<{ event: StoredEvent; endpointId: string; body: string }>,
  priority: (shopId: string) => number,
): QueuedJob[] {
  const byShop = new Map<string, typeof deliveries>();
  for (const delivery of deliveries) {
    const shop = byShop.get(delivery.event.shopId) ?? [];
    shop.push(delivery);
    byShop.set(delivery.event.shopId, shop);
  }
  const jobs: QueuedJob[] = [];
  for (const [shopId, shop] of byShop) {
    for (let start = 0; start < shop.length; start += DELIVERY_BATCH_SIZE) {
      const chunk = shop.slice(start, start + DELIVERY_BATCH_SIZE);
      // Positions are taken for every delivery of the chunk: the shop's next batch starts behind all of them.
      const positions = chunk.map(() => priority(shopId));
      const first = chunk[0]!;
      const data: DeliverWebhookBatchPayload = {
        shopId,
        deliveries: chunk.map(({ event, endpointId }) => ({ eventId: event.id, endpointId })),
      };
      jobs.push({
        name: JOBS.webhookDelivery.batchName,
        data,
        opts: {
          ...JOBS.webhookDelivery.options,
          jobId: `batch-${first.event.id}-${first.endpointId}-${chunk.length}`,
          // A batch that fails as a whole (the database down before any attempt) is run again on the schedule.
          attempts: WEBHOOK_ATTEMPTS,
          backoff: { type: "webhook" },
          priority: positions[0]!,
        },
      });
    }
  }
  return jobs;
}

/**
 * The delivery jobs of one relay pass: one per event and subscribed, enabled endpoint of the event's shop
 * (a `ping` goes to the endpoint it names only), gathered per shop into batch jobs (above), added in one
 * call. Idempotent by job id. Events of a deleted shop (shop/redact) have no endpoints and deliver nothing.
 * Returns the deliveries it queued, for the relay to record as owed
 * (docs/decisions/025-queue-reconciliation.md).
 */
export async function fanOutEvents(queue: Queue, events: StoredEvent[]): Promise<DueDelivery[]> {
  const shopIds = [...new Set(events.map((event) => event.shopId))];
  const endpoints = (await findEnabledEndpointsOfShops(database(), shopIds)).map((endpoint) => ({
    ...endpoint,
    types: new Set(JSON.parse(endpoint.events) as string[]),
  }));
  const byShop = new Map<string, typeof endpoints>();
  for (const endpoint of endpoints) byShop.set(endpoint.shopId, [...(byShop.get(endpoint.shopId) ?? []), endpoint]);
  const deliveries: Array<{ event: StoredEvent; endpointId: string; body: string }> = [];
  const queued: DueDelivery[] = [];
  for (const event of events) {
    const subscribed = byShop.get(event.shopId);
    // An event erased (customers/redact) before the relay reached it is sent nowhere.
    if (!subscribed || isRedactedEventData(event.data)) continue;
    const target = event.type === "ping" ? (JSON.parse(event.data) as { endpointId: string }).endpointId : null;
    const body = envelope(event, subscribed[0]!.shopDomain);
    for (const endpoint of subscribed) {
      if (target ? endpoint.id !== target : !endpoint.types.has(event.type)) continue;
      deliveries.push({ event, endpointId: endpoint.id, body });
      queued.push({ eventId: event.id, endpointId: endpoint.id, shopId: event.shopId });
    }
  }
  if (deliveries.length > 0) {
    const priority = await shopPriorities([...new Set(queued.map((due) => due.shopId))]);
    await queue.addBulk(deliveryJobs(deliveries, priority));
  }
  return queued;
}

/**
 * Queues deliveries of a batch job that go on in jobs of their own: a first attempt that failed, its retry
 * `delayMs` from now with the attempts left (`attemptsBefore`), and an attempt whose outcome could not be
 * logged, again at once with every attempt. Same job id as the fan-out's, so the reconciliation pass finds it.
 */
export async function queueDeliveriesOfBatch(
  queue: Queue,
  deliveries: ReadonlyArray<{ payload: DeliverWebhookPayload; attemptsBefore: number; delayMs: number }>,
  priority: number,
): Promise<void> {
  if (deliveries.length === 0) return;
  await queue.addBulk(
    deliveries.map(({ payload, attemptsBefore, delayMs }) => ({
      name: JOBS.webhookDelivery.name,
      data: { ...payload, ...(attemptsBefore > 0 && { attemptsBefore }) },
      opts: { ...jobOptions(payload.eventId, payload.endpointId, attemptsBefore, priority), delay: delayMs },
    })),
  );
}

/** An owed delivery with its event and shop domain, as the reconciliation pass reads it. */
type OverdueDelivery = Awaited<ReturnType<typeof findOverdueDeliveries>>[number];

/**
 * Queues again deliveries the database says are owed and overdue: the same job id as the fan-out's, so a
 * job Redis still holds (waiting behind a backlog, say) is left as it is and only a lost one is added,
 * with the attempts it has left.
 */
export async function requeueDeliveries(queue: Queue, overdue: OverdueDelivery[]): Promise<void> {
  if (overdue.length === 0) return;
  // A job BullMQ failed for good keeps its id for a week, and an add under that id adds nothing. Its row
  // still being owed means it failed for a reason other than its receiver (a receiver's last failure ends
  // the row): the database down through all of its attempts, say. It is removed, so the delivery is
  // queued again rather than lost.
  // So is a completed one: a job queued again before, that found the delivery made elsewhere (below) while
  // the attempt that made it failed and lost its retry with Redis.
  const ids = overdue.map((due) => deliveryJobId(due.eventId, due.endpointId));
  const states = await Promise.all(ids.map((id) => queue.getJobState(id)));
  await Promise.all(
    ids.filter((_, n) => states[n] === "failed" || states[n] === "completed").map((id) => queue.remove(id)),
  );
  // Counted with themselves (they are owed): behind the shop's backlog, like a new delivery of the shop.
  const priority = await shopPriorities([...new Set(overdue.map((due) => due.shopId))]);
  await queue.addBulk(
    overdue.map((due) => {
      const event = {
        id: due.eventId,
        shopId: due.shopId,
        type: due.type as StoredEvent["type"],
        data: due.data,
        createdAt: due.createdAt,
      };
      const attemptsBefore = Math.min(due.attemptsMade, WEBHOOK_ATTEMPTS - 1);
      return {
        name: JOBS.webhookDelivery.name,
        data: {
          shopId: due.shopId,
          eventId: due.eventId,
          eventType: due.type,
          endpointId: due.endpointId,
          body: envelope(event, due.shopDomain),
          ...(attemptsBefore > 0 && { attemptsBefore }),
          requeued: true,
        },
        opts: jobOptions(due.eventId, due.endpointId, attemptsBefore, priority(due.shopId)),
      };
    }),
  );
}
