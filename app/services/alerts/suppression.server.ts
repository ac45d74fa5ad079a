/**
 * The suppression list of the alert emails (docs/decisions/050-wishlist-alerts.md): a customer who
 * unsubscribed, or whose address the mail server refused for good, gets no alert email from the shop. The
 * merchant sees the list and may take a customer off it on the customer's word.
 */
import { deleteSuppression, findSuppressed, insertSuppression } from "~/data/alert-rows.server";
import { database } from "~/data/database.server";
import { findShopById } from "~/data/shop-rows.server";
import { logger } from "~/logger.server";
import { readAlertSettings } from "./alert-settings";

/**
 * What the unsubscribe page names: the shop as its alert emails do (their From name, or its store name), its
 * storefront, and whether the customer is already off its emails; null: no such shop.
 */
export async function unsubscribePageFacts(
  shopId: string,
  customerId: string,
): Promise<{ name: string; url: string; unsubscribed: boolean } | null> {
  const shop = await findShopById(database(), shopId);
  if (!shop) return null;
  const suppressed = await findSuppressed(database(), shopId, [customerId]);
  return {
    name: readAlertSettings(shop.alertSettings).email.fromName || shop.domain.replace(/\.myshopify\.com$/, ""),
    url: `https://${shop.domain}/`,
    unsubscribed: suppressed.get(customerId) === "unsubscribed",
  };
}

/** The customer leaves the shop's alert emails (the one-click link); false for a shop no longer here. */
export async function unsubscribeCustomer(shopId: string, customerId: string): Promise<boolean> {
  const shop = await findShopById(database(), shopId);
  if (!shop) return false;
  const added = await insertSuppression(database(), shopId, { customerId, reason: "unsubscribed", at: new Date() });
  if (added) logger.info({ shopId }, "a customer unsubscribed from wishlist alerts");
  return true;
}

/** The merchant takes the customer off the list (on the customer's word). Returns whether they were on it. */
export function resubscribeCustomer(shopId: string, customerId: string): Promise<boolean> {
  return deleteSuppression(database(), shopId, customerId);
}
