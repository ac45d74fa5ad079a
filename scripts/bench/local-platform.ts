/**
 * The stack the browser benchmarks measure (admin, theme): a fresh SQLite database with the demo shop seeded
 * as `npm run dev` seeds it (its activity made of the stand-in's catalogue), the platform stand-in answering
 * for it, and the production build's web server and worker pointed at the stand-in.
 */
import path from "node:path";
import { benchDatabase, freePort, startChild, startWorker, stopChild } from "./lib";

export async function startLocalPlatform(name: string, extraEnv: Record<string, string> = {}) {
  const database = await benchDatabase("sqlite", name);
  process.env.DATABASE_URL = database.url;
  process.env.DEMO_SHOP_FILE = path.join(database.workDir, `${name}-demo-shop.json`);
  const { seedDemoShop, DEMO_SHOP_DOMAIN, demoAccessToken } = await import("../lib/demo-shop");
  const { closeDatabase } = await import("~/data/database.server");
  const { getEnv } = await import("~/env.server");
  const { demoShopData } = await import("../../stand-in/demo-data");
  const { startPlatformStandIn } = await import("../../stand-in/platform");

  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const catalogue = demoShopData({ domain: DEMO_SHOP_DOMAIN, accessToken: "" });
  await seedDemoShop({ appUrl, file: process.env.DEMO_SHOP_FILE, catalogue });
  await closeDatabase();
  const platform = await startPlatformStandIn({
    appUrl,
    apiKey: "local-dev-api-key",
    apiSecret: "local-dev-api-secret",
    appHandle: "wishlist-service",
    scopes: getEnv().SCOPES,
    shops: [demoShopData({ domain: DEMO_SHOP_DOMAIN, accessToken: demoAccessToken() })],
  });
  const env = {
    DATABASE_URL: database.url,
    REDIS_PREFIX: `bench-${name}-${process.pid}`,
    SHOPIFY_APP_URL: appUrl,
    APP_BRIDGE_URL: `${platform.origin}/app-bridge.js`,
    SHOPIFY_ADMIN_API_ORIGIN: platform.origin,
    LOG_LEVEL: "warn",
    ...extraEnv,
  };
  const server = await startChild(
    "server/index.ts",
    [],
    { ...env, NODE_ENV: "test", PORT: String(port), HOST: "127.0.0.1" },
    `${appUrl}/healthz`,
  );
  const worker = await startWorker(env);
  return {
    appUrl,
    platform,
    shopDomain: DEMO_SHOP_DOMAIN,
    async stop() {
      await stopChild(worker);
      await stopChild(server);
      await platform.close();
      await database.drop();
    },
  };
}
