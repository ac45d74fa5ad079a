import type { Queue } from "bullmq";
import { prisma } from "~/db.server";
import { deliverWebhookJob, type DeliverWebhookPayload } from "~/jobs/definitions";
import type { StoredEvent } from "~/services/events/relay.server";
import { WEBHOOK_ATTEMPTS } from "./schedule";

/** The POST body: the envelope of spec 6, built once per event so every delivery sends the same bytes. */
export function envelope(event: StoredEvent, shopDomain: string): string {
  return (
    `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"shopDomain":${JSON.stringify(shopDomain)},` +
    `"createdAt":${JSON.stringify(event.createdAt.toISOString())},"data":${event.data}}`
  );
}

export function deliveryJobId(eventId: string, endpointId: string): string {
  return `${eventId}-${endpointId}`;
}

/**
 * The relay's fan-out: one delivery job per event and subscribed, enabled endpoint of the event's shop
 * (a `ping` goes to the endpoint it names only). Idempotent by job id.
 */
export async function fanOutEvents(queue: Queue, events: StoredEvent[]): Promise<number> {
  const shopIds = [...new Set(events.map((event) => event.shopId))];
  const [shops, endpoints] = await Promise.all([
    prisma.shop.findMany({ where: { id: { in: shopIds } }, select: { id: true, domain: true } }),
    prisma.webhookEndpoint.findMany({
      where: { shopId: { in: shopIds }, disabledAt: null },
      select: { id: true, shopId: true, events: true },
    }),
  ]);
  const domains = new Map(shops.map((shop) => [shop.id, shop.domain]));
  const subscribed = endpoints.map((endpoint) => ({
    ...endpoint,
    types: new Set(JSON.parse(endpoint.events) as string[]),
  }));
  const jobs: Array<{ name: string; data: DeliverWebhookPayload; opts: object }> = [];
  for (const event of events) {
    const domain = domains.get(event.shopId);
    if (!domain) continue; // the shop was deleted (shop/redact); nothing to deliver
    const target = event.type === "ping" ? (JSON.parse(event.data) as { endpointId: string }).endpointId : null;
    const body = envelope(event, domain);
    for (const endpoint of subscribed) {
      if (endpoint.shopId !== event.shopId) continue;
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
