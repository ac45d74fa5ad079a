/** Seeds the demo shop and prints its keys (run by `npm run dev`; also `npm run seed`). */
import path from "node:path";
import { loadEnvOrExit } from "../app/env.server";
import { demoShopData } from "../stand-in/demo-data";

const env = loadEnvOrExit();

const { closeDatabase } = await import("../app/data/database.server");
const { DEMO_SHOP_DOMAIN, seedDemoShop } = await import("../app/services/demo/demo-shop.server");

const file = path.resolve(env.DEMO_SHOP_FILE);
// The demo customers save products of the local platform stand-in's catalogue, so the admin shows their
// names and the stand-in's product pages open from it.
const catalogue = demoShopData({ domain: DEMO_SHOP_DOMAIN, accessToken: "" });
const demo = await seedDemoShop({ appUrl: env.SHOPIFY_APP_URL, file, catalogue });
await closeDatabase();

// Deliberately printed (not logged): the demo key exists so a developer can call the API at once.
process.stdout.write(
  [
    "",
    `Demo shop    ${demo.shopDomain}`,
    `API base     ${demo.apiBaseUrl}`,
    `Private key  ${demo.privateKey}`,
    `Public key   ${demo.publicKey}`,
    `Written to   ${path.relative(process.cwd(), file)}`,
    "",
    "",
  ].join("\n"),
);
