/**
 * The alert rules (docs/decisions/050-wishlist-alerts.md), as pure functions of two catalogue readings of a
 * product and one saved item: what the item's shopper is to hear of. The evaluation
 * (./evaluate.server.ts) applies them to every customer's item of a product that changed, then the cooldown.
 */
import type { AlertKind, AlertSettings } from "./alert-settings";

/** One variant as a reading found it. */
export interface VariantState {
  variantId: string;
  priceMinor: number;
  currency: string;
  available: boolean;
  /** Units left across locations; null where the stock is not tracked. */
  inventoryQuantity: number | null;
}

/** What a saved item watches: its variant, or (saved without one, or its variant gone) the product as a whole. */
export interface WatchedState {
  /** The variant watched; "" for the product as a whole. */
  variantId: string;
  available: boolean;
  priceMinor: number;
  currency: string;
  quantity: number | null;
}

/**
 * The item's view of a reading: the chosen variant when the product still has it; else the product, which
 * is available when any variant is, costs what its cheapest available variant costs (the cheapest of all
 * when none is), and has the units of its variants when every one is tracked. Null: no reading.
 */
export function watchedState(variants: readonly VariantState[], variantId: string): WatchedState | null {
  if (variants.length === 0) return null;
  const chosen = variantId ? variants.find((variant) => variant.variantId === variantId) : undefined;
  if (chosen) {
    return {
      variantId,
      available: chosen.available,
      priceMinor: chosen.priceMinor,
      currency: chosen.currency,
      quantity: chosen.inventoryQuantity,
    };
  }
  const available = variants.filter((variant) => variant.available);
  const priced = available.length > 0 ? available : variants;
  const tracked = variants.every((variant) => variant.inventoryQuantity !== null);
  return {
    variantId: "",
    available: available.length > 0,
    priceMinor: Math.min(...priced.map((variant) => variant.priceMinor)),
    currency: priced[0]!.currency,
    quantity: tracked
      ? available.reduce((units, variant) => units + Math.max(0, variant.inventoryQuantity ?? 0), 0)
      : null,
  };
}

/** What an item remembers between readings. */
export interface ItemMemory {
  /** The price a drop is measured from: the one seen at save, then the one last alerted. */
  priceSeenMinor: number | null;
  /** Set while the shopper has been told the item runs low. */
  lowStockAlertedAt: Date | null;
}

export interface AlertFinding {
  kind: AlertKind;
  oldPriceMinor: number | null;
  newPriceMinor: number;
  quantity: number | null;
}

/**
 * The alerts one change of a product makes for one item, before the cooldown. A first reading (`before`
 * null) alerts nothing: it is what the shopper saw.
 *  - back in stock: unavailable, then available;
 *  - price drop: available, cheaper than before, and at least `minPercent` below the price the shopper saw
 *    (or was last alerted of); a change of currency compares nothing;
 *  - low stock: available with 1..threshold units left, and not told so since it was last above.
 */
export function findAlerts(
  before: WatchedState | null,
  after: WatchedState,
  item: ItemMemory,
  settings: AlertSettings,
): AlertFinding[] {
  if (!before) return [];
  const found: AlertFinding[] = [];
  const base = { newPriceMinor: after.priceMinor, quantity: after.quantity };
  if (settings.backInStock.enabled && !before.available && after.available) {
    found.push({ kind: "back_in_stock", oldPriceMinor: null, ...base });
  }
  if (settings.priceDrop.enabled && after.available && before.currency === after.currency) {
    const reference = item.priceSeenMinor ?? before.priceMinor;
    const limit = (reference * (100 - settings.priceDrop.minPercent)) / 100;
    if (after.priceMinor < before.priceMinor && after.priceMinor <= limit) {
      found.push({ kind: "price_dropped", oldPriceMinor: reference, ...base });
    }
  }
  const { threshold } = settings.lowStock;
  if (
    settings.lowStock.enabled &&
    after.available &&
    after.quantity !== null &&
    after.quantity > 0 &&
    after.quantity <= threshold &&
    item.lowStockAlertedAt === null
  ) {
    found.push({ kind: "low_stock", oldPriceMinor: null, ...base });
  }
  return found;
}

/** Whether the item's low-stock mark is to be cleared: its stock is above the threshold again (or untracked). */
export function lowStockRearmed(after: WatchedState, settings: AlertSettings): boolean {
  return after.quantity === null || after.quantity > settings.lowStock.threshold;
}
