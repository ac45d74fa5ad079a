/**
 * The stand-in's orders: what its checkout makes of a cart (stand-in/online-store.ts), what the merchant's
 * cancellations and refunds do to an order (stand-in/order-admin.ts), and the REST bodies the platform sends
 * for them (`orders/create`, `orders/paid`, `orders/cancelled`: the Order resource; `refunds/create`: the Refund
 * resource), as its webhook reference documents them for the app's API version. Fields the app has no use
 * for and the stand-in has no data for (addresses, taxes, shipping, discounts, fulfilments) carry the
 * platform's empty values. docs/storefront.md ("Checkout") says what the checkout does.
 *
 * Money is integer minor units (cents) from end to end (stand-in/money.ts): an order keeps each line's unit
 * price in the shop's currency and in the presentment currency, and every total is a sum of those, so the
 * amounts add up exactly in both currencies.
 */
import { randomBytes } from "node:crypto";
import { findVariant, isAvailableForSale } from "./catalogue";
import type { EmailMarketingState, StandInShop } from "./demo-data";
import { decimalOf, minorUnits, toPresentment } from "./money";

export interface StandInOrderLine {
  /** The REST line item id. */
  id: string;
  productId: string;
  variantId: string;
  productTitle: string;
  /** "Default Title" for a product without options. */
  variantTitle: string;
  quantity: number;
  /** The unit price in the shop's currency (minor units): the catalogue's price when the order was placed. */
  unitShop: number;
  /** The unit price in the order's presentment currency (minor units), converted from `unitShop`. */
  unitPresentment: number;
  /** Whether the variant's stock is tracked (`variant_inventory_management`). */
  tracked: boolean;
}

export interface StandInRefund {
  id: string;
  at: number;
  lines: Array<{ id: string; lineItemId: string; quantity: number }>;
}

export interface StandInOrder {
  /** The REST order id. */
  id: string;
  /** 1 for the shop's first order: its name is `#1001`. */
  number: number;
  /** The order status page's token (the confirmation page's address). */
  token: string;
  cartToken: string;
  checkoutToken: string;
  confirmationNumber: string;
  /** The buyer: one of the shop's customers, or null for a guest. */
  customerId: string | null;
  /** The storefront's language at checkout (`customer_locale`). */
  locale: string;
  /** The shop's currency when the order was placed. */
  currency: string;
  /** The currency the buyer saw and paid in. */
  presentmentCurrency: string;
  /** The cart's attributes, in the order they were set (`note_attributes`). */
  attributes: Array<{ name: string; value: string }>;
  lines: StandInOrderLine[];
  createdAt: number;
  cancelledAt: number | null;
  refunds: StandInRefund[];
}

// ---- ids ------------------------------------------------------------------------------------------------

let lastId = 0;
/**
 * A REST id (a 64-bit platform id as a number, as the REST bodies write ids): increasing, and later than any
 * id an earlier run of the stand-in gave (it starts at the clock's milliseconds), so the orders of a shop kept
 * across restarts of `npm run dev` never share an id. Within the safe integers, as JSON readers need.
 */
export function nextRestId(): string {
  lastId = Math.max(lastId + 1, Date.now());
  return String(lastId);
}

const hexToken = () => randomBytes(16).toString("hex");
/** The letters of a confirmation number (no 0/O, 1/I: it is read out to support). */
const CONFIRMATION_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

// ---- the checkout and the merchant's actions -------------------------------------------------------------

export interface CheckoutInput {
  lines: Array<{ variantId: string; quantity: number }>;
  attributes: Array<{ name: string; value: string }>;
  customerId: string | null;
  presentmentCurrency: string;
  cartToken: string;
  locale: string;
  at?: number;
}

/**
 * Turns a cart into a paid order of the shop, as the platform's checkout does with automatic payment capture
 * (no payment pages here: the order is paid as placed), at the catalogue's prices of the moment. Throws,
 * placing nothing, when the cart is empty or holds a variant that is unknown or sold out (the checkout's
 * "no longer available").
 */
