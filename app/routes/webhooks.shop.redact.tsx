import type { ActionFunctionArgs } from "@remix-run/node";
import { logger } from "~/logger.server";
import { authenticate } from "~/shopify.server";

// Mandatory compliance topic. authenticate.webhook verifies the HMAC (401 when it does not match);
// the data work (export or erase the shopper's lists) lands with the storefront data.
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, topic, webhookId } = await authenticate.webhook(request);
  logger.info({ shop, topic, webhookId }, "compliance webhook received");
  return new Response(null, { status: 200 });
};
