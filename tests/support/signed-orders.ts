import { platformWebhook } from "./platform-webhooks";

/**
 * The platform's orders/* and refunds/create webhooks as the admin's tests send them (the order resource's
 * fields the app reads, and protected customer data it must not keep), signed as the platform signs them.
 * tests/services/attribution/orders.test.ts covers the matching itself; these only seed real conversions.
 */
export interface OrderLine {
  productId: string;
  variantId?: string;
  quantity: number;
  /** Unit price, a decimal in the shop's currency; the buyer pays the same figure in theirs unless given. */
  price: string;
  presentmentPrice?: string;
  /** The line's discount in the shop's currency. */
  discount?: string;
}

let nextId = 6_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1_000;
const platformNumber = () => ++nextId;

const money = (amount: string, currency: string, presentment: string, presentmentCurrency: string) => ({
  shop_money: { amount, currency_code: currency },
  presentment_money: { amount: presentment, currency_code: presentmentCurrency },
});

export function orderBody({
  customerId = null,
  guestListId = null,
  createdAt = new Date(),
  currency = "USD",
  presentmentCurrency = "EUR",
  lines,
}: {
  customerId?: string | null;
  /** A guest's list, as the storefront script writes it into the cart's hidden attribute (`cartAttribute`). */
  guestListId?: string | null;
  createdAt?: Date;
  currency?: string;
  presentmentCurrency?: string;
  lines: OrderLine[];
}) {
  const id = platformNumber();
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#${id % 100_000}`,
    email: "buyer@example.com",
    created_at: createdAt.toISOString(),
    cancelled_at: null as string | null,
    currency,
    presentment_currency: presentmentCurrency,
    financial_status: "paid",
    customer: customerId ? { id: Number(customerId), email: "buyer@example.com", first_name: "Ada" } : null,
    billing_address: { first_name: "Ada", address1: "12 Analytical Row", city: "London" },
    note_attributes: guestListId ? [{ name: "_wishlist_list", value: guestListId }] : [],
    line_items: lines.map((line) => ({
      id: platformNumber(),
      product_id: Number(line.productId),
      variant_id: line.variantId ? Number(line.variantId) : null,
      title: "A product",
      quantity: line.quantity,
      price: line.price,
      price_set: money(line.price, currency, line.presentmentPrice ?? line.price, presentmentCurrency),
      total_discount: "0.00",
      total_discount_set: money("0.00", currency, "0.00", presentmentCurrency),
      discount_allocations: line.discount
        ? [
            {
              amount: line.discount,
              amount_set: money(line.discount, currency, line.discount, presentmentCurrency),
            },
          ]
        : [],
    })),
  };
}

export type OrderBody = ReturnType<typeof orderBody>;

/** A refund of some of the order's lines (`line`: the line's index), `subtotal` in the shop's currency. */
export function refundBody(order: OrderBody, lines: Array<{ line: number; quantity: number; subtotal: string }>) {
  return {
    id: platformNumber(),
    order_id: order.id,
    created_at: new Date().toISOString(),
    refund_line_items: lines.map(({ line, quantity, subtotal }) => ({
      id: platformNumber(),
      line_item_id: order.line_items[line]!.id,
      quantity,
      subtotal: Number(subtotal),
      subtotal_set: money(subtotal, order.currency, subtotal, order.presentment_currency),
    })),
    transactions: [],
  };
}

/** The signed request of a webhook of `topic` for the shop. */
export const orderWebhook = (topic: string, shopDomain: string, body: unknown) =>
  platformWebhook(topic, shopDomain, JSON.stringify(body));