export function placeOrder(shop: StandInShop, input: CheckoutInput): StandInOrder {
  if (input.lines.length === 0) throw new Error("Your cart is empty.");
  const currency = shop.currency ?? "USD";
  const lines = input.lines.map((wanted): StandInOrderLine => {
    const found = findVariant(shop, wanted.variantId);
    if (!found) throw new Error("An item in your cart is no longer available.");
    const { product, variant } = found;
    if (!isAvailableForSale(variant)) throw new Error(`${product.title} is sold out.`);
    const unitShop = minorUnits(variant.price);
    return {
      id: nextRestId(),
      productId: product.id,
      variantId: variant.id,
      productTitle: product.title,
      variantTitle: variant.title,
      quantity: wanted.quantity,
      unitShop,
      unitPresentment: toPresentment(unitShop, currency, input.presentmentCurrency),
      tracked: variant.inventoryQuantity !== undefined,
    };
  });
  shop.orders ??= [];
  const order: StandInOrder = {
    id: nextRestId(),
    number: shop.orders.reduce((highest, candidate) => Math.max(highest, candidate.number), 0) + 1,
    token: hexToken(),
    cartToken: input.cartToken,
    checkoutToken: hexToken(),
    confirmationNumber: Array.from(randomBytes(9), (byte) => CONFIRMATION_LETTERS[byte % 32]).join(""),
    customerId: input.customerId,
    locale: input.locale,
    currency,
    presentmentCurrency: input.presentmentCurrency,
    attributes: input.attributes.map(({ name, value }) => ({ name, value })),
    lines,
    createdAt: input.at ?? Date.now(),
    cancelledAt: null,
    refunds: [],
  };
  shop.orders.push(order);
  return order;
}

/** What is left of a line: its quantity less what was refunded; nothing once the order is cancelled. */
export function currentQuantity(order: StandInOrder, line: StandInOrderLine): number {
  if (order.cancelledAt !== null) return 0;
  const refunded = order.refunds
    .flatMap((refund) => refund.lines)
    .filter((refunded) => refunded.lineItemId === line.id)
    .reduce((sum, refunded) => sum + refunded.quantity, 0);
  return line.quantity - refunded;
}

/** Cancels the order (a paid order's payment is refunded with it); throws if it is cancelled already. */
export function cancelOrder(order: StandInOrder, at = Date.now()): void {
  if (order.cancelledAt !== null) throw new Error(`Order #${1000 + order.number} is cancelled already.`);
  order.cancelledAt = at;
}

/**
 * Refunds `quantity` of a line (no restock: the stand-in's stock is the merchant's to change); throws when
 * the order is cancelled or the line has less than that left.
 */
export function refundLine(order: StandInOrder, lineItemId: string, quantity = 1, at = Date.now()): StandInRefund {
  const line = order.lines.find((candidate) => candidate.id === lineItemId);
  if (!line) throw new Error(`Order #${1000 + order.number} has no line item ${lineItemId}.`);
  if (order.cancelledAt !== null) throw new Error(`Order #${1000 + order.number} is cancelled.`);
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > currentQuantity(order, line)) {
    throw new Error(`Nothing more of ${line.productTitle} can be refunded.`);
  }
  const refund: StandInRefund = { id: nextRestId(), at, lines: [{ id: nextRestId(), lineItemId, quantity }] };
  order.refunds.push(refund);
  return refund;
}

// ---- the REST bodies ------------------------------------------------------------------------------------

/** The platform's timestamp in REST bodies: seconds, with the shop's offset (UTC here). */
const restTime = (at: number) => new Date(at).toISOString().replace(/\.\d{3}Z$/, "+00:00");

/** When the stand-in's customers were made, as far as its bodies say. */
const CUSTOMER_CREATED_AT = "2026-01-05T09:00:00+00:00";

/** The Online Store sales channel's app id, which the platform gives orders placed on the storefront. */
const ONLINE_STORE_APP_ID = 580111;

/** A MoneyBag: an amount in the shop's currency and in the presentment currency. */
const moneySet = (order: StandInOrder, shopMinor: number, presentmentMinor: number) => ({
  shop_money: { amount: decimalOf(shopMinor), currency_code: order.currency },
  presentment_money: { amount: decimalOf(presentmentMinor), currency_code: order.presentmentCurrency },
});

const nothing = (order: StandInOrder) => moneySet(order, 0, 0);

/** `name` ("#1001"), as the platform names a shop's orders by default. */
export const orderName = (order: StandInOrder) => `#${1000 + order.number}`;

