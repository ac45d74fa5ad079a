/**
 * The /v1/webhooks operations (docs/openapi.json, docs/webhooks.md): each validates its request, calls the
 * webhooks service and serializes what it returns.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { WebhookEndpointRow } from "~/data/webhook-endpoint-rows.server";
import { parseId } from "~/lib/ids";
import {
  createEndpoint,
  deleteEndpoint,
  enableEndpoint,
  endpointInputSchema,
  listDeliveries,
  listEndpoints,
  redeliver as redeliverEvent,
  sendTestEvent,
} from "~/services/webhooks/endpoints.server";
import type { V1Env } from "../context";
import { idempotentReply } from "../idempotency-key.server";
import { apiRoute } from "../route.server";
import { idParameter, jsonBody, jsonResponse, problemAnswer } from "../route-shapes";
import {
  PageQuery,
  pageOf,
  WebhookDeliverySchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointSchema,
} from "../schemas";
import { serializeWebhookDelivery, serializeWebhookEndpoint } from "../serializers";

const PRIVATE = ["private"] as const;
const TAGS = ["Webhooks"];
const EndpointParams = z.object({ id: idParameter("id", "webhookEndpoint") });

const list = apiRoute({
  method: "get",
  path: "/webhooks",
  tags: TAGS,
  summary: "List webhook endpoints",
  description: "Every endpoint of the shop, oldest first. Secrets are never shown again.",
  modes: PRIVATE,
  responses: {
    200: jsonResponse("Endpoints", z.array(WebhookEndpointSchema)),
  },
});

const create = apiRoute({
  method: "post",
  path: "/webhooks",
  tags: TAGS,
  summary: "Register a webhook endpoint",
  description:
    "`url` must be an absolute https URL (plain http only where the service is configured for development). " +
    "Deliveries connect only to public addresses, checked after DNS resolution at connect time. The response " +
    "carries `secret` once: verify every delivery's `X-Service-Signature` with it (see the webhooks guide). " +
    "At most 20 endpoints per shop (409 beyond).",
  modes: PRIVATE,
  request: {
    body: jsonBody(endpointInputSchema),
  },
  responses: {
    201: jsonResponse("The endpoint, with its signing secret", WebhookEndpointCreatedSchema),
  },
});

const remove = apiRoute({
  method: "delete",
  path: "/webhooks/{id}",
  tags: TAGS,
  summary: "Delete a webhook endpoint",
  description: "Pending deliveries to it are not sent. Its delivery log is deleted with it.",
  modes: PRIVATE,
  request: { params: EndpointParams },
  responses: { 204: { description: "Deleted" } },
});

const test = apiRoute({
  method: "post",
  path: "/webhooks/{id}/test",
  tags: TAGS,
  summary: "Send a test event",
  description:
    "A `ping` event (data: `endpointId`, `message`) goes through the full pipeline to this endpoint only: " +
    "outbox, relay, signed delivery, retries, delivery log. 409 when the endpoint is disabled.",
  modes: PRIVATE,
  request: { params: EndpointParams },
  responses: { 202: { description: "Queued" } },
});

const enable = apiRoute({
  method: "post",
  path: "/webhooks/{id}/enable",
  tags: TAGS,
  summary: "Re-enable an endpoint (additive)",
  description: "Clears `disabledAt` and resets `failCount` to 0. Events from while it was disabled are not sent.",
  modes: PRIVATE,
  request: { params: EndpointParams },
  responses: {
    200: jsonResponse("The endpoint", WebhookEndpointSchema),
  },
});

const deliveries = apiRoute({
  method: "get",
  path: "/webhooks/{id}/deliveries",
  tags: TAGS,
  summary: "Delivery log of an endpoint (additive)",
  description:
    "Every attempt, newest first, cursor-paged: event, attempt number, status code, duration, error, a capped response snippet, next retry.",
  modes: PRIVATE,
  request: {
    params: EndpointParams,
    query: PageQuery,
  },
  responses: {
    200: jsonResponse("A page of delivery attempts", pageOf(WebhookDeliverySchema, "WebhookDeliveryPage")),
  },
});

const redeliver = apiRoute({
  method: "post",
  path: "/webhooks/{id}/deliveries/{deliveryId}/redeliver",
  tags: TAGS,
  summary: "Redeliver an event (additive)",
  description:
    "Sends the delivery's event to this endpoint once more (one attempt, same body, new delivery id and " +
    "signature). 409 when the endpoint is disabled; 410 `event-redacted` when the event named a customer whose " +
    "data the shop erased (customers/redact): such an event is never sent again.",
  modes: PRIVATE,
  request: {
    params: EndpointParams.extend({ deliveryId: idParameter("deliveryId", "delivery") }),
  },
  responses: {
    202: { description: "Queued" },
    410: problemAnswer("The event was erased for a customer's redaction (`event-redacted`); nothing was queued"),
  },
});

export function registerWebhookRoutes(app: OpenAPIHono<V1Env>) {
  app.openapi(list, async (c) => {
    const endpoints = await listEndpoints({ shopId: c.get("caller").shopId });
    return c.json(endpoints.map(serializeWebhookEndpoint), 200);
  });

  app.openapi(create, async (c) => {
    const { url, events } = c.req.valid("json");
    const reply = idempotentReply(c, ({ endpoint, secret }: { endpoint: WebhookEndpointRow; secret: string }) =>
      c.json({ ...serializeWebhookEndpoint(endpoint), secret }, 201),
    );
    return reply.send(await createEndpoint({ shopId: c.get("caller").shopId, url, events }, reply.unit));
  });

  app.openapi(remove, async (c) => {
    const endpointId = parseId("webhookEndpoint", c.req.valid("param").id);
    await deleteEndpoint({ shopId: c.get("caller").shopId, endpointId });
    return c.body(null, 204);
  });

  app.openapi(test, async (c) => {
    const endpointId = parseId("webhookEndpoint", c.req.valid("param").id);
    await sendTestEvent({ shopId: c.get("caller").shopId, endpointId });
    return c.body(null, 202);
  });

  app.openapi(enable, async (c) => {
    const endpointId = parseId("webhookEndpoint", c.req.valid("param").id);
    const reply = idempotentReply(c, (endpoint: WebhookEndpointRow) => c.json(serializeWebhookEndpoint(endpoint), 200));
    return reply.send(await enableEndpoint({ shopId: c.get("caller").shopId, endpointId }, reply.unit));
  });

  app.openapi(deliveries, async (c) => {
    const endpointId = parseId("webhookEndpoint", c.req.valid("param").id);
    const page = await listDeliveries({ shopId: c.get("caller").shopId, endpointId, page: c.req.valid("query") });
    return c.json({ ...page, data: page.data.map(serializeWebhookDelivery) }, 200);
  });

  app.openapi(redeliver, async (c) => {
    const { shopId, shopDomain } = c.get("caller");
    const params = c.req.valid("param");
    const endpointId = parseId("webhookEndpoint", params.id);
    const deliveryId = parseId("delivery", params.deliveryId, "deliveryId");
    await redeliverEvent({ shopId, shopDomain, endpointId, deliveryId });
    return c.body(null, 202);
  });
}
