/**
 * The relay's fan-out (docs/webhooks.md, docs/decisions/013-webhook-delivery.md): every outbox event
 * becomes one delivery job per subscribed, enabled endpoint of its shop, all added to the queue at once.
 */
import type { Queue } from "bullmq";
import { database } from "~/data/database.server";
import { findEnabledEndpointsOfShops } from "~/data/webhook-endpoint-rows.server";
import { deliverWebhookJob, type DeliverWebhookPayload } from "~/jobs/definitions";
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

function deliveryJobId(eventId: string, endpointId: string): string {
  return `${eventId}-${endpointId}`;
}

/**
 * One delivery job per event and subscribed, enabled endpoint of the event's shop (a `ping` goes to the
 * endpoint it names only), added in one call. Idempotent by job id. Events of a deleted shop
 * (shop/redact) have no endpoints and deliver nothing. Returns how many jobs it added.
 */
export async function fanOutEvents(queue: Queue, events: StoredEvent[]): Promise<number> {
  const shopIds = [...new Set(events.map((event) => event.shopId))];
  const endpoints = (await findEnabledEndpointsOfShops(database(), shopIds)).map((endpoint) => ({
    ...endpoint,
    types: new Set(JSON.parse(endpoint.events) as string[]),
  }));
  const byShop = new Map<string, typeof endpoints>();
  for (const endpoint of endpoints) byShop.set(endpoint.shopId, [...(byShop.get(endpoint.shopId) ?? []), endpoint]);
  const jobs: Array<{ name: string; data: DeliverWebhookPayload; opts: object }> = [];
  for (const event of events) {
    const subscribed = byShop.get(event.shopId);
    if (!subscribed) continue;
    const target = event.type === "ping" ? (JSON.parse(event.data) as { endpointId: string }).endpointId : null;
    const body = envelope(event, subscribed[0]!.shopDomain);
    for (const endpoint of subscribed) {
      if (target ? endpoint.id !== target : !endpoint.types.has(event.type)) continue;
      jobs.push({
        name: deliverWebhookJob.name,
        data: { shopId: event.shopId, eventId: event.id, eventType: event.type, endpointId: endpoint.id, body },
        opts: {
          ...deliverWebhookJob.options,
          jobId: deliveryJobId(event.id, endpoint.id),
          attempts: WEBHOOK_ATTEMPTS,
          backoff: { type: "webhook" },
        },
      });
    }
  }
  if (jobs.length > 0) await queue.addBulk(jobs);
  return jobs.length;
}
