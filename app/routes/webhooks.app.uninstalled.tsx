import type { ActionFunctionArgs } from "@remix-run/node";
import { logger } from "~/logger.server";
import { markShopUninstalled } from "~/services/shops/shops.server";
import { authenticate } from "~/shopify.server";

// authenticate.webhook verifies the HMAC and answers 401 itself when it does not match.
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, topic, webhookId } = await authenticate.webhook(request);
  logger.info({ shop, topic, webhookId }, "platform webhook received");
  await markShopUninstalled({ domain: shop });
  return new Response(null, { status: 200 });
};
