import { prisma, sql, type Prisma } from "~/db.server";
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

/**
 * A verified platform webhook: its `X-Shopify-Webhook-Id`, the SHA-256 of its signed body (hex), and the
 * shop the signed body names.
 */
export interface PlatformWebhookReceipt {
  id: string;
  topic: string;
  shopDomain: string;
  bodySha256: string;
}

/** What became of a verified webhook. */
export type PlatformWebhookOutcome =
  /** recorded and applied */
  | "processed"
  /** this webhook id or this signed body was processed before: nothing done */
  | "replay"
  /** recorded, but its signed content is older than what was already applied: nothing done */
  | "stale";

/** How long processed webhook ids are kept: well past the platform's retries of one delivery (48 hours). */
export const PLATFORM_WEBHOOK_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";
}

/**
 * Records the webhook id and the digest of its signed body (`sha256:<hex>`), both in the `PlatformWebhook`
 * table, and applies its effects in the same transaction, so each webhook is processed once: a second
 * delivery of the same id (the platform's retry after a lost answer), or of the same signed body under
 * another id (the HMAC does not cover `X-Shopify-Webhook-Id`, so a captured request can be sent again with
 * a new one), changes nothing and answers "replay". `effects` may answer "stale" to have the webhook
 * recorded without effect.
 */
export async function processPlatformWebhookOnce(
  webhook: PlatformWebhookReceipt,
  effects: (tx: Prisma.TransactionClient) => Promise<"processed" | "stale"> = async () => "processed",
): Promise<PlatformWebhookOutcome> {
  const { id, topic, shopDomain, bodySha256 } = webhook;
  try {
    return await prisma.$transaction(async (tx) => {
      await tx.platformWebhook.create({ data: { id, topic, shopDomain } });
      await tx.platformWebhook.create({ data: { id: `sha256:${bodySha256}`, topic, shopDomain } });
      return effects(tx);
    });
  } catch (error) {
    if (isUniqueViolation(error)) return "replay";
    throw error;
  }
}

/**
 * app/uninstalled: platform sessions are useless once the app is uninstalled, and the shop's keys and
 * storefront calls are refused from now on (uninstalledAt); the shop's data stays until shop/redact.
 *
 * `signedAt` is the signed body's `updated_at` (the shop resource's), when it has one. An uninstall signed
 * no later than the one last applied to the shop (`Shop.uninstallSignedAt`) is a replay of a body older
 * than the retention of processed webhooks, or the platform's late retry of an older uninstall: it is
 * recorded and does nothing ("stale"), so it cannot uninstall a reinstalled shop
 * (docs/decisions/015-platform-callers.md).
 */
export async function markShopUninstalled(
  webhook: PlatformWebhookReceipt,
  signedAt: Date | null,
): Promise<PlatformWebhookOutcome> {
  const domain = webhook.shopDomain;
  return processPlatformWebhookOnce(webhook, async (tx) => {
    // One conditional update, so concurrent uninstalls of one shop keep the latest signed time.
    const { count } = await tx.shop.updateMany({
      where: {
        domain,
        ...(signedAt && { OR: [{ uninstallSignedAt: null }, { uninstallSignedAt: { lt: signedAt } }] }),
      },
      data: { uninstalledAt: new Date(), ...(signedAt && { uninstallSignedAt: signedAt }) },
    });
    if (count === 0 && (await tx.shop.count({ where: { domain } })) > 0) return "stale";
    await tx.session.deleteMany({ where: { shop: domain } });
    return "processed";
  });
}

/** Forgets processed webhook ids and body digests older than the retention (the worker's maintenance job). */
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
