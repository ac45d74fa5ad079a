/**
 * The suppression list of the alert emails (docs/decisions/050-wishlist-alerts.md): a customer who
 * unsubscribed, or whose address the mail server refused for good, gets no alert email from the shop. The
 * merchant sees the list and may take a customer off it on the customer's word.
 */
import { deleteSuppression, insertSuppression } from "~/data/alert-rows.server";
import { database } from "~/data/database.server";
import { findShopById } from "~/data/shop-rows.server";
import { logger } from "~/logger.server";
import { readAlertSettings } from "./alert-settings";

/** The name the shop's alert emails go out under (their From name), or its store name; null: no such shop. */
export async function alertSenderName(shopId: string): Promise<string | null> {
  const shop = await findShopById(database(), shopId);
  if (!shop) return null;
  return readAlertSettings(shop.alertSettings).email.fromName || shop.domain.replace(/\.myshopify\.com$/, "");
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
