/**
 * The merchant's webhook endpoints (docs/webhooks.md; the /v1/webhooks operations of docs/openapi.json):
 * registration with a signing secret shown once, the test event, re-enabling, the delivery log and
 * redelivery. Errors are DomainErrors; the API maps them to problems.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { transaction, database, type UnitOfWork } from "~/data/database.server";
import { findDeliveryWithEvent, listDeliveries as listDeliveryRows } from "~/data/webhook-delivery-rows.server";
import {
  countEndpoints,
  deleteEndpoint as deleteEndpointRow,
  enableEndpoint as enableEndpointRow,
  findEndpoint,
  insertEndpoint,
  listEndpoints as listEndpointRows,
  lockShopEndpoints,
  type WebhookEndpointRow,
} from "~/data/webhook-endpoint-rows.server";
import { getEnv } from "~/env.server";
import { enqueueWebhookDelivery } from "~/jobs/queues.server";
import { isRedactedEventData } from "~/services/events/redacted-events";
import { DomainError } from "~/lib/domain-error";
import { newId } from "~/lib/ids";
import { readCursor, toPage, type Page } from "~/lib/pagination.server";
import type { PageParams } from "~/lib/validation";
import { recordEvent, type EventType } from "~/services/events/outbox.server";
import { encryptSecret, generateWebhookSecret } from "./endpoint-secrets.server";
import { envelope, LOWEST_PRIORITY, shopPriorities } from "./fanout.server";

/** The event types an endpoint may subscribe to (docs/webhooks.md); `ping` is sent only by the test call. */
export const SUBSCRIBABLE_EVENTS = [
  "item.added",
  "item.removed",
  "list.merged",
  "list.shared",
  "item.updated",
  "list.created",
  "list.deleted",
  "alert.back_in_stock",
  "alert.price_dropped",
  "alert.low_stock",
  "reminder.due",
  "plan.allowance_reached",
] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];

export const MAX_ENDPOINTS_PER_SHOP = 20;

/**
 * What registering an endpoint takes (POST /v1/webhooks, the admin's Add endpoint form): every member's
 * problem at once, the URL's scheme (https; http too where WEBHOOK_ALLOW_HTTP) and credentials included.
 * `createEndpoint` checks the URL again for callers that skip this schema.
 */
export const endpointInputSchema = z
  .object({
    url: z
      .url({ error: "must be an absolute URL such as https://example.com/webhooks" })
      .max(2_048)
      .superRefine((raw, ctx) => {
        const problem = endpointUrlProblem(raw);
        if (problem) ctx.addIssue({ code: "custom", message: problem.issue });
      }),
    events: z.array(z.enum(SUBSCRIBABLE_EVENTS)).min(1, "choose at least one event").max(SUBSCRIBABLE_EVENTS.length),
  })
  .strict();

const invalidUrl = (message: string, issue: string) =>
  new DomainError("invalid", message, { issues: [{ field: "url", message: issue }] });

/** https only, unless WEBHOOK_ALLOW_HTTP (development); no credentials in the URL. */
function endpointUrlProblem(raw: string): { message: string; issue: string } | null {
  const url = URL.parse(raw);
  if (!url) return null; // the schema's URL check reports it
  const allowHttp = getEnv().WEBHOOK_ALLOW_HTTP;
  if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) {
    return {
      message: allowHttp ? "url must be an http or https URL." : "url must be an https URL.",
      issue: allowHttp ? "must use http or https" : "must use https",
    };
  }
  if (url.username || url.password) {
    return {
      message: "url must not carry credentials; verify deliveries with the signing secret instead.",
      issue: "must not contain a user name or password",
    };
  }
  return null;
}

function checkEndpointUrl(raw: string): string {
  const problem = endpointUrlProblem(raw);
  if (problem) throw invalidUrl(problem.message, problem.issue);
  return new URL(raw).toString();
}

const noEndpoint = () => new DomainError("not_found", "No webhook endpoint with this id in this shop.");

/**
 * Creates the endpoint, at most MAX_ENDPOINTS_PER_SHOP per shop even under concurrent requests: the count
 * and the insert run in one transaction that holds the shop's endpoint lock (PostgreSQL) or the
 * database's write lock (SQLite), so parallel creations are counted one after another.
 */
export async function createEndpoint(
  { shopId, url, events }: { shopId: string; url: string; events: SubscribableEvent[] },
  unit?: UnitOfWork<{ endpoint: WebhookEndpointRow; secret: string }>,
) {
  const checkedUrl = checkEndpointUrl(url);
  const secret = generateWebhookSecret();
  const id = newId("webhookEndpoint");
  const secretCiphertext = encryptSecret(secret, { endpointId: id, shopId });
  return transaction(async (tx) => {
    await lockShopEndpoints(tx, shopId);
    if ((await countEndpoints(tx, shopId)) >= MAX_ENDPOINTS_PER_SHOP) {
      throw new DomainError("conflict", `A shop may have at most ${MAX_ENDPOINTS_PER_SHOP} webhook endpoints.`);
    }
    const endpoint = await insertEndpoint(
      tx,
      { id, shopId, url: checkedUrl, events: JSON.stringify([...new Set(events)]), secretCiphertext },
      new Date(),
    );
    const result = { endpoint, secret };
    await unit?.within?.(tx, result);
    return result;
  });
}

export async function listEndpoints({ shopId }: { shopId: string }): Promise<WebhookEndpointRow[]> {
  return listEndpointRows(database(), shopId);
}

