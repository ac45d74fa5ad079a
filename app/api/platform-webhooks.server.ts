import { createHash } from "node:crypto";
import { WebhookValidationErrorReason } from "@shopify/shopify-api";
import type { Context, Hono } from "hono";
import { z } from "zod";
import { AppError } from "~/lib/problems";
import { logger } from "~/logger.server";
import { receiveComplianceWebhook } from "~/services/compliance/compliance.server";
import { receiveInventoryLevelUpdate, receiveProductUpdate } from "~/services/alerts/receive.server";
import { readOrder, readRefund } from "~/services/attribution/order-payloads";
import { receiveOrder, receiveRefund } from "~/services/attribution/orders.server";
import { receiveProductDeletion } from "~/services/products/deleted-products.server";
import type { PlatformWebhookOutcome, PlatformWebhookReceipt } from "~/services/shops/platform-webhook-ledger.server";
import {
  PLATFORM_WEBHOOK_TOPIC_NAMES,
  PLATFORM_WEBHOOK_TOPICS,
  type ComplianceTopic,
  type PlatformWebhookTopic,
} from "~/services/shops/platform-webhook-topics";
import { markShopUninstalled } from "~/services/shops/shops.server";
import { receiveSubscriptionUpdate, SUBSCRIPTION_STATUSES } from "~/services/plans/billing.server";
import { platformApi, shopDomain } from "~/shopify.server";
import type { HttpAppEnv } from "./http-env";

/**
 * The platform's webhooks to this app (shopify.app.toml `[[webhooks.subscriptions]]`), one route per topic
 * of the topic table (app/services/shops/platform-webhook-topics.ts), each bound to its handler below.
 * Each request is verified by the platform library (HMAC-SHA256 of the raw body with the app secret) over
 * the body read once; the shop is the one the signed body names, and the unsigned `X-Shopify-Shop-Domain`
 * and `X-Shopify-Topic` headers must agree with it and with the route; each `X-Shopify-Webhook-Id` and
 * each signed body is processed once, and an app/uninstalled signed before the last one applied is ignored
 * (docs/decisions/015-platform-callers.md). The compliance topics are recorded and queued here and done by
 * the worker (docs/decisions/020-compliance-and-lifecycle.md); products/delete marks the shop's items of
 * the product unavailable (docs/decisions/022-product-snapshots.md); the order topics match orders to saves
 * (docs/decisions/052-attribution.md), reading only what their narrow schemas name of the protected customer
 * data the bodies carry.
 */
/** The platform's numeric ids arrive as JSON numbers; a string of digits is taken too. */
const platformId = z.union([
  z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  z.string().regex(/^[1-9]\d{0,19}$/),
]);

/** What the customer topics name besides the shop: the customer, and a data request's own id. */
const customerSubject = z.object({
  // The email is kept (sealed) for customers/redact only: import files may name the customer by it alone.
  customer: z.object({
    id: platformId,
    email: z
      .string()
      .trim()
      .max(320)
      .regex(/^[^@\s]+@[^@\s]+$/)
      .nullish()
      .catch(null),
  }),
  data_request: z.object({ id: platformId }).optional(),
});

/** What products/delete and products/update name: the product's id. */
const deletedProduct = z.object({ id: platformId });

/** What app_subscriptions/update names: the subscription, its plan name, status and time. */
const subscriptionUpdate = z.object({
  app_subscription: z.object({
    admin_graphql_api_id: z.string().regex(/^gid:\/\/shopify\/AppSubscription\/\d{1,20}$/),
    name: z.string().max(255),
    status: z.enum(SUBSCRIPTION_STATUSES),
    updated_at: z.iso.datetime({ offset: true }).nullish().catch(null),
    created_at: z.iso.datetime({ offset: true }).nullish().catch(null),
  }),
});

/** What inventory_levels/update names: the inventory item whose level changed. */
const inventoryLevel = z.object({ inventory_item_id: platformId });

const WEBHOOK_ID = /^[\x21-\x7e]{1,255}$/;