/** `financial_status`: paid, then partially refunded or refunded; a cancelled (paid) order is refunded. */
export function financialStatus(order: StandInOrder): "paid" | "partially_refunded" | "refunded" {
  if (order.cancelledAt !== null) return "refunded";
  if (order.refunds.length === 0) return "paid";
  return order.lines.every((line) => currentQuantity(order, line) === 0) ? "refunded" : "partially_refunded";
}

function lineItemBody(order: StandInOrder, line: StandInOrderLine) {
  const hasOptions = line.variantTitle !== "Default Title";
  const current = currentQuantity(order, line);
  return {
    id: Number(line.id),
    admin_graphql_api_id: `gid://shopify/LineItem/${line.id}`,
    attributed_staffs: [],
    current_quantity: current,
    fulfillable_quantity: current,
    fulfillment_service: "manual",
    fulfillment_status: null,
    gift_card: false,
    grams: 0,
    name: hasOptions ? `${line.productTitle} - ${line.variantTitle}` : line.productTitle,
    price: decimalOf(line.unitShop),
    price_set: moneySet(order, line.unitShop, line.unitPresentment),
    product_exists: true,
    product_id: Number(line.productId),
    properties: [],
    quantity: line.quantity,
    requires_shipping: true,
    sku: "",
    taxable: true,
    title: line.productTitle,
    total_discount: "0.00",
    total_discount_set: nothing(order),
    variant_id: Number(line.variantId),
    variant_inventory_management: line.tracked ? "shopify" : null,
    variant_title: hasOptions ? line.variantTitle : null,
    vendor: "",
    tax_lines: [],
    duties: [],
    discount_allocations: [],
  };
}

/** The order's customer as the REST Order nests it (the platform sends the protected fields to an app allowed them). */
function customerBody(shop: StandInShop, order: StandInOrder) {
  const customer = shop.customers.find((candidate) => candidate.id === order.customerId);
  if (!customer) return null;
  const consent: Record<EmailMarketingState, string> = {
    SUBSCRIBED: "subscribed",
    NOT_SUBSCRIBED: "not_subscribed",
    UNSUBSCRIBED: "unsubscribed",
    PENDING: "pending",
    INVALID: "invalid",
  };
  return {
    id: Number(customer.id),
    email: customer.email,
    created_at: CUSTOMER_CREATED_AT,
    updated_at: CUSTOMER_CREATED_AT,
    first_name: customer.firstName,
    last_name: customer.lastName,
    state: "enabled",
    note: null,
    verified_email: true,
    multipass_identifier: null,
    tax_exempt: false,
    phone: null,
    email_marketing_consent: {
      state: consent[customer.marketingState ?? "NOT_SUBSCRIBED"],
      opt_in_level: "single_opt_in",
      consent_updated_at: null,
    },
    sms_marketing_consent: null,
    tags: "",
    currency: order.currency,
    tax_exemptions: [],
    admin_graphql_api_id: `gid://shopify/Customer/${customer.id}`,
    default_address: null,
  };
}

/** The refund of a line as the REST Refund writes it (`subtotal` and `total_tax` are numbers there). */
export function refundBody(order: StandInOrder, refund: StandInRefund) {
  return {
    id: Number(refund.id),
    order_id: Number(order.id),
    created_at: restTime(refund.at),
    note: null,
    user_id: null,
    processed_at: restTime(refund.at),
    restock: false,
    duties: [],
    total_duties_set: nothing(order),
    additional_fees: [],
    total_additional_fees_set: nothing(order),
    return: null,
    admin_graphql_api_id: `gid://shopify/Refund/${refund.id}`,
    refund_line_items: refund.lines.map((refunded) => {
      const line = order.lines.find((candidate) => candidate.id === refunded.lineItemId)!;
      const subtotal = line.unitShop * refunded.quantity;
      return {
        id: Number(refunded.id),
        quantity: refunded.quantity,
        line_item_id: Number(line.id),
        location_id: null,
        restock_type: "no_restock",
        subtotal: Number(decimalOf(subtotal)),
        total_tax: 0,
        subtotal_set: moneySet(order, subtotal, line.unitPresentment * refunded.quantity),
        total_tax_set: nothing(order),
        line_item: lineItemBody(order, line),
      };
    }),
    // The stand-in has no payment gateway: a refund records no transaction.
    transactions: [],
    order_adjustments: [],
  };
}

