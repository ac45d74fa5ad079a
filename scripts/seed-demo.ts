/** Seeds the demo shop and prints its keys (run by `npm run dev`; also `npm run seed`). */
import path from "node:path";
import { loadDotEnv, loadEnvOrExit } from "~/env.server";
import { demoShopData } from "../stand-in/demo-data";

// The demo shop has a stored platform session and a private key anyone reading this file knows the
// making of: it has no place in a production database. Checked before the rest of the environment, so
// this is what a production run is told, whatever else its settings lack.
loadDotEnv();
if (process.env.NODE_ENV === "production") {
  process.stderr.write("npm run seed is for development: refusing to create the demo shop with NODE_ENV=production\n");
  process.exit(1);
}
const env = loadEnvOrExit();

const { closeDatabase } = await import("~/data/database.server");
const { closeRequestRedis } = await import("~/redis.server");
const { DEMO_SHOP_DOMAIN, seedDemoShop } = await import("./lib/demo-shop");

const file = path.resolve(env.DEMO_SHOP_FILE);
// The demo customers save products of the local platform stand-in's catalogue, so the admin shows their
// names and the stand-in's product pages open from it.
const catalogue = demoShopData({ domain: DEMO_SHOP_DOMAIN, accessToken: "" });
const demo = await seedDemoShop({ appUrl: env.SHOPIFY_APP_URL, file, catalogue });
// Saves queue the worker's product lookups through the request connection: it goes too, or the script
// would not end.
await Promise.all([closeDatabase(), closeRequestRedis()]);

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
