import { serve } from "@hono/node-server";
import { afterAll } from "vitest";
import { getEnv, resetEnvCache } from "~/env.server";
import { demoShopData } from "../../stand-in/demo-data";
import { startMailbox } from "../../stand-in/mailbox";
import { startPlatformStandIn } from "../../stand-in/platform";
import { apiHarness } from "./harness";

/**
 * What the alerts' tests run against (docs/decisions/050-wishlist-alerts.md): the web process's app served on
 * loopback (so the platform stand-in can send it its signed webhooks), the stand-in answering the app's Admin
 * API calls (SHOPIFY_ADMIN_API_ORIGIN, which the worker the test starts inherits), and a real SMTP server (the
 * stand-in's mailbox). Call it after setting the file's environment; each test adds its shop to
 * `platform.shops`. All of it is closed when the file ends.
 */
export async function startAlertStack({ keep }: { keep?: number } = {}) {
  const mailbox = await startMailbox({ port: 0, ...(keep ? { keep } : {}) });
  const harness = await apiHarness();
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: harness.app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  const address = server.address();
  const appUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const platform = await startPlatformStandIn({
    appUrl,
    apiKey: getEnv().SHOPIFY_API_KEY,
    apiSecret: getEnv().SHOPIFY_API_SECRET,
    appHandle: getEnv().SHOPIFY_APP_HANDLE,
    scopes: getEnv().SCOPES,
    // The first shop's storefront is the stand-in's online store; each test adds its own shop.
    shops: [demoShopData({ domain: "placeholder.myshopify.com", accessToken: "shpat_placeholder" })],
  });
  process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
  resetEnvCache();
  afterAll(async () => {
    await platform.close();
    await mailbox.close();
    await new Promise((resolve) => server.close(resolve));
  });
  return { ...harness, appUrl, platform, mailbox };
}
