/**
 * The stand-in's checkout (issue 30): a shopper's cart becomes an order on the local storefront, and the app
 * is sent `orders/create` then `orders/paid`; the merchant's "Cancel order" and "Refund one item" send
 * `orders/cancelled` and `refunds/create`. The bodies are the platform's REST resources with the platform's
 * types, money in two currencies adds up exactly, and every webhook verifies with the app's own verifier
 * (the platform library's `webhooks.validate`). The app's receivers are not the subject here: a receiver in
 * this file keeps what arrived.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getEnv } from "~/env.server";
import { platformApi } from "~/shopify.server";
import { demoShopData } from "../../stand-in/demo-data";
import { decimalOf, formatMoney, minorUnits, toPresentment } from "../../stand-in/money";
import { startPlatformStandIn, type PlatformStandIn } from "../../stand-in/platform";
import { until } from "../support/poll";

const DOMAIN = "checkout-shop.myshopify.com";
const STORE = "checkout-shop";
const API_VERSION = "2026-07";
/** The app's secret: what its verifier of platform webhooks (platformApi.webhooks.validate) checks with. */
const SECRET = getEnv().SHOPIFY_API_SECRET;

interface Received {
  path: string;
  headers: Record<string, string>;
  raw: string;
  // The REST bodies are read field by field below.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  valid: boolean;
}

let received: Received[] = [];
let receiver: ServerType;
let platform: PlatformStandIn;
const stateDirectory = mkdtempSync(path.join(tmpdir(), "stand-in-orders-"));

async function startStandIn(appUrl: string, stateFile?: string) {
  return startPlatformStandIn({
    appUrl,
    apiKey: "key",
    apiSecret: SECRET,
    appHandle: "wishlist-test",
    scopes: "read_products",
    apiVersion: API_VERSION,
    shops: [demoShopData({ domain: DOMAIN, accessToken: "shpat_checkout" })],
    ...(stateFile ? { stateFile } : {}),
  });
}

let appUrl = "";
beforeAll(async () => {
  const app = new Hono();
  app.post("/webhooks/*", async (c) => {
    const raw = await c.req.text();
    const check = await platformApi.webhooks.validate({ rawBody: raw, rawRequest: c.req.raw });
    received.push({
      path: new URL(c.req.url).pathname,
      headers: Object.fromEntries(c.req.raw.headers),
      raw,
      body: JSON.parse(raw),
      valid: check.valid,
    });
    return c.body(null, 200);
  });
  receiver = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  const address = receiver.address();
  appUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  platform = await startStandIn(appUrl);
});
afterAll(async () => {
  await platform.close();
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(stateDirectory, { recursive: true, force: true });
});
beforeEach(() => {
  received = [];
});

