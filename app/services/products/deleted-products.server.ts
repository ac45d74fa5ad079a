/**
 * products/delete (docs/decisions/022-product-snapshots.md): the shop's saved items of a product deleted in
 * the shop are marked unavailable, so list responses say so (`available: false`) instead of linking to a
 * page that is gone. Recorded once per webhook id and signed body, in the same transaction.
 */
import { database } from "~/data/database.server";
import { markProductsGone } from "~/data/item-rows.server";
import { findShopForAuth } from "~/data/shop-rows.server";
import { logger } from "~/logger.server";
import {
  processPlatformWebhookOnce,
  type PlatformWebhookOutcome,
  type PlatformWebhookReceipt,
} from "~/services/shops/platform-webhook-ledger.server";

/**
 * Marks the shop's items of the deleted product unavailable. A shop this app does not hold (never
 * installed, or erased) has no items: answered "unknown_shop", nothing recorded.
 */
export async function receiveProductDeletion(
  receipt: PlatformWebhookReceipt,
  productId: string,
): Promise<PlatformWebhookOutcome | "unknown_shop"> {
  const shop = await findShopForAuth(database(), receipt.shopDomain);
  if (!shop) return "unknown_shop";
  let items = 0;
  const outcome = await processPlatformWebhookOnce(receipt, async (tx) => {
    items = await markProductsGone(tx, shop.id, [productId], new Date());
    return "processed";
  });
  if (outcome === "processed") logger.info({ shopId: shop.id, productId, items }, "deleted product's items marked");
  return outcome;
}