/**
 * The REST Order as `orders/create`, `orders/paid` and `orders/cancelled` carry it, as it is now: `current_*`
 * amounts and each line's `current_quantity` follow refunds and a cancellation, `refunds` lists the refunds.
 * Its `order_status_url` is on the shop's domain, as the platform's is: locally, the same path on the
 * storefront's origin.
 */
export function orderBody(shop: StandInShop, order: StandInOrder) {
  const sum = (pick: (line: StandInOrderLine) => number) => order.lines.reduce((total, line) => total + pick(line), 0);
  const shopTotal = sum((line) => line.unitShop * line.quantity);
  const presentmentTotal = sum((line) => line.unitPresentment * line.quantity);
  const shopCurrent = sum((line) => line.unitShop * currentQuantity(order, line));
  const presentmentCurrent = sum((line) => line.unitPresentment * currentQuantity(order, line));
  const customer = customerBody(shop, order);
  const updatedAt = Math.max(order.createdAt, order.cancelledAt ?? 0, ...order.refunds.map((refund) => refund.at));
  return {
    id: Number(order.id),
    admin_graphql_api_id: `gid://shopify/Order/${order.id}`,
    app_id: ONLINE_STORE_APP_ID,
    browser_ip: null,
    buyer_accepts_marketing: false,
    cancel_reason: order.cancelledAt === null ? null : "customer",
    cancelled_at: order.cancelledAt === null ? null : restTime(order.cancelledAt),
    cart_token: order.cartToken,
    checkout_id: Number(order.id) + 1,
    checkout_token: order.checkoutToken,
    closed_at: order.cancelledAt === null ? null : restTime(order.cancelledAt),
    confirmation_number: order.confirmationNumber,
    confirmed: true,
    contact_email: customer?.email ?? null,
    created_at: restTime(order.createdAt),
    currency: order.currency,
    current_subtotal_price: decimalOf(shopCurrent),
    current_subtotal_price_set: moneySet(order, shopCurrent, presentmentCurrent),
    current_total_discounts: "0.00",
    current_total_discounts_set: nothing(order),
    current_total_price: decimalOf(shopCurrent),
    current_total_price_set: moneySet(order, shopCurrent, presentmentCurrent),
    current_total_tax: "0.00",
    current_total_tax_set: nothing(order),
    customer_locale: order.locale,
    discount_codes: [],
    email: customer?.email ?? "",
    estimated_taxes: false,
    financial_status: financialStatus(order),
    fulfillment_status: null,
    landing_site: null,
    name: orderName(order),
    note: null,
    note_attributes: order.attributes.map(({ name, value }) => ({ name, value })),
    number: order.number,
    order_number: 1000 + order.number,
    order_status_url: `https://${shop.domain}/checkouts/${order.token}/thank-you`,
    payment_gateway_names: ["manual"],
    phone: null,
    presentment_currency: order.presentmentCurrency,
    processed_at: restTime(order.createdAt),
    source_name: "web",
    subtotal_price: decimalOf(shopTotal),
    subtotal_price_set: moneySet(order, shopTotal, presentmentTotal),
    tags: "",
    tax_exempt: false,
    tax_lines: [],
    taxes_included: false,
    test: false,
    token: order.token,
    total_discounts: "0.00",
    total_discounts_set: nothing(order),
    total_line_items_price: decimalOf(shopTotal),
    total_line_items_price_set: moneySet(order, shopTotal, presentmentTotal),
    total_outstanding: "0.00",
    total_price: decimalOf(shopTotal),
    total_price_set: moneySet(order, shopTotal, presentmentTotal),
    total_shipping_price_set: nothing(order),
    total_tax: "0.00",
    total_tax_set: nothing(order),
    total_tip_received: "0.00",
    total_weight: 0,
    updated_at: restTime(updatedAt),
    user_id: null,
    billing_address: null,
    customer,
    discount_applications: [],
    fulfillments: [],
    line_items: order.lines.map((line) => lineItemBody(order, line)),
    payment_terms: null,
    refunds: order.refunds.map((refund) => refundBody(order, refund)),
    shipping_address: null,
    shipping_lines: [],
    returns: [],
  };
}