/** A shopper's browser on the storefront: its cookies, kept from one request to the next. */
function browser(origin = () => platform.storefrontOrigin) {
  const cookies = new Map<string, string>();
  return async (pathAndQuery: string, init: RequestInit = {}) => {
    const response = await fetch(`${origin()}${pathAndQuery}`, {
      ...init,
      redirect: "manual",
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const [name, value] = [pair!.slice(0, pair!.indexOf("=")), pair!.slice(pair!.indexOf("=") + 1)];
      if (attributes.some((attribute) => /max-age=0|expires=thu, 01 jan 1970/i.test(attribute.trim()))) {
        cookies.delete(name);
      } else cookies.set(name, value);
    }
    return response;
  };
}
type Browser = ReturnType<typeof browser>;

const json = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
const form = (fields: Record<string, string>): RequestInit => ({ method: "POST", body: new URLSearchParams(fields) });
const cartOf = async (shopper: Browser) => (await (await shopper("/cart.js")).json()) as Record<string, unknown>;

/** Waits for `count` deliveries of order topics (a product change also reaches the receiver). */
const orderWebhooks = (count: number) =>
  until(
    () => received.filter((entry) => !entry.path.startsWith("/webhooks/products")),
    (entries) => entries.length >= count,
    `${count} order webhooks`,
  );

/** A MoneyBag as the REST bodies write it. */
const bag = (shop: string, presentment: string, presentmentCurrency = "USD") => ({
  shop_money: { amount: shop, currency_code: "USD" },
  presentment_money: { amount: presentment, currency_code: presentmentCurrency },
});

describe("the stand-in's money", () => {
  it("reads decimals as text and converts per unit in integers, rounding half up to the cent", () => {
    expect(["24", "24.5", "24.50", "0.05", "1234.50"].map(minorUnits)).toEqual([2400, 2450, 2450, 5, 123450]);
    expect(() => minorUnits("1e3")).toThrow();
    expect(() => minorUnits("2.505")).toThrow();
    expect([5, 250, 123450, -250].map(decimalOf)).toEqual(["0.05", "2.50", "1234.50", "-2.50"]);
    // EUR at 9/10 of USD: 0.9 -> 1 cent, 4.5 -> 5, 13.5 -> 14, 3.6 -> 4, exact amounts stay exact.
    expect([1, 5, 15, 4, 123450, 2900].map((cents) => toPresentment(cents, "USD", "EUR"))).toEqual([
      1, 5, 14, 4, 111105, 2610,
    ]);
    expect(toPresentment(2900, "USD", "USD")).toBe(2900);
    // Beyond a float's exact cents: 2^53 - 1 cents would lose a cent through a float.
    expect(toPresentment(Number.MAX_SAFE_INTEGER - 1, "USD", "EUR")).toBe(8106479329266891);
    expect(() => toPresentment(100, "USD", "GBP")).toThrow("no rate");
    expect(formatMoney(111105, "EUR")).toBe("€1111.05");
  });
});

describe("the stand-in's checkout", () => {
  it("places a guest's cart in EUR as a paid order, with the cart's attributes, and sends orders/create then orders/paid", async () => {
    // GIVEN a guest with two sweaters in Medium ($1,234.50 each) and a shirt ($29.00), paying in EUR, whose
    // cart carries the hidden wishlist attribute
    const guest = browser();
    expect((await guest("/cart/add.js", json({ items: [{ id: 9200000007, quantity: 2 }] }))).status).toBe(200);
    expect((await guest("/cart/add.js", json({ items: [{ id: 9100000001, quantity: 1 }] }))).status).toBe(200);
    expect((await guest("/cart/update.js", json({ attributes: { _wishlist_list: "lst_guestlist1" } }))).status).toBe(
      200,
    );
    expect((await guest("/stand-in/currency", form({ currency: "EUR" }))).status).toBe(303);
    const cart = await cartOf(guest);
    expect(cart).toMatchObject({ currency: "EUR", total_price: 111105 * 2 + 2610, item_count: 3 });
    const cartToken = cart.token;
    const page = await (await guest("/cart")).text();
    expect(page).toContain("Subtotal: €2248.20 (EUR)");
    expect(page).toContain(">Check out</button>");

    // WHEN the guest checks out
    const placed = await guest("/checkout", { method: "POST" });

    // THEN the confirmation is shown, the cart is gone (the next one is new and empty)
    expect(placed.status).toBe(303);
    const confirmation = placed.headers.get("location")!;
    expect(confirmation).toMatch(/^\/checkouts\/[0-9a-f]{32}\/thank-you$/);
    const thanks = await (await guest(confirmation)).text();
    expect(thanks).toContain("<h1>Thank you!</h1>");
    expect(thanks).toContain("<strong data-order-name>#1001</strong>");
    expect(thanks).toContain("Total paid: €2248.20 (EUR)");
    // The checkout's pages run no theme app extension.
    expect(thanks).not.toContain('id="wishlist-settings"');
    const after = await cartOf(guest);
    expect(after).toMatchObject({ item_count: 0, attributes: {} });
    expect(after.token).not.toBe(cartToken);

    // AND the app was sent orders/create, then orders/paid: the same order, signed as the platform signs
    const [create, paid] = await orderWebhooks(2);
    expect([create!.path, paid!.path]).toEqual(["/webhooks/orders/create", "/webhooks/orders/paid"]);
    for (const delivery of [create!, paid!]) {
      expect(delivery.valid).toBe(true);
      expect(delivery.headers).toMatchObject({
        "content-type": "application/json",
        "x-shopify-shop-domain": DOMAIN,
        "x-shopify-api-version": API_VERSION,
        "x-shopify-webhook-id": expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
    }
    expect(create!.headers["x-shopify-topic"]).toBe("orders/create");
    expect(paid!.headers["x-shopify-topic"]).toBe("orders/paid");
    expect(create!.headers["x-shopify-webhook-id"]).not.toBe(paid!.headers["x-shopify-webhook-id"]);
    expect(paid!.raw).toBe(create!.raw);
    // The verifier is no formality: the same delivery with one amount changed does not verify.
    const tampered = create!.raw.replace('"total_price":"2498.00"', '"total_price":"0.01"');
    expect(tampered).not.toBe(create!.raw);
    const forged = await platformApi.webhooks.validate({
      rawBody: tampered,
      rawRequest: new Request(`${appUrl}/webhooks/orders/create`, {
        method: "POST",
        headers: create!.headers,
        body: tampered,
      }),
    });
    expect(forged.valid).toBe(false);

    const order = create!.body;
    expect(order).toMatchObject({
      id: expect.any(Number),
      name: "#1001",
      number: 1,
      order_number: 1001,
      cancelled_at: null,
      cancel_reason: null,
      currency: "USD",
      presentment_currency: "EUR",
      financial_status: "paid",
      customer: null,
      email: "",
      cart_token: cartToken,
      source_name: "web",
      test: false,
      note_attributes: [{ name: "_wishlist_list", value: "lst_guestlist1" }],
      total_price: "2498.00",
      subtotal_price: "2498.00",
      total_price_set: bag("2498.00", "2248.20", "EUR"),
      subtotal_price_set: bag("2498.00", "2248.20", "EUR"),
      current_total_price_set: bag("2498.00", "2248.20", "EUR"),
      total_discounts: "0.00",
      refunds: [],
    });
    expect(Number.isSafeInteger(order.id)).toBe(true);
    expect(order.admin_graphql_api_id).toBe(`gid://shopify/Order/${order.id}`);
    for (const field of ["created_at", "updated_at", "processed_at"]) {
      expect(order[field]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    }
    expect(order.line_items).toEqual([
      expect.objectContaining({
        id: expect.any(Number),
        admin_graphql_api_id: expect.stringMatching(/^gid:\/\/shopify\/LineItem\/\d+$/),
        product_id: 8100000007,
        variant_id: 9200000007,
        title: "Orchard Knit Sweater",
        variant_title: "Medium",
        name: "Orchard Knit Sweater - Medium",
        quantity: 2,
        current_quantity: 2,
        price: "1234.50",
        price_set: bag("1234.50", "1111.05", "EUR"),
        total_discount: "0.00",
        total_discount_set: bag("0.00", "0.00", "EUR"),
        discount_allocations: [],
      }),
      expect.objectContaining({
        product_id: 8100000001,
        variant_id: 9100000001,
        title: "Aurora Linen Shirt",
        variant_title: null,
        quantity: 1,
        price: "29.00",
        price_set: bag("29.00", "26.10", "EUR"),
        discount_allocations: [],
      }),
    ]);
    // Each presentment total is the sum of its lines' converted unit prices, to the cent.
    const lines = order.line_items as Array<{ quantity: number; price_set: ReturnType<typeof bag> }>;
    const sum = (pick: (set: ReturnType<typeof bag>) => string) =>
      lines.reduce((total, line) => total + minorUnits(pick(line.price_set)) * line.quantity, 0);
    expect(decimalOf(sum((set) => set.presentment_money.amount))).toBe(order.total_price_set.presentment_money.amount);
    expect(decimalOf(sum((set) => set.shop_money.amount))).toBe(order.total_price_set.shop_money.amount);

    // The log records both deliveries with the app's answer; the orders read back as the platform's REST.
    const sent = platform.sentWebhooks.filter((entry) => entry.subjectId === String(order.id));
    expect(sent.map(({ topic, status }) => ({ topic, status }))).toEqual([
      { topic: "orders/create", status: 200 },
      { topic: "orders/paid", status: 200 },
    ]);
    expect(platform.orders(DOMAIN)[0]).toEqual(order);
    const listed = (await (await fetch(`${platform.origin}/store/${STORE}/orders.json`)).json()) as {
      orders: unknown[];
    };
    expect(listed.orders[0]).toEqual(order);
  });

  it("names the logged-in customer as the buyer, in the shop's currency", async () => {
    const ada = browser();
    expect((await ada("/account/login", form({ customer: "7001" }))).status).toBe(303);
    await ada("/cart/add.js", json({ items: [{ id: 9100000003, quantity: 1 }] }));
    const placed = await ada("/checkout", { method: "POST" });
    expect(placed.status).toBe(303);
    expect(await (await ada(placed.headers.get("location")!)).text()).toContain("<h1>Thank you, Ada!</h1>");

    const [create] = await orderWebhooks(2);
    expect(create!.valid).toBe(true);
    expect(create!.body).toMatchObject({
      name: "#1002",
      currency: "USD",
      presentment_currency: "USD",
      email: "ada@example.com",
      customer_locale: "en",
      note_attributes: [],
      customer: {
        id: 7001,
        email: "ada@example.com",
        first_name: "Ada",
        last_name: "Lovelace",
        admin_graphql_api_id: "gid://shopify/Customer/7001",
        email_marketing_consent: { state: "subscribed", opt_in_level: "single_opt_in", consent_updated_at: null },
      },
      total_price_set: bag("43.00", "43.00"),
      line_items: [expect.objectContaining({ product_id: 8100000003, price_set: bag("43.00", "43.00") })],
    });
  });

  it("refuses an empty cart and a cart with an item sold out since, placing nothing", async () => {
    const shopper = browser();
    const empty = await shopper("/checkout", { method: "POST" });
    expect(empty.status).toBe(303);
    expect(empty.headers.get("location")).toBe(`/cart?error=${encodeURIComponent("Your cart is empty.")}`);

    await shopper("/cart/add.js", json({ items: [{ id: 9100000009, quantity: 1 }] }));
    await platform.updateVariant(DOMAIN, "9100000009", { inventoryQuantity: 0 });
    const soldOut = await shopper("/checkout", { method: "POST" });
    expect(decodeURIComponent(soldOut.headers.get("location")!)).toBe("/cart?error=Ember Wool Scarf is sold out.");
    expect(await (await shopper(soldOut.headers.get("location")!)).text()).toContain(
      '<p class="site-error" role="alert">Ember Wool Scarf is sold out.</p>',
    );
    expect((await cartOf(shopper)).item_count).toBe(1);
    await platform.updateVariant(DOMAIN, "9100000009", { inventoryQuantity: 3 });
    expect(received.filter((entry) => entry.path.startsWith("/webhooks/orders"))).toEqual([]);
    expect(platform.orders(DOMAIN).map((order) => order.name)).toEqual(["#1002", "#1001"]);
  });
});

describe("the merchant's refunds and cancellations", () => {
  it("refunds one item of a line with refunds/create, and the order reads partially refunded", async () => {
    // GIVEN the guest's EUR order #1001 (two sweaters, one shirt)
    const order = platform.orders(DOMAIN).find((candidate) => candidate.name === "#1001")!;
    const sweater = order.line_items[0]!;

    // WHEN the merchant refunds one sweater (over HTTP, as a test or script drives the Orders page)
    const response = await fetch(
      `${platform.origin}/store/${STORE}/orders/${order.id}/line_items/${sweater.id}/refund`,
      { method: "POST", headers: { accept: "application/json" } },
    );

    // THEN the app got refunds/create, signed, with the platform's Refund resource
    expect(response.status).toBe(200);
    const { webhook } = (await response.json()) as { webhook: { topic: string; status: number; subjectId: string } };
    expect(webhook).toMatchObject({ topic: "refunds/create", status: 200 });
    const [delivery] = await orderWebhooks(1);
    expect(delivery).toMatchObject({ path: "/webhooks/refunds/create", valid: true });
    const refund = delivery!.body;
    expect(refund).toMatchObject({
      id: Number(webhook.subjectId),
      order_id: order.id,
      admin_graphql_api_id: `gid://shopify/Refund/${webhook.subjectId}`,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
      restock: false,
      transactions: [],
      order_adjustments: [],
      refund_line_items: [
        {
          id: expect.any(Number),
          line_item_id: sweater.id,
          quantity: 1,
          restock_type: "no_restock",
          location_id: null,
          // The REST Refund writes these two as numbers; the sets carry the exact amounts.
          subtotal: 1234.5,
          total_tax: 0,
          subtotal_set: bag("1234.50", "1111.05", "EUR"),
          total_tax_set: bag("0.00", "0.00", "EUR"),
          line_item: expect.objectContaining({
            id: sweater.id,
            product_id: 8100000007,
            variant_id: 9200000007,
            quantity: 2,
            current_quantity: 1,
            price_set: bag("1234.50", "1111.05", "EUR"),
          }),
        },
      ],
    });

    // AND the order now reads partially refunded, with what is left of it
    const now = platform.orders(DOMAIN).find((candidate) => candidate.id === order.id)!;
    expect(now).toMatchObject({
      financial_status: "partially_refunded",
      current_total_price_set: bag("1263.50", "1137.15", "EUR"),
      total_price_set: bag("2498.00", "2248.20", "EUR"),
      refunds: [refund],
    });
    expect(now.line_items.map((line) => line.current_quantity)).toEqual([1, 1]);

    // The second sweater can be refunded, a third cannot.
    await platform.refundLineItem(DOMAIN, String(order.id), String(sweater.id));
    const refused = await fetch(
      `${platform.origin}/store/${STORE}/orders/${order.id}/line_items/${sweater.id}/refund`,
      {
        method: "POST",
        headers: { accept: "application/json" },
      },
    );
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({ error: "Nothing more of Orchard Knit Sweater can be refunded." });
    expect(received.map((entry) => entry.path)).toEqual(["/webhooks/refunds/create", "/webhooks/refunds/create"]);
  });

  it("cancels an order with orders/cancelled: cancelled_at set, refunded, nothing left; once only", async () => {
    const order = platform.orders(DOMAIN).find((candidate) => candidate.name === "#1002")!;
    // The Orders page's form post goes back to the page.
    const response = await fetch(`${platform.origin}/store/${STORE}/orders/${order.id}/cancel`, {
      method: "POST",
      redirect: "manual",
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/store/${STORE}/orders`);
    const [delivery] = await orderWebhooks(1);
    expect(delivery).toMatchObject({ path: "/webhooks/orders/cancelled", valid: true });
    expect(delivery!.headers["x-shopify-topic"]).toBe("orders/cancelled");
    expect(delivery!.body).toMatchObject({
      id: order.id,
      name: "#1002",
      cancelled_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
      cancel_reason: "customer",
      financial_status: "refunded",
      customer: expect.objectContaining({ id: 7001 }),
      total_price_set: bag("43.00", "43.00"),
      current_total_price_set: bag("0.00", "0.00"),
      line_items: [expect.objectContaining({ quantity: 1, current_quantity: 0 })],
    });
    await expect(platform.cancelOrder(DOMAIN, String(order.id))).rejects.toThrow("#1002 is cancelled already");
    await expect(platform.refundLineItem(DOMAIN, String(order.id), String(order.line_items[0]!.id))).rejects.toThrow(
      "#1002 is cancelled",
    );
    expect(received).toHaveLength(1);

    // The Orders page shows both orders, what is left to refund, and the webhooks sent with the app's answers.
    const page = await (await fetch(`${platform.origin}/store/${STORE}/orders`)).text();
    expect(page).toContain("#1001 · partially refunded");
    expect(page).toContain("#1002 · Cancelled (refunded)");
    expect(page).toContain("<code>_wishlist_list</code> = <code>lst_guestlist1</code>");
    expect(page).toContain('aria-label="Refund one item: Aurora Linen Shirt (#1001)"');
    expect(page).not.toContain('aria-label="Cancel order #1002"');
    expect(page.match(/<code>orders\/create<\/code>/g)).toHaveLength(2);
  });

  it("redelivers a webhook as the platform retries it: same body, webhook id and event id, signed", async () => {
    const first = platform.sentWebhooks.find((entry) => entry.topic === "orders/create")!;
    const again = await platform.redeliverWebhook(first.webhookId);
    expect(again).toMatchObject({
      topic: "orders/create",
      webhookId: first.webhookId,
      eventId: first.eventId,
      status: 200,
    });
    const [delivery] = await orderWebhooks(1);
    expect(delivery!.valid).toBe(true);
    expect(delivery!.raw).toBe(first.body);
    expect(delivery!.headers["x-shopify-webhook-id"]).toBe(first.webhookId);
    expect(delivery!.headers["x-shopify-event-id"]).toBe(first.eventId);
    expect(delivery!.headers["x-shopify-triggered-at"]).toBe(new Date(first.at).toISOString());
    await expect(platform.redeliverWebhook("no-such-webhook")).rejects.toThrow("No webhook no-such-webhook");
  });
});

describe("the stand-in's orders across restarts", () => {
  it("keeps a shop's orders in the state file: the next order is numbered after them, with a later id", async () => {
    const stateFile = path.join(stateDirectory, "state.json");
    const first = await startStandIn(appUrl, stateFile);
    const shopper = browser(() => first.storefrontOrigin);
    await shopper("/cart/add.js", json({ items: [{ id: 9100000001, quantity: 1 }] }));
    await shopper("/checkout", { method: "POST" });
    const [kept] = first.orders(DOMAIN);
    await first.close();
    expect(JSON.parse(readFileSync(stateFile, "utf8"))[DOMAIN].orders).toHaveLength(1);

    const second = await startStandIn(appUrl, stateFile);
    try {
      expect(second.orders(DOMAIN)).toEqual([kept]);
      const again = browser(() => second.storefrontOrigin);
      await again("/cart/add.js", json({ items: [{ id: 9100000001, quantity: 1 }] }));
      await again("/checkout", { method: "POST" });
      const [next] = second.orders(DOMAIN);
      expect(next!.name).toBe("#1002");
      expect(next!.id).toBeGreaterThan(kept!.id);
    } finally {
      await second.close();
    }
  });
});
