/**
 * The webhooks the stand-in sends the app, as the platform sends them: a JSON body in the REST format of the
 * app's API version, signed with the app's secret (HMAC-SHA256 of the raw body, base64, in
 * `X-Shopify-Hmac-Sha256`), with the `X-Shopify-*` headers the platform sets. One home for the signing, the log
 * of what was sent (`createWebhookLog`: the admin pages and the tests read it) and the catalogue's bodies
 * (`products/update`, `inventory_levels/update`; `products/delete` sends an id only); the orders' bodies are in
 * stand-in/orders.ts. Bodies follow the platform's webhook reference (its sample payloads for these topics);
 * fields the app has no use for and the stand-in has no data for (vendor, tags, SKUs) carry the platform's
 * empty values.
 */
import { createHmac, randomUUID } from "node:crypto";
import { STAND_IN_LOCATION_ID, inventoryItemIdOf, productImagePath, variantsOf } from "./catalogue";
import type { StandInProduct, StandInVariant } from "./demo-data";

/** What the stand-in sent and how the app answered (0: the app could not be reached). */
export interface SentWebhook {
  topic: string;
  shopDomain: string;
  /** `X-Shopify-Webhook-Id`: the same on a redelivery of the same webhook, as the platform's retries keep it. */
  webhookId: string;
  /** `X-Shopify-Event-Id`: the event the webhook is about (also kept by a redelivery). */
  eventId: string;
  /** The REST id of what it is about: a product, an inventory item, an order, or a refund. */
  subjectId: string;
  /** The JSON text sent, as signed. */
  body: string;
  status: number;
  /** Why it did not arrive, when status is 0. */
  error?: string;
  /** When it was triggered (`X-Shopify-Triggered-At`); a redelivery keeps it. */
  at: number;
  /** When this delivery was made. */
  deliveredAt: number;
}

export interface WebhookTarget {
  /** The app's origin; topic `a/b` goes to `<appOrigin>/webhooks/a/b`. */
  appOrigin: string;
  apiSecret: string;
  apiVersion: string;
}

/** The platform's timestamp in webhook bodies: seconds, with the shop's offset (UTC here). */
export const restTime = (at: number) => new Date(at).toISOString().replace(/\.\d{3}Z$/, "+00:00");

/**
 * Sends one webhook; resolves with the app's answer, never rejects (an unreachable app is status 0). With
 * `again`, it is a redelivery of a webhook sent before: the same body, webhook id, event id and trigger time,
 * as the platform's retries send them.
 */
export async function sendPlatformWebhook(
  target: WebhookTarget,
  { topic, shopDomain, subjectId, body }: { topic: string; shopDomain: string; subjectId: string; body: unknown },
  again?: Pick<SentWebhook, "webhookId" | "eventId" | "at" | "body">,
): Promise<SentWebhook> {
  const text = again?.body ?? JSON.stringify(body);
  const sent = {
    topic,
    shopDomain,
    webhookId: again?.webhookId ?? randomUUID(),
    eventId: again?.eventId ?? randomUUID(),
    subjectId,
    body: text,
    at: again?.at ?? Date.now(),
    deliveredAt: Date.now(),
  };
  try {
    const response = await fetch(`${target.appOrigin}/webhooks/${topic}`, {
      method: "POST",
      body: text,
      headers: {
        "content-type": "application/json",
        "x-shopify-topic": topic,
        "x-shopify-shop-domain": shopDomain,
        "x-shopify-api-version": target.apiVersion,
        "x-shopify-webhook-id": sent.webhookId,
        "x-shopify-event-id": sent.eventId,
        "x-shopify-triggered-at": new Date(sent.at).toISOString(),
        "x-shopify-hmac-sha256": createHmac("sha256", target.apiSecret).update(text).digest("base64"),
      },
    });
    await response.body?.cancel();
    return { ...sent, status: response.status };
  } catch (error) {
    return { ...sent, status: 0, error: String((error as Error).cause ?? error) };
  }
}

/** How many sent webhooks the stand-in remembers. */
const SENT_KEPT = 200;

/**
 * The stand-in's log of the webhooks it sent (the last 200, oldest first), shared by the product and order
 * admins: `send` signs, sends and records; `redeliver` sends a recorded webhook again as the platform retries
 * one (same body, webhook id and event id), for tests of an app that must take a webhook once.
 */
export function createWebhookLog(target: WebhookTarget) {
  const sent: SentWebhook[] = [];
  const record = (result: SentWebhook) => {
    sent.push(result);
    if (sent.length > SENT_KEPT) sent.splice(0, sent.length - SENT_KEPT);
    return result;
  };
  return {
    sent,
    send: async (shopDomain: string, topic: string, subjectId: string, body: unknown) =>
      record(await sendPlatformWebhook(target, { topic, shopDomain, subjectId, body })),
    async redeliver(webhookId: string): Promise<SentWebhook> {
      const first = sent.find((candidate) => candidate.webhookId === webhookId);
      if (!first) throw new Error(`No webhook ${webhookId} in the stand-in's log (it keeps the last ${SENT_KEPT})`);
      return record(await sendPlatformWebhook(target, { ...first, body: undefined }, first));
    },
  };
}

