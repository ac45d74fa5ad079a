/**
 * Orders matched to saves (docs/decisions/052-attribution.md). Each verified order webhook is applied once, in
 * the transaction that records it (platform-webhook-ledger.server.ts): every line of a product the buyer had
 * saved before the order was placed becomes a conversion, with the daily rollups in the same transaction; the
 * saved items are marked bought (or removed, as the shop's `boughtItems` setting says). The buyer is the
 * order's customer and, for a guest's order, the anonymous owner of the list its hidden cart attribute names.
 *
 * Whatever order the platform delivers them in, the webhooks agree: orders/create and orders/paid carry the
 * same order, and its lines are recorded by the first to arrive (unique shop, order and line); orders/cancelled
 * records the order if it is the first, then takes all of it back; a refund line is applied once by the
 * refund's id and never takes back more than its line. An order already cancelled counts no revenue.
 */
import {
  addConversionDelays,
  addConversionOrders,
  addConversionStats,
  findAlertClicks,
  findAnonymousOwnerOfList,
  findConversionsOfOrder,
  findSavedItemsOfProducts,
  insertConversionRefund,
  insertConversions,
  markItemsPurchased,
  orderHasConversions,
  setConversionRefunded,
  type ConversionInsert,
  type ConversionRow,
  type SavedItemMatch,
} from "~/data/conversion-rows.server";
import { database, type Tx } from "~/data/database.server";
import { deleteItemById } from "~/data/item-rows.server";
import { findOwnerList } from "~/data/list-rows.server";
import { findShopForAuth } from "~/data/shop-rows.server";
import { newId } from "~/lib/ids";
import { logger } from "~/logger.server";
import { markOwnersActive, utcDay } from "~/services/analytics/rollups.server";
import { ownerOfColumns } from "~/services/owners/owner";
import {
  processPlatformWebhookOnce,
  type PlatformWebhookOutcome,
  type PlatformWebhookReceipt,
} from "~/services/shops/platform-webhook-ledger.server";
import { readShopSettings } from "~/services/shops/settings";
import { finishChange, ownerValue } from "~/services/wishlists/wishlists.server";
import { isGuestListTag } from "./guest-list-attribute.server";
import type { Order, RefundLine } from "./order-payloads";