/** The shop resource's `updated_at` (ISO 8601 with an offset), the time the app/uninstalled body was signed. */
const signedUpdatedAt = z.object({ updated_at: z.iso.datetime({ offset: true }) });

function refused(detail: string): AppError {
  return new AppError("bad-request", { detail });
}

async function verify(c: Context, topic: PlatformWebhookTopic) {
  const rawBody = await c.req.text(); // the only read of the body
  const check = await platformApi.webhooks.validate({ rawBody, rawRequest: c.req.raw });
  if (!check.valid) {
    if (
      check.reason === WebhookValidationErrorReason.InvalidHmac ||
      check.reason === WebhookValidationErrorReason.MissingHmac
    ) {
      throw new AppError("unauthorized", { detail: "The webhook's X-Shopify-Hmac-Sha256 does not verify." });
    }
    throw refused(
      "missingHeaders" in check
        ? `A platform webhook carries ${check.missingHeaders.join(", ")}.`
        : "A platform webhook has a signed body.",
    );
  }
  if (c.req.header("x-shopify-topic")?.toLowerCase() !== topic) {
    throw refused(`This route takes ${topic} webhooks only.`);
  }
  if (!WEBHOOK_ID.test(check.webhookId)) throw refused("X-Shopify-Webhook-Id is not a webhook id.");
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    throw new AppError("malformed-json", { detail: "The webhook body is not JSON." });
  }
  const shopOfBody = PLATFORM_WEBHOOK_TOPICS[topic].shopOf;
  let domain: string | null;
  if (shopOfBody) {
    const named = shopOfBody.safeParse(json);
    domain = named.success ? shopDomain(named.data) : null;
    if (!domain) throw refused(`The ${topic} body does not name a shop domain.`);
    // The header is not signed: a captured webhook sent again with another shop's domain must not act on it.
    if (shopDomain(check.domain) !== domain) {
      throw refused("X-Shopify-Shop-Domain names another shop than the signed body.");
    }
  } else {
    // A body that names no shop: the header's shop. Sent again under another shop's header, the signed body
    // is a replay by its digest (step 5 of decision 015), and the product id it names is of one shop only.
    domain = shopDomain(check.domain);
    if (!domain) throw refused("X-Shopify-Shop-Domain is not a shop domain.");
  }
  return {
    json,
    receipt: {
      id: check.webhookId,
      topic,
      shopDomain: domain,
      bodySha256: createHash("sha256").update(rawBody).digest("hex"),
    },
  };
}

/** A verified webhook's effects, with what its log line adds. */
type Receive = (
  receipt: PlatformWebhookReceipt,
  json: unknown,
) => Promise<{
  outcome: PlatformWebhookOutcome | "unknown_shop";
  signedAt?: Date | null;
  productId?: string;
  orderId?: string;
}>;

const receiveOrderTopic =
  (topic: "orders/create" | "orders/paid" | "orders/cancelled"): Receive =>
  async (receipt, json) => {
    const order = readOrder(json);
    if (!order) throw refused(`The ${topic} body is not an order (id, created_at, currency and line_items).`);
    return { outcome: (await receiveOrder(receipt, order)).outcome, orderId: order.orderId };
  };

/** What a compliance topic's body names besides the shop: the customer, and a data request's own id. */
function complianceSubject(topic: ComplianceTopic, json: unknown) {
  if (topic === "shop/redact") return { customerId: null, customerEmail: null, platformRequestId: null };
  const named = customerSubject.safeParse(json);
  if (!named.success) throw refused(`The ${topic} body does not name a customer id.`);
  return {
    customerId: String(named.data.customer.id),
    customerEmail: topic === "customers/redact" ? (named.data.customer.email ?? null) : null,
    platformRequestId: named.data.data_request ? String(named.data.data_request.id) : null,
  };
}

const receiveCompliance =
  (topic: ComplianceTopic): Receive =>
  async (receipt, json) => ({
    outcome: await receiveComplianceWebhook({ ...receipt, topic }, complianceSubject(topic, json)),
  });