export type WebhookLog = ReturnType<typeof createWebhookLog>;

/** A product's image as the REST resources write it (`image`, `images[]`). */
function restImage(product: StandInProduct, imageOrigin: string) {
  return {
    id: Number(product.id),
    alt: null,
    position: 1,
    product_id: Number(product.id),
    created_at: CREATED_AT,
    updated_at: CREATED_AT,
    admin_graphql_api_id: `gid://shopify/ProductImage/${product.id}`,
    width: 800,
    height: 800,
    src: `${imageOrigin}${productImagePath(product)}`,
    variant_ids: [],
  };
}

/** When the stand-in's catalogue was made, as far as its webhooks say. */
const CREATED_AT = "2026-01-05T09:00:00+00:00";

function restVariant(
  product: StandInProduct,
  variant: StandInVariant,
  { position, updatedAt, oldQuantity }: { position: number; updatedAt: string; oldQuantity?: number },
) {
  return {
    admin_graphql_api_id: `gid://shopify/ProductVariant/${variant.id}`,
    barcode: null,
    compare_at_price: variant.compareAtPrice ?? null,
    created_at: CREATED_AT,
    id: Number(variant.id),
    inventory_policy: "deny",
    position,
    price: variant.price,
    product_id: Number(product.id),
    sku: null,
    taxable: true,
    title: variant.title,
    updated_at: updatedAt,
    option1: variant.title,
    option2: null,
    option3: null,
    image_id: null,
    inventory_item_id: Number(inventoryItemIdOf(variant.id)),
    inventory_quantity: variant.inventoryQuantity ?? 0,
    old_inventory_quantity: oldQuantity ?? variant.inventoryQuantity ?? 0,
  };
}

/**
 * `products/update` (the REST Product of the current API version): the product with every variant as it is
 * now (`old_inventory_quantity`: a changed variant's stock before the change), its image as `image`,
 * `images[]` and `media[]`, and `variant_gids`.
 */
export function productUpdateBody(
  product: StandInProduct,
  { imageOrigin, at, oldQuantities = {} }: { imageOrigin: string; at: number; oldQuantities?: Record<string, number> },
) {
  const updatedAt = restTime(at);
  const variants = variantsOf(product);
  const image = restImage(product, imageOrigin);
  const hasOptions = !(variants.length === 1 && variants[0]!.title === "Default Title");
  return {
    admin_graphql_api_id: `gid://shopify/Product/${product.id}`,
    body_html: "",
    created_at: CREATED_AT,
    handle: product.handle,
    id: Number(product.id),
    product_type: "",
    published_at: CREATED_AT,
    template_suffix: null,
    title: product.title,
    updated_at: updatedAt,
    vendor: "",
    status: "active",
    published_scope: "web",
    tags: "",
    variants: variants.map((variant, index) =>
      restVariant(product, variant, { position: index + 1, updatedAt, oldQuantity: oldQuantities[variant.id] }),
    ),
    options: [
      {
        name: hasOptions ? "Size" : "Title",
        id: Number(product.id),
        product_id: Number(product.id),
        position: 1,
        values: variants.map((variant) => variant.title),
      },
    ],
    images: [image],
    image,
    media: [
      {
        id: Number(product.id),
        product_id: Number(product.id),
        position: 1,
        created_at: CREATED_AT,
        updated_at: CREATED_AT,
        alt: null,
        status: "READY",
        media_content_type: "IMAGE",
        preview_image: { width: 800, height: 800, src: image.src, status: "READY" },
        variant_ids: [],
        admin_graphql_api_id: `gid://shopify/MediaImage/${product.id}`,
      },
    ],
    variant_gids: variants.map((variant) => ({
      admin_graphql_api_id: `gid://shopify/ProductVariant/${variant.id}`,
      updated_at: new Date(at).toISOString(),
    })),
    has_variants_that_requires_components: false,
    category: null,
  };
}

/** `inventory_levels/update`: the variant's inventory item at the shop's one location, and what is available. */
export function inventoryLevelUpdateBody(variant: StandInVariant, at: number) {
  const inventoryItemId = inventoryItemIdOf(variant.id);
  return {
    inventory_item_id: Number(inventoryItemId),
    location_id: Number(STAND_IN_LOCATION_ID),
    available: variant.inventoryQuantity ?? 0,
    updated_at: restTime(at),
    admin_graphql_api_id: `gid://shopify/InventoryLevel/${STAND_IN_LOCATION_ID}?inventory_item_id=${inventoryItemId}`,
  };
}
