import { createHmac, randomUUID } from "node:crypto";
import { SHOPIFY_API_VERSION } from "~/shopify-api-version";

/** The platform's webhook request (headers and HMAC signature), written independently of the platform library. */
export function platformWebhook(
  topic: string,
  shop: string,
  body: string,
  secret = "local-dev-api-secret",
  webhookId: string = randomUUID(),
) {
  return {
    method: "POST",
    body,
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": topic,
      "X-Shopify-Shop-Domain": shop,
      "X-Shopify-API-Version": SHOPIFY_API_VERSION,
      "X-Shopify-Webhook-Id": webhookId,
      "X-Shopify-Hmac-Sha256": createHmac("sha256", secret).update(body).digest("base64"),
    },
  };
}
