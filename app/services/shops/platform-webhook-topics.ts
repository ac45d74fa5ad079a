/**
 * The platform's webhook topics this app subscribes to, declared once
 * (docs/decisions/039-job-and-webhook-registries.md): each topic, whether it is one of the mandatory
 * compliance topics, and how its signed body names the shop (null: it does not; the shop is the
 * header's, and a replay under another shop's header is caught by the signed body's digest, decision 015).
 * The route (app/api/platform-webhooks.server.ts) mounts one path per topic and binds each to its handler
 * through a map typed to cover every topic; a test holds shopify.app.toml's subscriptions to this table.
 */
import { z } from "zod";

const shopDomainField = z.object({ shop_domain: z.string() }).transform((body) => body.shop_domain);

interface TopicDeclaration {
  compliance: boolean;
  shopOf: z.ZodType<string> | null;
}

export const PLATFORM_WEBHOOK_TOPICS = {
  // The payload of app/uninstalled is the shop resource: `myshopify_domain` is its platform domain
  // (`domain` is the primary domain, which may be the merchant's own).
  "app/uninstalled": {
    compliance: false,
    shopOf: z.object({ myshopify_domain: z.string() }).transform((body) => body.myshopify_domain),
  },
  // The app subscription resource (`app_subscription`: its gid, name, status, updated_at): the shop is the
  // header's (docs/decisions/062-plans-and-billing.md).
  "app_subscriptions/update": { compliance: false, shopOf: null },
  // Mandatory compliance topics: recorded once and done by the worker (app/services/compliance).
  "customers/data_request": { compliance: true, shopOf: shopDomainField },
  "customers/redact": { compliance: true, shopOf: shopDomainField },
  "shop/redact": { compliance: true, shopOf: shopDomainField },
  // The product resource's deletion names the product only (`{"id": ...}`) (docs/decisions/022-product-snapshots.md).
  "products/delete": { compliance: false, shopOf: null },
  // The alerts' readings (docs/decisions/050-wishlist-alerts.md): the product resource, and an inventory
  // level (`inventory_item_id`, `location_id`, `available`); neither names the shop.
  "products/update": { compliance: false, shopOf: null },
  "inventory_levels/update": { compliance: false, shopOf: null },
  // Orders matched to saves (docs/decisions/052-attribution.md): the order resource (create, paid, cancelled)
  // and the refund resource; neither names the shop.
  "orders/create": { compliance: false, shopOf: null },
  "orders/paid": { compliance: false, shopOf: null },
  "orders/cancelled": { compliance: false, shopOf: null },
  "refunds/create": { compliance: false, shopOf: null },
} as const satisfies Record<string, TopicDeclaration>;

type Topics = typeof PLATFORM_WEBHOOK_TOPICS;
export type PlatformWebhookTopic = keyof Topics;
export type ComplianceTopic = {
  [T in PlatformWebhookTopic]: Topics[T]["compliance"] extends true ? T : never;
}[PlatformWebhookTopic];

export const PLATFORM_WEBHOOK_TOPIC_NAMES = Object.keys(PLATFORM_WEBHOOK_TOPICS) as PlatformWebhookTopic[];
export const COMPLIANCE_TOPICS = PLATFORM_WEBHOOK_TOPIC_NAMES.filter(
  (topic): topic is ComplianceTopic => PLATFORM_WEBHOOK_TOPICS[topic].compliance,
);
