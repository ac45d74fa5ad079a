import { endPlanOfDomain } from "~/data/plan-rows.server";
import { database, transaction } from "~/data/database.server";
import { deleteSessionsOfShop } from "~/data/session-rows.server";
import {
  countShopUsage,
  findShopById,
  findShopForAuth,
  isAnyShopOrigin,
  type ShopAuthRow,
  markUninstalled,
  replaceHeadlessOrigins,
  shopExists,
  updateShopSettingsText,
  upsertShop,
} from "~/data/shop-rows.server";
import { enqueueMetafieldSync, withinMs } from "~/jobs/queues.server";
import { DomainError } from "~/lib/domain-error";
import { logger } from "~/logger.server";
import { newId } from "~/lib/ids";
import { alertIntegrationActive } from "~/services/alerts/flow.server";
import { forgetAuthentication, rememberedShop } from "~/services/keys/authentication-cache.server";
import { generatePublicKey } from "~/services/keys/key-secrets";
import {
  processPlatformWebhookOnce,
  type PlatformWebhookOutcome,
  type PlatformWebhookReceipt,
} from "./platform-webhook-ledger.server";
import { DEFAULT_SHOP_SETTINGS, readShopSettings, type ShopSettings, type ShopSettingsPatch } from "./settings";

/**
 * Creates the shop on first install (with its public key and default settings) or marks a returning
 * shop installed again. Safe to call concurrently: the unique domain makes the second create a no-op.
 */
export async function ensureShop({ domain }: { domain: string }) {
  const shop = await upsertShop(
    database(),
    { id: newId("shop"), domain, publicKey: generatePublicKey(), settings: JSON.stringify(DEFAULT_SHOP_SETTINGS) },
    new Date(),
  );
  forgetAuthentication();
  return shop;
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
  const outcome = await processPlatformWebhookOnce(webhook, async (tx) => {
    // One conditional update, so concurrent uninstalls of one shop keep the latest signed time.
    const changed = await markUninstalled(tx, domain, new Date(), signedAt);
    if (!changed && (await shopExists(tx, domain))) return "stale";
    await deleteSessionsOfShop(tx, domain);
    // The platform cancels the app's charges with the uninstall: the shop is on FREE from now.
    await endPlanOfDomain(tx, domain, new Date());
    return "processed";
  });
  forgetAuthentication();
  return outcome;
}

/**
 * What authentication needs of a shop, on every API and storefront request: read at most once a second per
 * process (services/keys/authentication-cache.server.ts says how soon a change is seen).
 */
export async function findShopByDomain(domain: string): Promise<ShopAuthRow | null> {
  return rememberedShop(domain, async () => (await findShopForAuth(database(), domain)) ?? null);
}

/**
 * The domain of the shop a stored file belongs to (`<area>/<shop id>/...`, app/services/storage/storage.ts)
 * when that shop has uninstalled the app; null otherwise. Signed file links carry their own authority, so
 * the files route asks this where the API asks the key (docs/privacy.md, "Uninstall").
 */
export async function uninstalledShopOfFile(key: string): Promise<string | null> {
  const shopId = key.split("/")[1];
  if (!shopId) return null;
  const shop = await findShopById(database(), shopId);
  return shop?.uninstalledAt ? shop.domain : null;
}

const noSuchShop = () => new DomainError("not_found", "The shop does not exist.");

async function getShopRow(shopId: string) {
  const shop = await findShopById(database(), shopId);
  if (!shop) throw noSuchShop();
  return shop;
}

/** The shop overview (OpenAPI `GET /v1/shop`): settings parsed, usage counted on the shop-scoped indexes. */
export async function getShopOverview({ shopId }: { shopId: string }) {
  const [shop, usage] = await Promise.all([getShopRow(shopId), countShopUsage(database(), shopId)]);
  return { shop, settings: await withIntegration(shopId, readShopSettings(shop.settings)), usage };
}

/**
 * The settings as the API shows them: `integrationConfigured` is also true while Flow or a webhook endpoint
 * carries the shop's wishlist alerts (docs/decisions/050-wishlist-alerts.md).
 */
async function withIntegration(shopId: string, settings: Readonly<ShopSettings>): Promise<ShopSettings> {
  if (settings.integrationConfigured) return settings;
  return { ...settings, integrationConfigured: await alertIntegrationActive(shopId) };
}

/** The shop's domain and settings, read outside any transaction; a shop that does not exist is `not_found`. */
export async function shopSettingsOf(shopId: string) {
  const shop = await getShopRow(shopId);
  return { domain: shop.domain, settings: readShopSettings(shop.settings) };
}

export async function getShopSettings({ shopId }: { shopId: string }): Promise<ShopSettings> {
  return (await shopSettingsOf(shopId)).settings;
}

/**
 * Applies a validated partial update. The settings document and the HeadlessOrigin mirror change in one
 * transaction, so CORS never sees an origin list that differs from the settings.
 */
export async function updateShopSettings({ shopId, patch }: { shopId: string; patch: ShopSettingsPatch }) {
  const { next, syncChanged } = await transaction(async (tx) => {
    // Locked: two PATCHes at once must not each rewrite the document from the same stale read (one would
    // silently undo the other, e.g. turn the metafield sync back on after the merchant turned it off).
    // The lock is held for a few single-row statements only: a PATCH waiting for it holds a connection of
    // the pool, so nothing that grows with the shop's data may run while it is held.
    const shop = await findShopById(tx, shopId, { lock: true });
    if (!shop) throw noSuchShop();
    const before = readShopSettings(shop.settings);
    const next: ShopSettings = { ...before, ...patch };
    if (patch.headlessOrigins) next.headlessOrigins = [...new Set(patch.headlessOrigins)];
    const at = new Date();
    // The customer metafield sync (docs/decisions/023-customer-metafield-sync.md): turned on, the worker
    // owes the backfill (every customer with a list owes a write); turned off, the backfill is cancelled
    // and the worker's job forgets what was owed. Both are the job's work, not this transaction's.
    const turnedOn = !before.metafieldSyncEnabled && next.metafieldSyncEnabled;
    const turnedOff = before.metafieldSyncEnabled && !next.metafieldSyncEnabled;
    await updateShopSettingsText(tx, shopId, JSON.stringify(next), at, {
      metafieldBackfillAt: turnedOn ? at : turnedOff ? null : undefined,
    });
    if (patch.headlessOrigins) await replaceHeadlessOrigins(tx, shopId, next.headlessOrigins);
    return { next, syncChanged: turnedOn || turnedOff };
  });
  forgetAuthentication();
  if (syncChanged) {
    // Now rather than after the delay: turned on, the job creates the metafield definition, marks the
    // backfill and writes it; turned off, it forgets what was owed. Best effort: the sweep queues the
    // shop within a minute when Redis does not answer.
    await withinMs(3_000, enqueueMetafieldSync([shopId], { delayMs: 0 })).catch((error: unknown) =>
      logger.warn({ err: error, shopId }, "metafield sync not queued; the sweep will queue it"),
    );
  }
  return withIntegration(shopId, next);
}

/** Whether any shop declares this browser origin (CORS preflight, which names no shop). */
export async function isDeclaredHeadlessOrigin(origin: string): Promise<boolean> {
  return isAnyShopOrigin(database(), origin);
}
