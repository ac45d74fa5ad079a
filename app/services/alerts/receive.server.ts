/**
 * The platform's product and stock webhooks for the alerts (docs/decisions/050-wishlist-alerts.md):
 * products/update names a product, inventory_levels/update an inventory item (the variant's, as the last
 * reading recorded it). A product someone has saved is marked for another reading, in the same transaction
 * as the webhook's record (processed once), and the shop's reading run is queued; the run reads the product
 * from the Admin API, so the order the webhooks arrive in does not matter. A product nobody saved costs one
 * lookup and nothing more.
 */
import { findProductsOfInventoryItems, requestProductRefresh } from "~/data/catalogue-rows.server";
import { database } from "~/data/database.server";
import { findSavedProductIds } from "~/data/item-rows.server";
import { findShopForAuth } from "~/data/shop-rows.server";
import {
  processPlatformWebhookOnce,
  type PlatformWebhookOutcome,
  type PlatformWebhookReceipt,
} from "~/services/shops/platform-webhook-ledger.server";
import { queueAlertRefresh } from "./refresh.server";

type Outcome = PlatformWebhookOutcome | "unknown_shop";

async function markForReading(
  receipt: PlatformWebhookReceipt,
  productsOf: (shopId: string) => Promise<string[]>,
): Promise<{ outcome: Outcome; products: number }> {
  const shop = await findShopForAuth(database(), receipt.shopDomain);
  if (!shop) return { outcome: "unknown_shop", products: 0 };
  // A product nobody saved (most of a catalogue's updates) costs this lookup and writes nothing, not even
  // the webhook's record: a replay of it would do nothing either.
  const productIds = await productsOf(shop.id);
  if (productIds.length === 0) return { outcome: "processed", products: 0 };
  const outcome = await processPlatformWebhookOnce(receipt, async (tx) => {
    await requestProductRefresh(tx, shop.id, productIds, new Date());
    return "processed";
  });
  const products = productIds.length;
  if (outcome === "processed" && products > 0) await queueAlertRefresh(shop.id);
  return { outcome, products };
}

/** products/update: the product is read again if someone has it saved. */
export function receiveProductUpdate(receipt: PlatformWebhookReceipt, productId: string) {
  return markForReading(receipt, (shopId) => findSavedProductIds(database(), shopId, [productId]));
}

/** inventory_levels/update: the product of the inventory item is read again, if a reading knows it. */
export function receiveInventoryLevelUpdate(receipt: PlatformWebhookReceipt, inventoryItemId: string) {
  return markForReading(receipt, (shopId) => findProductsOfInventoryItems(database(), shopId, [inventoryItemId]));
}