export async function getEndpoint({ shopId, endpointId }: { shopId: string; endpointId: string }) {
  const endpoint = await findEndpoint(database(), shopId, endpointId);
  if (!endpoint) throw noEndpoint();
  return endpoint;
}

/** Deleting removes the endpoint and its delivery log; its pending deliveries find it gone and send nothing. */
export async function deleteEndpoint(
  { shopId, endpointId }: { shopId: string; endpointId: string },
  unit?: UnitOfWork<void>,
): Promise<void> {
  await transaction(async (tx) => {
    if (!(await deleteEndpointRow(tx, shopId, endpointId))) throw noEndpoint();
    await unit?.within?.(tx, undefined);
  });
}

/** Re-enables a disabled endpoint and resets its consecutive-failure count (additive). */
export async function enableEndpoint(
  { shopId, endpointId }: { shopId: string; endpointId: string },
  unit?: UnitOfWork<WebhookEndpointRow>,
): Promise<WebhookEndpointRow> {
  return transaction(async (tx) => {
    const endpoint = await enableEndpointRow(tx, shopId, endpointId, new Date());
    if (!endpoint) throw noEndpoint();
    await unit?.within?.(tx, endpoint);
    return endpoint;
  });
}

/**
 * POST /v1/webhooks/{id}/test: a `ping` event in the outbox, addressed to this endpoint only; it then
 * takes the same path as every event (relay, queue, signed delivery, retries, delivery log). Returns the
 * event's id.
 */
export async function sendTestEvent(
  { shopId, endpointId }: { shopId: string; endpointId: string },
  unit?: UnitOfWork<string>,
): Promise<string> {
  return transaction(async (tx) => {
    const endpoint = await findEndpoint(tx, shopId, endpointId);
    if (!endpoint) throw noEndpoint();
    if (endpoint.disabledAt) {
      throw new DomainError(
        "conflict",
        "The endpoint is disabled. Re-enable it (POST /v1/webhooks/{id}/enable) before testing it.",
      );
    }
    const eventId = await recordEvent(tx, {
      shopId,
      type: "ping",
      data: { endpointId, message: "Test event from the wishlist service." },
    });
    await unit?.within?.(tx, eventId);
    return eventId;
  });
}

/**
 * A page of the endpoint's delivery log, newest first. Cursors are bound to the shop and the endpoint, so
 * one issued by the API pages the admin's log too, and no other listing accepts it.
 */
export async function listDeliveries({
  shopId,
  endpointId,
  page,
}: {
  shopId: string;
  endpointId: string;
  page: PageParams;
}): Promise<Page<DeliveryLogRow>> {
  const scope = `deliveries:${shopId}:${endpointId}`;
  const before = readCursor(scope, page);
  if (!(await findEndpoint(database(), shopId, endpointId))) throw noEndpoint();
  const rows = await listDeliveryRows(database(), shopId, endpointId, { before, limit: page.limit });
  return toPage(scope, rows, page.limit, (row) => row);
}

export type DeliveryLogRow = Awaited<ReturnType<typeof listDeliveryRows>>[number];

/** How many owed deliveries of every shop a redelivery waits behind, besides its own shop's. */
const REDELIVERY_BEHIND = 1_000;

/**
 * Sends a logged delivery's event to its endpoint once more: one attempt, the same envelope, a new
 * delivery id and signature (it is logged as the next attempt of that event). Nothing is written here;
 * the delivery job logs the attempt.
 */
export async function redeliver({
  shopId,
  shopDomain,
  endpointId,
  deliveryId,
}: {
  shopId: string;
  shopDomain: string;
  endpointId: string;
  deliveryId: string;
}): Promise<void> {
  const [endpoint, delivery] = await Promise.all([
    findEndpoint(database(), shopId, endpointId),
    findDeliveryWithEvent(database(), shopId, endpointId, deliveryId),
  ]);
  if (!endpoint) throw noEndpoint();
  if (!delivery) throw new DomainError("not_found", "No delivery with this id for this endpoint.");
  if (isRedactedEventData(delivery.eventData)) {
    throw new DomainError(
      "event_redacted",
      "This event named a customer whose data the shop had erased (customers/redact); it is not sent again.",
    );
  }
  if (endpoint.disabledAt) {
    throw new DomainError("conflict", "The endpoint is disabled. Re-enable it before redelivering.");
  }
  const event = {
    id: delivery.eventId,
    shopId,
    type: delivery.eventType as EventType,
    data: delivery.eventData,
    createdAt: delivery.eventCreatedAt,
  };
  await enqueueWebhookDelivery(
    {
      shopId,
      eventId: event.id,
      eventType: event.type,
      endpointId,
      body: envelope(event, shopDomain),
      redelivery: true,
    },
    // Behind the shop's owed deliveries and REDELIVERY_BEHIND more (docs/decisions/026-fairness-between-shops.md):
    // a job without a priority would go before every shop's, and redeliveries are not counted as owed, so
    // a burst of them would otherwise share the quiet shops' first places.
    {
      jobId: `redeliver-${deliveryId}-${randomUUID()}`, // each request its own job, even two in one millisecond
      attempts: 1,
      // A finished redelivery is kept in the delivery log, not in Redis: a kept job would keep the event's body
      // (and any customer in it) where a customers/redact does not look.
      removeOnComplete: true,
      removeOnFail: true,
      // Capped at BullMQ's lowest precedence: a larger number is refused, and the redelivery with it.
      priority: Math.min((await shopPriorities([shopId]))(shopId) + REDELIVERY_BEHIND, LOWEST_PRIORITY),
    },
  );
}
