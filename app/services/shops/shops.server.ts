import { prisma, sql, type Db, type Prisma } from "~/db.server";
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

/** A platform webhook, named by its `X-Shopify-Webhook-Id`, and the shop its signed body names. */
export interface PlatformWebhookReceipt {
  id: string;
  topic: string;
  shopDomain: string;
}

/** How long processed webhook ids are kept: well past the platform's retries of one delivery (48 hours). */
export const PLATFORM_WEBHOOK_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";
}

/**
 * Records the webhook id and applies its effects in one transaction, so each webhook id is processed once:
 * a second delivery of the same id (the platform's retry after a lost answer, or a captured request sent
 * again) changes nothing. Returns false for such a replay.
 */
export async function processPlatformWebhookOnce(
  webhook: PlatformWebhookReceipt,
  effects: (db: Db) => Array<Prisma.PrismaPromise<unknown>> = () => [],
): Promise<boolean> {
  try {
    await prisma.$transaction([prisma.platformWebhook.create({ data: webhook }), ...effects(prisma)]);
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

/**
 * app/uninstalled: platform sessions are useless once the app is uninstalled, and the shop's keys and
 * storefront calls are refused from now on (uninstalledAt); the shop's data stays until shop/redact.
 * Returns false when this webhook id was already processed.
 */
export async function markShopUninstalled(webhook: PlatformWebhookReceipt): Promise<boolean> {
  const domain = webhook.shopDomain;
  return processPlatformWebhookOnce(webhook, (db) => [
    db.session.deleteMany({ where: { shop: domain } }),
    db.shop.updateMany({ where: { domain }, data: { uninstalledAt: new Date() } }),
  ]);
}

/** Forgets processed webhook ids older than the retention (the worker's maintenance job). */
export async function purgeProcessedPlatformWebhooks(now = new Date()): Promise<number> {
  const { count } = await prisma.platformWebhook.deleteMany({
    where: { receivedAt: { lt: new Date(now.getTime() - PLATFORM_WEBHOOK_RETENTION_MS) } },
  });
  return count;
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
