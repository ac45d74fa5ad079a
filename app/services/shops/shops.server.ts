import { prisma } from "~/db.server";
import { newId } from "~/lib/ids";
import { generatePublicKey } from "~/services/keys/secrets";
import { DEFAULT_SHOP_SETTINGS } from "./settings";

/**
 * Creates the shop on first install (with its public key and default settings) or marks a returning
 * shop installed again. Safe to call concurrently: the unique domain makes the second create a no-op.
 */
export async function ensureShop({ domain }: { domain: string }) {
  return prisma.shop.upsert({
    where: { domain },
    create: {
      id: newId("shop"),
      domain,
      publicKey: generatePublicKey(),
      settings: JSON.stringify(DEFAULT_SHOP_SETTINGS),
    },
    update: { uninstalledAt: null },
  });
}

export async function markShopUninstalled({ domain }: { domain: string }) {
  // Platform sessions are useless once the app is uninstalled; the shop's data stays until shop/redact.
  await prisma.$transaction([
    prisma.session.deleteMany({ where: { shop: domain } }),
    prisma.shop.updateMany({ where: { domain }, data: { uninstalledAt: new Date() } }),
  ]);
}
