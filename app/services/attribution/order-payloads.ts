/**
 * What the app reads of the platform's order and refund webhooks (orders/create, orders/paid, orders/cancelled,
 * refunds/create; docs/decisions/052-attribution.md). The bodies carry protected customer data (the buyer's
 * name, email, addresses, phone): these schemas name only the ids, times, amounts and the cart attribute the
 * matching needs, so nothing else is ever parsed, kept or logged (zod drops the members it does not name).
 * Money arrives as decimal strings in `*_set` pairs (`shop_money` in the shop's currency, `presentment_money` in
 * the buyer's) and is turned into minor units exactly (lib/money.ts).
 */
import { z } from "zod";
import { toMinorUnits } from "~/lib/money";

/**
 * The hidden cart attribute the storefront script writes for a guest: their default list's id and the app's tag
 * (`lst_<id>.<tag>`, guest-list-attribute.server.ts), which proves the cart was the guest's.
 */
export const GUEST_LIST_ATTRIBUTE = "_wishlist_list";

const platformId = z
  .union([z.number().int().positive().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^[1-9]\d{0,19}$/)])
  .transform(String);

const currencyCode = z.string().regex(/^[A-Z]{3}$/);
const money = z.object({ amount: z.union([z.string(), z.number()]).transform(String), currency_code: currencyCode });
const moneySet = z.object({ shop_money: money, presentment_money: money });

/** A money set in minor units of each currency; null for an amount that is not one. */
function minorOf(set: z.output<typeof moneySet>) {
  const shop = toMinorUnits(set.shop_money.amount, set.shop_money.currency_code);
  const presentment = toMinorUnits(set.presentment_money.amount, set.presentment_money.currency_code);
  return shop === null || presentment === null ? null : { shop, presentment };
}

const lineItem = z.object({
  id: platformId,
  // A custom line (no product) has none.
  product_id: platformId.nullish(),
  variant_id: platformId.nullish(),
  quantity: z.number().int().min(0).max(1_000_000),
  price_set: moneySet,
  discount_allocations: z.array(z.object({ amount_set: moneySet })).nullish(),
});

const noteAttribute = z.object({ name: z.string(), value: z.unknown() });

export const orderPayload = z.object({
  id: platformId,
  created_at: z.iso.datetime({ offset: true }),
  cancelled_at: z.iso.datetime({ offset: true }).nullish(),
  currency: currencyCode,
  presentment_currency: currencyCode.nullish(),
  customer: z.object({ id: platformId }).nullish(),
  note_attributes: z.array(noteAttribute).nullish().catch(null),
  line_items: z.array(lineItem).max(2_000),
});

export const refundPayload = z.object({
  id: platformId,
  order_id: platformId,
  refund_line_items: z
    .array(
      z.object({ line_item_id: platformId, quantity: z.number().int().min(0).max(1_000_000), subtotal_set: moneySet }),
    )
    .max(2_000),
});

/** One line of an order, as the matching reads it. */
export interface OrderLine {
  lineItemId: string;
  productId: string;
  variantId: string;
  quantity: number;
  /** After the line's discounts, in minor units of the shop's and the buyer's currency. */
  amountMinor: number;
  presentmentAmountMinor: number;
}

export interface Order {
  orderId: string;
  orderedAt: Date;
  cancelledAt: Date | null;
  currency: string;
  presentmentCurrency: string;
  customerId: string | null;
  /** The list the cart attribute names (a guest's order), with the tag to check, when it names one. */
  guestList: { listId: string; tag: string } | null;
  /** The lines that name a product, with a quantity and amounts the app can read. */
  lines: OrderLine[];
}

const GUEST_LIST = /^(lst_[A-Za-z0-9]{1,64})\.([A-Za-z0-9_-]{22})$/;

/** The order as the matching reads it, or null when the body is not an order. */
export function readOrder(json: unknown): Order | null {
  const parsed = orderPayload.safeParse(json);
  if (!parsed.success) return null;
  const order = parsed.data;
  const attribute = order.note_attributes?.find((entry) => entry.name === GUEST_LIST_ATTRIBUTE)?.value;
  // A bare list id (which a share link shows anyone) names nothing.
  const guestList = typeof attribute === "string" ? GUEST_LIST.exec(attribute) : null;
  const lines: OrderLine[] = [];
  for (const line of order.line_items) {
    if (!line.product_id || line.quantity === 0) continue;
    const unit = minorOf(line.price_set);
    // A line whose amount is past the exact integers (2^53 minor units) is not one the app can read either.
    if (!unit || !Number.isSafeInteger(unit.shop * line.quantity)) continue;
    if (!Number.isSafeInteger(unit.presentment * line.quantity)) continue;
    let discount = { shop: 0, presentment: 0 };
    for (const allocation of line.discount_allocations ?? []) {
      const amount = minorOf(allocation.amount_set);
      if (amount)
        discount = { shop: discount.shop + amount.shop, presentment: discount.presentment + amount.presentment };
    }
    lines.push({
      lineItemId: line.id,
      productId: line.product_id,
      variantId: line.variant_id ?? "",
      quantity: line.quantity,
      amountMinor: Math.max(0, unit.shop * line.quantity - discount.shop),
      presentmentAmountMinor: Math.max(0, unit.presentment * line.quantity - discount.presentment),
    });
  }
  return {
    orderId: order.id,
    orderedAt: new Date(order.created_at),
    cancelledAt: order.cancelled_at ? new Date(order.cancelled_at) : null,
    currency: order.currency,
    presentmentCurrency: order.presentment_currency ?? order.currency,
    customerId: order.customer?.id ?? null,
    guestList: guestList ? { listId: guestList[1]!, tag: guestList[2]! } : null,
    lines,
  };
}

export interface RefundLine {
  lineItemId: string;
  quantity: number;
  amountMinor: number;
  presentmentAmountMinor: number;
}

/** The refund as the adjustment reads it, or null when the body is not a refund. */
export function readRefund(json: unknown): { refundId: string; orderId: string; lines: RefundLine[] } | null {
  const parsed = refundPayload.safeParse(json);
  if (!parsed.success) return null;
  const lines: RefundLine[] = [];
  for (const line of parsed.data.refund_line_items) {
    const amount = minorOf(line.subtotal_set);
    if (!amount) continue;
    lines.push({
      lineItemId: line.line_item_id,
      quantity: line.quantity,
      amountMinor: amount.shop,
      presentmentAmountMinor: amount.presentment,
    });
  }
  return { refundId: parsed.data.id, orderId: parsed.data.order_id, lines };
}
