import { getEnv, resetEnvCache } from "~/env.server";
import { demoShopData } from "../../stand-in/demo-data";
import { startPlatformStandIn } from "../../stand-in/platform";

/**
 * The platform stand-in for a test file, with the app's credentials from the environment: the app's Admin API calls
 * (SHOPIFY_ADMIN_API_ORIGIN, set here for this process and the processes it starts afterwards) and its webhooks to
 * `appUrl`. It starts with a placeholder shop, whose storefront is the stand-in's online store; a test adds its own
 * shops to `platform.shops`. The caller closes it.
 */
export async function startTestPlatform(appUrl: string) {
  const platform = await startPlatformStandIn({
    appUrl,
    apiKey: getEnv().SHOPIFY_API_KEY,
    apiSecret: getEnv().SHOPIFY_API_SECRET,
    appHandle: getEnv().SHOPIFY_APP_HANDLE,
    scopes: getEnv().SCOPES,
    shops: [demoShopData({ domain: "placeholder.myshopify.com", accessToken: "shpat_placeholder" })],
  });
  process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
  resetEnvCache();
  return platform;
}
