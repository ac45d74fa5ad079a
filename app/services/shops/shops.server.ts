import { prisma, sql } from "~/db.server";
import { parseTimestampOrNull } from "~/sql.server";
import { AppError } from "~/lib/problems";
import { newId } from "~/lib/ids";
import { generatePublicKey } from "~/services/keys/secrets";
import { DEFAULT_SHOP_SETTINGS, readShopSettings, type ShopSettings, type ShopSettingsPatch } from "./settings";

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

/**
 * What authentication needs of a shop, on every storefront request: direct SQL (decision 012), since
 * through the ORM this one lookup cost more CPU than the rest of a wishlist read.
 */
export async function findShopByDomain(domain: string) {
  const row = await sql().get<{
    id: string;
    domain: string;
    publicKey: string;
    settings: string;
    uninstalledAt: unknown;
  }>(`SELECT "id", "domain", "publicKey", "settings", "uninstalledAt" FROM "Shop" WHERE "domain" = ?`, [domain]);
  return row ? { ...row, uninstalledAt: parseTimestampOrNull(row.uninstalledAt) } : null;
}

async function getShopRow(shopId: string) {
  const shop = await prisma.shop.findUnique({ where: { id: shopId } });
  if (!shop) throw new AppError("not-found", { detail: "The shop does not exist." });
  return shop;
}

/** The shop overview (spec 2): settings parsed, usage counted on the shop-scoped indexes. */
export async function getShopOverview({ shopId }: { shopId: string }) {
  const [shop, lists, items] = await Promise.all([
    getShopRow(shopId),
    prisma.list.count({ where: { shopId, retiredAt: null } }),
    prisma.item.count({ where: { shopId } }),
  ]);
  return { shop, settings: readShopSettings(shop.settings), usage: { lists, items } };
}

export async function getShopSettings({ shopId }: { shopId: string }): Promise<ShopSettings> {
  return readShopSettings((await getShopRow(shopId)).settings);
}

/**
 * Applies a validated partial update. The settings document and the HeadlessOrigin mirror change in one
 * transaction, so CORS never sees an origin list that differs from the settings.
 */
export async function updateShopSettings({ shopId, patch }: { shopId: string; patch: ShopSettingsPatch }) {
  return prisma.$transaction(async (tx) => {
    const shop = await tx.shop.findUnique({ where: { id: shopId } });
    if (!shop) throw new AppError("not-found", { detail: "The shop does not exist." });
    const next: ShopSettings = { ...readShopSettings(shop.settings), ...patch };
    if (patch.headlessOrigins) next.headlessOrigins = [...new Set(patch.headlessOrigins)];
    await tx.shop.update({ where: { id: shopId }, data: { settings: JSON.stringify(next) } });
    if (patch.headlessOrigins) {
      await tx.headlessOrigin.deleteMany({ where: { shopId } });
      if (next.headlessOrigins.length) {
        await tx.headlessOrigin.createMany({ data: next.headlessOrigins.map((origin) => ({ shopId, origin })) });
      }
    }
    return next;
  });
}

/** Whether any shop declares this browser origin (CORS preflight, which names no shop). */
export async function isDeclaredHeadlessOrigin(origin: string): Promise<boolean> {
  return (await prisma.headlessOrigin.findFirst({ where: { origin }, select: { shopId: true } })) !== null;
}