/** Each topic's handler: a topic of the table without one here does not compile. */
const RECEIVERS: { [T in PlatformWebhookTopic]: Receive } = {
  "app/uninstalled": async (receipt, json) => {
    const dated = signedUpdatedAt.safeParse(json);
    // Absent or not a time: only the id and content checks apply.
    const signedAt = dated.success ? new Date(dated.data.updated_at) : null;
    return { outcome: await markShopUninstalled(receipt, signedAt), signedAt };
  },
  "app_subscriptions/update": async (receipt, json) => {
    const named = subscriptionUpdate.safeParse(json);
    if (!named.success) {
      throw refused(
        "The app_subscriptions/update body is not an app subscription (admin_graphql_api_id, name, status).",
      );
    }
    const { admin_graphql_api_id: subscriptionId, name, status, updated_at, created_at } = named.data.app_subscription;
    const signedAt = updated_at ? new Date(updated_at) : null;
    const startedAt = created_at ? new Date(created_at) : null;
    return {
      outcome: await receiveSubscriptionUpdate(receipt, { subscriptionId, name, status, signedAt, startedAt }),
      signedAt,
    };
  },
  "customers/data_request": receiveCompliance("customers/data_request"),
  "customers/redact": receiveCompliance("customers/redact"),
  "shop/redact": receiveCompliance("shop/redact"),
  "products/delete": async (receipt, json) => {
    const named = deletedProduct.safeParse(json);
    if (!named.success) throw refused("The products/delete body does not name a product id.");
    const productId = String(named.data.id);
    return { outcome: await receiveProductDeletion(receipt, productId), productId };
  },
  "products/update": async (receipt, json) => {
    const named = deletedProduct.safeParse(json);
    if (!named.success) throw refused("The products/update body does not name a product id.");
    const productId = String(named.data.id);
    return { outcome: (await receiveProductUpdate(receipt, productId)).outcome, productId };
  },
  "inventory_levels/update": async (receipt, json) => {
    const named = inventoryLevel.safeParse(json);
    if (!named.success) throw refused("The inventory_levels/update body does not name an inventory item id.");
    return { outcome: (await receiveInventoryLevelUpdate(receipt, String(named.data.inventory_item_id))).outcome };
  },
  "orders/create": receiveOrderTopic("orders/create"),
  "orders/paid": receiveOrderTopic("orders/paid"),
  "orders/cancelled": receiveOrderTopic("orders/cancelled"),
  "refunds/create": async (receipt, json) => {
    const refund = readRefund(json);
    if (!refund) throw refused("The refunds/create body is not a refund (id, order_id and refund_line_items).");
    return { outcome: (await receiveRefund(receipt, refund)).outcome, orderId: refund.orderId };
  },
};

/** Mounts the platform webhook routes on the web process's application, before the Remix catch-all. */
export function registerPlatformWebhooks(app: Hono<HttpAppEnv>) {
  for (const topic of PLATFORM_WEBHOOK_TOPIC_NAMES) {
    app.post(`/webhooks/${topic}`, async (c) => {
      const { receipt, json } = await verify(c, topic);
      const { outcome, signedAt = null, productId = null, orderId = null } = await RECEIVERS[topic](receipt, json);
      logger.info(
        {
          shop: receipt.shopDomain,
          topic,
          webhookId: receipt.id,
          bodySha256: receipt.bodySha256,
          signedAt,
          productId,
          orderId,
          outcome,
        },
        {
          processed: "platform webhook processed",
          replay: "platform webhook already processed (same webhook id or same signed body)",
          stale: "platform webhook ignored: signed before the one last applied, or a data request already held",
          unknown_shop: "platform webhook for a shop this app does not hold: nothing to do",
        }[outcome],
      );
      return c.body(null, 200);
    });
  }
  // Any other path below /webhooks (a topic not received, a trailing slash): a problem document rather than the
  // admin's 404 page, which logs a stack trace for each request, at the pace of whoever sends them unsigned.
  app.all("/webhooks/*", (c) => {
    throw new AppError("not-found", {
      detail: `No platform webhook topic is received at ${c.req.path}: ${PLATFORM_WEBHOOK_TOPIC_NAMES.map((topic) => `/webhooks/${topic}`).join(", ")}.`,
    });
  });
}
