import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { findActiveKeyBySecret, createApiKey } from "~/services/keys/api-keys.server";
import { ensureShop } from "~/services/shops/shops.server";

export const DEMO_SHOP_DOMAIN = "demo-shop.myshopify.com";

const demoFileSchema = z.object({
  shopDomain: z.string(),
  privateKey: z.string(),
  publicKey: z.string(),
  apiBaseUrl: z.string(),
});
export type DemoShop = z.infer<typeof demoFileSchema>;

function readDemoFile(file: string): DemoShop | undefined {
  try {
    return demoFileSchema.parse(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return undefined;
  }
}

/**
 * Seeds the demo shop idempotently: the shop is created once; its private key is created once and
 * reused while the key recorded in `file` still verifies (only its hash is in the database, so the
 * file is the one place the secret lives). Writes `{shopDomain, privateKey, publicKey, apiBaseUrl}`.
 */
export async function seedDemoShop({ appUrl, file }: { appUrl: string; file: string }): Promise<DemoShop> {
  const shop = await ensureShop({ domain: DEMO_SHOP_DOMAIN });
  let privateKey = readDemoFile(file)?.privateKey;
  if (!privateKey || !(await findActiveKeyBySecret({ shopId: shop.id, secret: privateKey }))) {
    privateKey = (await createApiKey({ shopId: shop.id, label: "Demo key" })).secret;
  }
  const demo: DemoShop = {
    shopDomain: shop.domain,
    privateKey,
    publicKey: shop.publicKey,
    apiBaseUrl: `${appUrl}/v1`,
  };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return demo;
}