/** How long before an order a followed alert or reminder link counts as what brought the buyer back. */
export const ATTRIBUTION_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The last millisecond of the second the order was placed in. The platform writes an order's `created_at` in
 * whole seconds, the app a click to the millisecond: a link followed in the order's own second may have come
 * before it (the storefront's checkout can follow a click within the second), and counts.
 */
const endOfOrderSecond = (orderedAt: Date) => new Date(Math.floor(orderedAt.getTime() / 1000) * 1000 + 999);

type Outcome = PlatformWebhookOutcome | "unknown_shop";

export interface OrderOutcome {
  outcome: Outcome;
  /** Conversions this webhook recorded. */
  recorded: number;
}

/** orders/create, orders/paid and orders/cancelled: the order's lines matched to saves, once. */
export async function receiveOrder(receipt: PlatformWebhookReceipt, order: Order): Promise<OrderOutcome> {
  const shop = await findShopForAuth(database(), receipt.shopDomain);
  if (!shop) return { outcome: "unknown_shop", recorded: 0 };
  let recorded = 0;
  const outcome = await processPlatformWebhookOnce(receipt, async (tx) => {
    recorded = await recordOrder(tx, { id: shop.id, settings: shop.settings }, order, new Date());
    if (order.cancelledAt) await cancelOrder(tx, shop.id, order.orderId, order.cancelledAt);
    return "processed";
  });
  if (outcome === "processed" && recorded > 0) {
    logger.info({ shopId: shop.id, orderId: order.orderId, conversions: recorded }, "order matched to saved items");
  }
  return { outcome, recorded };
}

/** refunds/create: the refund's lines taken back from the order's conversions, once each. */
export async function receiveRefund(
  receipt: PlatformWebhookReceipt,
  refund: { refundId: string; orderId: string; lines: RefundLine[] },
): Promise<{ outcome: Outcome }> {
  const shop = await findShopForAuth(database(), receipt.shopDomain);
  if (!shop) return { outcome: "unknown_shop" };
  const outcome = await processPlatformWebhookOnce(receipt, async (tx) => {
    await applyRefund(tx, shop.id, refund, new Date());
    return "processed";
  });
  return { outcome };
}

/**
 * The buyer's owners: the order's customer, and the anonymous owner of the guest list the cart named, when the
 * attribute's tag is the one the app gave that guest (a list id alone, which a share link shows, is not enough).
 */
async function buyersOf(tx: Tx, shopId: string, order: Order) {
  const owners: Array<{ column: "customerId" | "anonymousId"; value: string }> = [];
  if (order.customerId) owners.push({ column: "customerId", value: order.customerId });
  if (order.guestList) {
    const { listId, tag } = order.guestList;
    const anonymousId = await findAnonymousOwnerOfList(tx, shopId, listId);
    if (anonymousId && isGuestListTag(shopId, listId, anonymousId, tag)) {
      owners.push({ column: "anonymousId", value: anonymousId });
    }
  }
  return owners;
}

/**
 * Records the order's conversions (none twice) and their rollups; marks or removes the items it bought.
 * Returns how many conversions it recorded.
 */
export async function recordOrder(
  tx: Tx,
  shop: { id: string; settings: string },
  order: Order,
  now: Date,
): Promise<number> {
  const productIds = [...new Set(order.lines.map((line) => line.productId))];
  if (productIds.length === 0) return 0;
  const owners = await buyersOf(tx, shop.id, order);
  if (owners.length === 0) return 0;
  const saved: SavedItemMatch[] = [];
  for (const owner of owners) {
    const items = await findSavedItemsOfProducts(tx, shop.id, owner, productIds, order.orderedAt);
    // An item an earlier order bought brought that sale, not this one.
    saved.push(...items.filter((item) => item.purchasedAt === null || item.purchasedAt >= order.orderedAt));
  }
  if (saved.length === 0) return 0;
  const firstSave = new Map<string, SavedItemMatch>();
  for (const item of saved) {
    const seen = firstSave.get(item.productId);
    if (!seen || item.addedAt < seen.addedAt) firstSave.set(item.productId, item);
  }
  const clicks = order.customerId
    ? await findAlertClicks(
        tx,
        shop.id,
        order.customerId,
        [...firstSave.keys()],
        new Date(order.orderedAt.getTime() - ATTRIBUTION_WINDOW_MS),
        endOfOrderSecond(order.orderedAt),
      )
    : new Map<string, { id: string; kind: string }>();
  const existed = await orderHasConversions(tx, shop.id, order.orderId);
  const day = utcDay(order.orderedAt);
  const rows: ConversionInsert[] = [];
  for (const line of order.lines) {
    const item = firstSave.get(line.productId);
    if (!item) continue;
    const click = clicks.get(line.productId);
    rows.push({
      id: newId("conversion"),
      shopId: shop.id,
      orderId: order.orderId,
      lineItemId: line.lineItemId,
      // The customer when the order names one (a guest's saves then count as theirs too); else the guest.
      customerId: order.customerId,
      anonymousId: order.customerId ? null : item.anonymousId,
      productId: line.productId,
      variantId: line.variantId,
      quantity: line.quantity,
      amountMinor: line.amountMinor,
      currency: order.currency,
      presentmentAmountMinor: line.presentmentAmountMinor,
      presentmentCurrency: order.presentmentCurrency,
      savedAt: item.addedAt,
      orderedAt: order.orderedAt,
      day,
      days: Math.max(0, Math.floor((order.orderedAt.getTime() - item.addedAt.getTime()) / DAY_MS)),
      source: click?.kind ?? "",
      alertId: click?.id ?? null,
      createdAt: now,
    });
  }
  const inserted = await insertConversions(tx, rows);
  if (inserted.length === 0) return 0;
  await addRollups(tx, shop.id, inserted, existed ? 0 : 1);
  await markOwnersActive(tx, shop.id, day, inserted.map(ownerOfColumns));
  const bought = saved.filter((item) => inserted.some((row) => row.productId === item.productId));
  await settleBoughtItems(tx, shop, bought, order.orderedAt, now);
  return inserted.length;
}

async function addRollups(tx: Tx, shopId: string, rows: readonly ConversionRow[], newOrders: number) {
  const stats = new Map<string, Parameters<typeof addConversionStats>[1][number]>();
  const delays = new Map<string, { shopId: string; day: string; days: number; lines: number }>();
  for (const row of rows) {
    const key = JSON.stringify([row.day, row.productId, row.source, row.currency]);
    const stat = stats.get(key) ?? {
      shopId,
      day: row.day,
      productId: row.productId,
      source: row.source,
      currency: row.currency,
      lines: 0,
      quantity: 0,
      revenueMinor: 0,
      refundedMinor: 0,
    };
    stat.lines++;
    stat.quantity += row.quantity;
    stat.revenueMinor += row.amountMinor;
    stats.set(key, stat);
    const delayKey = JSON.stringify([row.day, row.days]);
    const delay = delays.get(delayKey) ?? { shopId, day: row.day, days: row.days, lines: 0 };
    delay.lines++;
    delays.set(delayKey, delay);
  }
  await addConversionStats(tx, [...stats.values()]);
  await addConversionDelays(tx, [...delays.values()]);
  if (newOrders > 0) await addConversionOrders(tx, { shopId, day: rows[0]!.day, orders: newOrders, cancelled: 0 });
}

/**
 * The buyer's saved items of the products bought: marked bought (`purchasedAt`), or, where the shop removes
 * bought items, removed from their lists as the shopper's own removal is (an `item.removed` event each).
 */
async function settleBoughtItems(
  tx: Tx,
  shop: { id: string; settings: string },
  items: readonly SavedItemMatch[],
  orderedAt: Date,
  now: Date,
) {
  const open = items.filter((item) => item.purchasedAt === null);
  if (open.length === 0) return;
  if (readShopSettings(shop.settings).boughtItems === "keep") {
    await markItemsPurchased(
      tx,
      shop.id,
      open.map((item) => item.id),
      orderedAt,
    );
    return;
  }
  // Lists locked in id order, as every writer of several lists locks them, so that no two can deadlock.
  const byList = new Map<string, SavedItemMatch[]>();
  for (const item of open) byList.set(item.listId, [...(byList.get(item.listId) ?? []), item]);
  for (const listId of [...byList.keys()].sort()) {
    const first = byList.get(listId)![0]!;
    const owner = ownerOfColumns(first);
    const list = await findOwnerList(tx, shop.id, ownerValue(owner), listId, { lock: true });
    if (!list) continue; // a retired guest list: its items stay where the merge left them
    for (const item of byList.get(listId)!) {
      const removed = await deleteItemById(tx, shop.id, list.id, item.id);
      if (removed) {
        await finishChange(tx, {
          shopId: shop.id,
          owner,
          list,
          item: { ...removed, purchasedAt: orderedAt },
          type: "item.removed",
          at: now,
        });
      }
    }
  }
}

/** Takes back all of the order's conversions not cancelled yet (orders/cancelled), and counts the order cancelled. */
export async function cancelOrder(tx: Tx, shopId: string, orderId: string, cancelledAt: Date) {
  const conversions = await findConversionsOfOrder(tx, shopId, orderId, { lock: true });
  const open = conversions.filter((row) => row.cancelledAt === null);
  if (open.length === 0) return;
  const stats = [];
  for (const row of open) {
    await setConversionRefunded(tx, shopId, row.id, {
      refundedQuantity: row.quantity,
      refundedMinor: row.amountMinor,
      presentmentRefundedMinor: row.presentmentAmountMinor,
      cancelledAt,
    });
    stats.push(refundStat(row, row.amountMinor - row.refundedMinor));
  }
  await addConversionStats(tx, stats);
  await addConversionOrders(tx, { shopId, day: open[0]!.day, orders: 0, cancelled: 1 });
  // A cancelled order's lines leave the median of days from save to purchase.
  const delays = new Map<number, number>();
  for (const row of open) delays.set(row.days, (delays.get(row.days) ?? 0) + 1);
  await addConversionDelays(
    tx,
    [...delays].map(([days, lines]) => ({ shopId, day: open[0]!.day, days, lines: -lines })),
  );
}

function refundStat(row: ConversionRow, refundedMinor: number) {
  return {
    shopId: row.shopId,
    day: row.day,
    productId: row.productId,
    source: row.source,
    currency: row.currency,
    lines: 0,
    quantity: 0,
    revenueMinor: 0,
    refundedMinor,
  };
}

/** Applies each refund line to its conversion once, never past the line's quantity and amount. */
async function applyRefund(
  tx: Tx,
  shopId: string,
  refund: { refundId: string; orderId: string; lines: RefundLine[] },
  now: Date,
) {
  if (refund.lines.length === 0) return;
  const conversions = await findConversionsOfOrder(tx, shopId, refund.orderId, { lock: true });
  if (conversions.length === 0) return;
  const byLine = new Map(conversions.map((row) => [row.lineItemId, row]));
  const stats = [];
  for (const line of refund.lines) {
    const row = byLine.get(line.lineItemId);
    if (!row) continue;
    const first = await insertConversionRefund(tx, {
      shopId,
      refundId: refund.refundId,
      lineItemId: line.lineItemId,
      conversionId: row.id,
      quantity: line.quantity,
      amountMinor: line.amountMinor,
      presentmentAmountMinor: line.presentmentAmountMinor,
      createdAt: now,
    });
    if (!first || row.cancelledAt !== null) continue;
    const refundedMinor = Math.min(row.amountMinor, row.refundedMinor + line.amountMinor);
    const next = {
      refundedQuantity: Math.min(row.quantity, row.refundedQuantity + line.quantity),
      refundedMinor,
      presentmentRefundedMinor: Math.min(
        row.presentmentAmountMinor,
        row.presentmentRefundedMinor + line.presentmentAmountMinor,
      ),
    };
    await setConversionRefunded(tx, shopId, row.id, next);
    if (refundedMinor > row.refundedMinor) stats.push(refundStat(row, refundedMinor - row.refundedMinor));
    byLine.set(line.lineItemId, { ...row, ...next });
  }
  await addConversionStats(tx, stats);
}
