import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { findCustomerItemsOfProduct, insertAlerts, markClicked } from "~/data/alert-rows.server";
import { database } from "~/data/database.server";
import { newId } from "~/lib/ids";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createShopWithKey } from "../../factories";
import { apiHarness } from "../../support/harness";
import { BASE_URL } from "../../support/http";
import { platformWebhook } from "../../support/platform-webhooks";

const { app, callsOf } = await apiHarness();

type Shop = Awaited<ReturnType<typeof createShopWithKey>>["shop"];

/** A webhook of the order topics, as the platform signs it; the same id twice is the platform's retry. */
const send = (topic: string, shop: Shop, body: unknown, webhookId = randomUUID()) =>
  app.request(
    `${BASE_URL}/webhooks/${topic}`,
    platformWebhook(topic, shop.domain, JSON.stringify(body), undefined, webhookId),
  );

let nextId = 5_000_000_000;
const platformNumber = () => ++nextId;

const money = (shop: string, presentment: string, shopCurrency = "USD", presentmentCurrency = "EUR") => ({
  shop_money: { amount: shop, currency_code: shopCurrency },
  presentment_money: { amount: presentment, currency_code: presentmentCurrency },
});

interface LineSpec {
  productId: number;
  variantId?: number;
  quantity: number;
  /** Unit price in the shop's currency and the buyer's. */
  price: [string, string];
  discount?: [string, string];
}

/**
 * The order resource as the platform's orders/* webhooks carry it, with the protected customer data a real
 * body has (name, email, address): the app must keep none of it.
 */
function orderBody({
  id = platformNumber(),
  customerId = null as number | null,
  guestList = null as string | null,
  createdAt = new Date(),
  cancelledAt = null as Date | null,
  lines,
}: {
  id?: number;
  customerId?: number | null;
  guestList?: string | null;
  createdAt?: Date;
  cancelledAt?: Date | null;
  lines: LineSpec[];
}) {
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: "#1001",
    email: "ada.lovelace@example.com",
    created_at: createdAt.toISOString().replace("Z", "+00:00"),
    cancelled_at: cancelledAt ? cancelledAt.toISOString() : null,
    currency: "USD",
    presentment_currency: "EUR",
    financial_status: "paid",
    customer: customerId
      ? { id: customerId, email: "ada.lovelace@example.com", first_name: "Ada", last_name: "Lovelace" }
      : null,
    billing_address: { first_name: "Ada", address1: "12 Analytical Row", city: "London" },
    note_attributes: guestList ? [{ name: "_wishlist_list", value: guestList }] : [],
    line_items: lines.map((line) => ({
      id: platformNumber(),
      product_id: line.productId,
      variant_id: line.variantId ?? null,
      title: "A product",
      quantity: line.quantity,
      price: line.price[0],
      price_set: money(...line.price),
      total_discount: "0.00",
      total_discount_set: money("0.00", "0.00"),
      discount_allocations: line.discount ? [{ amount: line.discount[0], amount_set: money(...line.discount) }] : [],
    })),
  };
}

type OrderBody = ReturnType<typeof orderBody>;

function refundBody(order: OrderBody, lines: Array<{ line: number; quantity: number; subtotal: [string, string] }>) {
  return {
    id: platformNumber(),
    order_id: order.id,
    created_at: new Date().toISOString(),
    refund_line_items: lines.map(({ line, quantity, subtotal }) => ({
      id: platformNumber(),
      line_item_id: order.line_items[line]!.id,
      quantity,
      subtotal: Number(subtotal[0]),
      subtotal_set: money(...subtotal),
    })),
    transactions: [],
  };
}

const conversionsOf = (shopId: string) =>
  database().selectFrom("Conversion").selectAll().where("shopId", "=", shopId).orderBy("lineItemId").execute();

const statsOf = async (shopId: string) => {
  const stats = await database()
    .selectFrom("DailyConversionStat")
    .selectAll()
    .where("shopId", "=", shopId)
    .orderBy("productId")
    .execute();
  const orders = await database().selectFrom("DailyConversionOrder").selectAll().where("shopId", "=", shopId).execute();
  const delays = await database().selectFrom("DailyConversionDelay").selectAll().where("shopId", "=", shopId).execute();
  return { stats, orders, delays };
};

async function shopWithSaves() {
  const { shop, secret } = await createShopWithKey();
  const calls = callsOf({ shop, secret });
  const customer = String(platformNumber());
  const save = async (who: string | null, productId: number, extra: Record<string, unknown> = {}, aid?: string) => {
    const response = await calls.proxyCall("/storefront/wishlist/items", who, {
      method: "POST",
      body: { productId: String(productId), handle: `p-${productId}`, ...extra, ...(aid ? { anonymousId: aid } : {}) },
      query: aid ? { aid } : {},
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string };
  };
  return { shop, secret, calls, customer, save };
}

/** An alert of the customer's saved item, made a minute before `clickedAt`, its link followed then. */
const clickedAlert =
  (shop: Shop, customer: string) => async (productId: number, itemId: string, kind: string, clickedAt: Date) => {
    const [row] = await insertAlerts(database(), [
      {
        id: newId("alert"),
        shopId: shop.id,
        customerId: customer,
        listId: "lst_x",
        itemId,
        productId: String(productId),
        variantId: "",
        kind,
        oldPriceMinor: null,
        newPriceMinor: null,
        quantity: null,
        currency: "USD",
        changeKey: randomUUID(),
        messageId: null,
        createdAt: new Date(clickedAt.getTime() - 60_000),
      },
    ]);
    await markClicked(database(), shop.id, row!.id, clickedAt);
    return row!;
  };

describe("orders matched to saves", () => {
  it("records one conversion per saved line, in the shop's and the buyer's currency, and marks the item bought", async () => {
    const { shop, calls, customer, save } = await shopWithSaves();
    const saved = platformNumber();
    const notSaved = platformNumber();
    await save(customer, saved, { variantId: "42" });
    const order = orderBody({
      customerId: Number(customer),
      lines: [
        // 2 x 12.50 USD less a 1.10 discount; the buyer paid in EUR: 2 x 11.25 less 0.99.
        { productId: saved, variantId: 42, quantity: 2, price: ["12.50", "11.25"], discount: ["1.10", "0.99"] },
        { productId: notSaved, quantity: 1, price: ["5.00", "4.50"] },
      ],
    });
    expect((await send("orders/create", shop, order)).status).toBe(200);

    const [conversion, ...rest] = await conversionsOf(shop.id);
    expect(rest).toEqual([]);
    expect(conversion).toMatchObject({
      orderId: String(order.id),
      lineItemId: String(order.line_items[0]!.id),
      customerId: customer,
      anonymousId: null,
      productId: String(saved),
      variantId: "42",
      quantity: 2,
      amountMinor: 2390,
      currency: "USD",
      presentmentAmountMinor: 2151,
      presentmentCurrency: "EUR",
      days: 0,
      source: "",
      refundedMinor: 0,
      cancelledAt: null,
    });
    // No name, email or address of the buyer is kept anywhere in the row.
    expect(JSON.stringify(conversion)).not.toMatch(/ada|lovelace|analytical|london/i);

    const { stats, orders, delays } = await statsOf(shop.id);
    expect(stats).toEqual([
      expect.objectContaining({ productId: String(saved), source: "", currency: "USD", lines: 1, quantity: 2 }),
    ]);
    expect(stats[0]!.revenueMinor).toBe(2390);
    expect(orders).toEqual([expect.objectContaining({ orders: 1, cancelled: 0 })]);
    expect(delays).toEqual([expect.objectContaining({ days: 0, lines: 1 })]);

    // The list shows the item bought; the alerts read it no more.
    const list = (await (await calls.proxyCall("/storefront/wishlist", customer)).json()) as {
      items: Array<{ productId: string; purchasedAt: string | null }>;
    };
    expect(list.items).toEqual([
      expect.objectContaining({ productId: String(saved), purchasedAt: new Date(order.created_at).toISOString() }),
    ]);
    const watched = await findCustomerItemsOfProduct(database(), shop.id, String(saved), {
      afterCustomerId: null,
      limit: 100,
    });
    expect(watched.items).toEqual([]);
  });

  it("records an order once whatever the platform sends again or first: retries, replays, paid before create", async () => {
    const { shop, customer, save } = await shopWithSaves();
    const product = platformNumber();
    await save(customer, product);
    const order = orderBody({
      customerId: Number(customer),
      lines: [{ productId: product, quantity: 1, price: ["30.00", "27.00"] }],
    });
    const webhookId = randomUUID();
    // orders/paid arrives first, then its retry, then orders/create (another body: financial_status differs).
    expect((await send("orders/paid", shop, order, webhookId)).status).toBe(200);
    expect((await send("orders/paid", shop, order, webhookId)).status).toBe(200);
    expect((await send("orders/paid", shop, order)).status).toBe(200);
    expect((await send("orders/create", shop, { ...order, financial_status: "pending" })).status).toBe(200);
    expect(await conversionsOf(shop.id)).toHaveLength(1);
    const { stats, orders } = await statsOf(shop.id);
    expect(stats.map((stat) => [stat.lines, stat.revenueMinor])).toEqual([[1, 3000]]);
    expect(orders.map((day) => day.orders)).toEqual([1]);
  });

  it("records concurrent deliveries of the same order once", async () => {
    const { shop, customer, save } = await shopWithSaves();
    const product = platformNumber();
    await save(customer, product);
    const order = orderBody({
      customerId: Number(customer),
      lines: [{ productId: product, quantity: 3, price: ["10.00", "9.00"] }],
    });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        send(index % 2 ? "orders/paid" : "orders/create", shop, { ...order, financial_status: `s${index}` }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await conversionsOf(shop.id)).toHaveLength(1);
    const { stats, orders } = await statsOf(shop.id);
    expect(stats.map((stat) => [stat.lines, stat.quantity, stat.revenueMinor])).toEqual([[1, 3, 3000]]);
    expect(orders.map((day) => day.orders)).toEqual([1]);
  });

  it("takes back a partial refund once, however often it arrives, and never more than the line", async () => {
    const { shop, customer, save } = await shopWithSaves();
    const product = platformNumber();
    await save(customer, product);
    const order = orderBody({
      customerId: Number(customer),
      lines: [{ productId: product, quantity: 2, price: ["12.50", "11.25"] }],
    });
    await send("orders/create", shop, order);
    const refund = refundBody(order, [{ line: 0, quantity: 1, subtotal: ["12.50", "11.25"] }]);
    const webhookId = randomUUID();
    expect((await send("refunds/create", shop, refund, webhookId)).status).toBe(200);
    expect((await send("refunds/create", shop, refund, webhookId)).status).toBe(200);
    // The same refund in another body (a field the app does not read changed): applied once, by the refund's id.
    expect((await send("refunds/create", shop, { ...refund, note: "again" })).status).toBe(200);
    let [conversion] = await conversionsOf(shop.id);
    expect(conversion).toMatchObject({ refundedQuantity: 1, refundedMinor: 1250, presentmentRefundedMinor: 1125 });
    expect((await statsOf(shop.id)).stats[0]!.refundedMinor).toBe(1250);

    // A second refund larger than what is left takes back only what is left.
    const excessive = refundBody(order, [{ line: 0, quantity: 5, subtotal: ["99.00", "90.00"] }]);
    expect((await send("refunds/create", shop, excessive)).status).toBe(200);
    [conversion] = await conversionsOf(shop.id);
    expect(conversion).toMatchObject({ refundedQuantity: 2, refundedMinor: 2500, presentmentRefundedMinor: 2250 });
    expect((await statsOf(shop.id)).stats[0]!.refundedMinor).toBe(2500);
  });

  it("takes all of a cancelled order back once, and counts it cancelled", async () => {
    const { shop, customer, save } = await shopWithSaves();
    const [first, second] = [platformNumber(), platformNumber()];
    await save(customer, first);
    await save(customer, second);
    const order = orderBody({
      customerId: Number(customer),
      lines: [
        { productId: first, quantity: 1, price: ["20.00", "18.00"] },
        { productId: second, quantity: 1, price: ["8.00", "7.20"] },
      ],
    });
    await send("orders/create", shop, order);
    await send("refunds/create", shop, refundBody(order, [{ line: 1, quantity: 1, subtotal: ["8.00", "7.20"] }]));
    const cancelled = { ...order, cancelled_at: new Date().toISOString(), financial_status: "refunded" };
    expect((await send("orders/cancelled", shop, cancelled)).status).toBe(200);
    expect((await send("orders/cancelled", shop, { ...cancelled, financial_status: "voided" })).status).toBe(200);
    const conversions = await conversionsOf(shop.id);
    expect(conversions.map((row) => [row.refundedMinor, row.cancelledAt !== null])).toEqual([
      [2000, true],
      [800, true],
    ]);
    const { stats, orders } = await statsOf(shop.id);
    expect(stats.reduce((sum, stat) => sum + stat.revenueMinor - stat.refundedMinor, 0)).toBe(0);
    expect(orders).toEqual([expect.objectContaining({ orders: 1, cancelled: 1 })]);
    expect((await statsOf(shop.id)).delays).toEqual([expect.objectContaining({ days: 0, lines: 0 })]);
    // A refund after the cancellation takes nothing more.
    await send("refunds/create", shop, refundBody(order, [{ line: 0, quantity: 1, subtotal: ["20.00", "18.00"] }]));
    expect((await statsOf(shop.id)).stats.reduce((sum, stat) => sum + stat.refundedMinor, 0)).toBe(2800);
  });

  it("takes back a refund and a cancellation of two lines of one product (two variants) on the product's day", async () => {
    const { shop, customer, save } = await shopWithSaves();
    const product = platformNumber();
    await save(customer, product);
    const order = orderBody({
      customerId: Number(customer),
      lines: [
        { productId: product, variantId: 1, quantity: 1, price: ["10.00", "9.00"] },
        { productId: product, variantId: 2, quantity: 1, price: ["20.00", "18.00"] },
      ],
    });
    expect((await send("orders/create", shop, order)).status).toBe(200);
    // One refund of both lines: two changes of the same day's figures of the product, in one statement.
    const refund = refundBody(order, [
      { line: 0, quantity: 1, subtotal: ["5.00", "4.50"] },
      { line: 1, quantity: 1, subtotal: ["5.00", "4.50"] },
    ]);
    expect((await send("refunds/create", shop, refund)).status).toBe(200);
    expect((await statsOf(shop.id)).stats.map((stat) => [stat.revenueMinor, stat.refundedMinor])).toEqual([
      [3000, 1000],
    ]);
    const cancelled = { ...order, cancelled_at: new Date().toISOString() };
    expect((await send("orders/cancelled", shop, cancelled)).status).toBe(200);
    expect((await conversionsOf(shop.id)).map((row) => [row.refundedMinor, row.cancelledAt !== null])).toEqual([
      [1000, true],
      [2000, true],
    ]);
    const { stats, orders } = await statsOf(shop.id);
    expect(stats.map((stat) => [stat.lines, stat.revenueMinor, stat.refundedMinor])).toEqual([[2, 3000, 3000]]);
    expect(orders).toEqual([expect.objectContaining({ orders: 1, cancelled: 1 })]);
  });

  it("records an order cancelled before its orders/create arrived, and the late orders/create changes nothing", async () => {
    const { shop, customer, save } = await shopWithSaves();
    const product = platformNumber();
    await save(customer, product);
    const order = orderBody({
      customerId: Number(customer),
      lines: [{ productId: product, quantity: 1, price: ["15.00", "13.50"] }],
    });
    await send("orders/cancelled", shop, { ...order, cancelled_at: new Date().toISOString() });
    await send("orders/create", shop, order);
    const [conversion] = await conversionsOf(shop.id);
    expect(conversion).toMatchObject({ refundedMinor: 1500, refundedQuantity: 1 });
    expect(conversion!.cancelledAt).not.toBeNull();
    expect((await statsOf(shop.id)).orders).toEqual([expect.objectContaining({ orders: 1, cancelled: 1 })]);
  });

  it("matches a guest's order by the attribute their list gives the cart, and nothing for another shop's or a bare id", async () => {
    const { shop, calls, save } = await shopWithSaves();
    const other = await shopWithSaves();
    const aid = randomUUID();
    const product = platformNumber();
    await save(null, product, {}, aid);
    await other.save(null, product, {}, aid);
    type Read = { id: string; cartAttribute: string | null };
    const list = (await (await calls.proxyCall("/storefront/wishlist", null, { query: { aid } })).json()) as Read;
    const otherList = (await (
      await other.calls.proxyCall("/storefront/wishlist", null, { query: { aid } })
    ).json()) as Read;
    expect(list.cartAttribute).toMatch(new RegExp(`^${list.id}\\.[\\w-]{22}$`));
    const line = { productId: product, quantity: 1, price: ["9.00", "8.10"] as [string, string] };
    // Another shop's list (the same guest's there), this list's bare id, its id with the other list's tag, a list
    // id no shop has, then none: nothing.
    const otherTag = otherList.cartAttribute!.split(".")[1];
    for (const guestList of [otherList.cartAttribute, list.id, `${list.id}.${otherTag}`, "lst_doesnotexist", null]) {
      expect((await send("orders/create", shop, orderBody({ guestList, lines: [line] }))).status).toBe(200);
    }
    expect(await conversionsOf(shop.id)).toEqual([]);
    await send("orders/create", shop, orderBody({ guestList: list.cartAttribute, lines: [line] }));
    const [conversion] = await conversionsOf(shop.id);
    expect(conversion).toMatchObject({ customerId: null, anonymousId: aid, amountMinor: 900 });
    expect(await conversionsOf(other.shop.id)).toEqual([]);
    // A customer's list has no attribute: their orders name them.
    const customer = String(platformNumber());
    await save(customer, product);
    const own = (await (await calls.proxyCall("/storefront/wishlist", customer)).json()) as Read;
    expect(own).toMatchObject({ id: expect.stringMatching(/^lst_/), cartAttribute: null });
  });

  it("does not let an order naming a shared guest list's id mark or remove that guest's items", async () => {
    const { shop, calls, save } = await shopWithSaves();
    await updateShopSettings({ shopId: shop.id, patch: { boughtItems: "remove" } });
    // A guest saves a product and shares their list; whoever has the link sees the list's id.
    const victim = randomUUID();
    const product = platformNumber();
    await save(null, product, {}, victim);
    const shared = await calls.proxyCall("/storefront/wishlist/share", null, {
      method: "POST",
      query: { aid: victim },
    });
    expect(shared.status).toBe(200);
    const { token } = (await shared.json()) as { token: string };
    const opened = (await (await calls.publicCall(`/storefront/lists/${token}`)).json()) as { id: string };
    expect(opened.id).toMatch(/^lst_/);
    // Someone else writes it into their own cart (a customer, and a guest), buys the product, and cancels.
    const line = { productId: product, quantity: 1, price: ["9.00", "8.10"] as [string, string] };
    const forged = `${opened.id}.${"A".repeat(22)}`;
    for (const [customerId, guestList] of [
      [platformNumber(), opened.id],
      [null, opened.id],
      [null, forged],
    ] as const) {
      const order = orderBody({ customerId, guestList, lines: [line] });
      expect((await send("orders/create", shop, order)).status).toBe(200);
      const cancelled = { ...order, cancelled_at: new Date().toISOString() };
      expect((await send("orders/cancelled", shop, cancelled)).status).toBe(200);
    }
    // The guest's item is still on their list, not bought; no sale is put down to their save.
    const list = (await (await calls.proxyCall("/storefront/wishlist", null, { query: { aid: victim } })).json()) as {
      items: Array<{ productId: string; purchasedAt: string | null }>;
    };
    expect(list.items).toEqual([expect.objectContaining({ productId: String(product), purchasedAt: null })]);
    expect(await conversionsOf(shop.id)).toEqual([]);
  });

  it("records nothing for a product not saved, saved by someone else, or saved after the order", async () => {
    const { shop, customer, save } = await shopWithSaves();
    const [product, late] = [platformNumber(), platformNumber()];
    const someoneElse = String(platformNumber());
    await save(someoneElse, product);
    const placed = new Date(Date.now() - 60_000);
    await save(customer, late);
    await send(
      "orders/create",
      shop,
      orderBody({
        customerId: Number(customer),
        createdAt: placed,
        lines: [
          { productId: product, quantity: 1, price: ["1.00", "0.90"] },
          { productId: late, quantity: 1, price: ["1.00", "0.90"] },
        ],
      }),
    );
    expect(await conversionsOf(shop.id)).toEqual([]);
    expect((await statsOf(shop.id)).orders).toEqual([]);
  });

  it("credits an alert or reminder whose link the buyer followed within 7 days before the order", async () => {
    const { shop, customer, save } = await shopWithSaves();
    const [recent, old] = [platformNumber(), platformNumber()];
    const item = await save(customer, recent);
    const oldItem = await save(customer, old);
    const now = Date.now();
    const alert = clickedAlert(shop, customer);
    const credited = await alert(recent, item.id, "price_dropped", new Date(now - 2 * 86_400_000));
    await alert(old, oldItem.id, "back_in_stock", new Date(now - 8 * 86_400_000));
    await send(
      "orders/create",
      shop,
      orderBody({
        customerId: Number(customer),
        createdAt: new Date(now + 1_000),
        lines: [
          { productId: recent, quantity: 1, price: ["10.00", "9.00"] },
          { productId: old, quantity: 1, price: ["10.00", "9.00"] },
        ],
      }),
    );
    const rows = await conversionsOf(shop.id);
    expect(Object.fromEntries(rows.map((row) => [row.productId, [row.source, row.alertId]]))).toEqual({
      [recent]: ["price_dropped", credited.id],
      [old]: ["", null],
    });
  });

  it("credits a link followed in the order's own second: the platform writes an order's time in whole seconds", async () => {
    const { shop, customer, save } = await shopWithSaves();
    const [followed, after] = [platformNumber(), platformNumber()];
    const item = await save(customer, followed);
    const afterItem = await save(customer, after);
    const alert = clickedAlert(shop, customer);
    // The order is placed 900 ms into a second, 300 ms after the click; the platform's created_at drops the
    // milliseconds. A link followed in the next second came after the order.
    const second = Math.floor(Date.now() / 1000) * 1000 + 2_000;
    const credited = await alert(followed, item.id, "back_in_stock", new Date(second + 600));
    await alert(after, afterItem.id, "price_dropped", new Date(second + 1_000));
    const body = orderBody({
      customerId: Number(customer),
      lines: [
        { productId: followed, quantity: 1, price: ["78.00", "70.20"] },
        { productId: after, quantity: 1, price: ["10.00", "9.00"] },
      ],
    });
    body.created_at = new Date(second).toISOString().replace(/\.\d{3}Z$/, "+00:00");
    expect((await send("orders/create", shop, body)).status).toBe(200);
    const rows = await conversionsOf(shop.id);
    expect(Object.fromEntries(rows.map((row) => [row.productId, [row.source, row.alertId]]))).toEqual({
      [followed]: ["back_in_stock", credited.id],
      [after]: ["", null],
    });
  });

  it("removes bought items from their lists where the shop says so, with an item.removed event", async () => {
    const { shop, calls, customer, save } = await shopWithSaves();
    await updateShopSettings({ shopId: shop.id, patch: { boughtItems: "remove" } });
    const [bought, kept] = [platformNumber(), platformNumber()];
    await save(customer, bought);
    await save(customer, kept);
    await send(
      "orders/create",
      shop,
      orderBody({ customerId: Number(customer), lines: [{ productId: bought, quantity: 1, price: ["3.00", "2.70"] }] }),
    );
    const list = (await (await calls.proxyCall("/storefront/wishlist", customer)).json()) as {
      items: Array<{ productId: string }>;
    };
    expect(list.items.map((entry) => entry.productId)).toEqual([String(kept)]);
    const events = await database()
      .selectFrom("Event")
      .select(["type", "data"])
      .where("shopId", "=", shop.id)
      .where("type", "=", "item.removed")
      .execute();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.data).item).toMatchObject({ productId: String(bought) });
    expect(await conversionsOf(shop.id)).toHaveLength(1);
  });

  it("records no line whose amount is past the exact integers (2^53 minor units), and the order's other lines", async () => {
    const { shop, customer, save } = await shopWithSaves();
    const [huge, product, normal] = [platformNumber(), platformNumber(), platformNumber()];
    for (const id of [huge, product, normal]) await save(customer, id);
    const order = orderBody({
      customerId: Number(customer),
      lines: [
        { productId: huge, quantity: 10, price: ["999999999999999.999", "999999999999999.999"] },
        { productId: product, quantity: 2, price: ["9000000000000.000", "9000000000000.000"] },
        { productId: normal, quantity: 1, price: ["7.000", "7.000"] },
      ],
    });
    // In Kuwaiti dinars (3 digits): 1e18 fils a unit, and 2 x 9e15 fils a line.
    for (const line of order.line_items) line.price_set = money(line.price, line.price, "KWD", "KWD");
    const answer = await send("orders/create", shop, { ...order, currency: "KWD", presentment_currency: "KWD" });
    // Not a 500 that the platform would retry for two days (PostgreSQL's bigint), nor a rounded figure (SQLite).
    expect(answer.status).toBe(200);
    const rows = await conversionsOf(shop.id);
    expect(rows.map((row) => [row.productId, row.amountMinor])).toEqual([[String(normal), 7000]]);
    for (const row of rows) expect(Number.isSafeInteger(row.amountMinor)).toBe(true);
  });

  it("counts a product's units of a day past 2^31 (orders of a million units a line)", async () => {
    const { shop, save } = await shopWithSaves();
    const product = platformNumber();
    for (let order = 0; order < 3; order++) {
      const buyer = String(platformNumber());
      await save(buyer, product);
      const body = orderBody({
        customerId: Number(buyer),
        lines: Array.from({ length: 1_000 }, () => ({
          productId: product,
          quantity: 1_000_000,
          price: ["0.01", "0.01"] as [string, string],
        })),
      });
      // Not a 500 from PostgreSQL's 32-bit integer, for this order and every later one of the product that day.
      expect((await send("orders/create", shop, body)).status).toBe(200);
    }
    const { stats } = await statsOf(shop.id);
    expect(stats.map((stat) => [stat.lines, Number(stat.quantity)])).toEqual([[3_000, 3_000_000_000]]);
  });

  it("records an order of 2,000 saved lines (the most it takes), each once", async () => {
    const { shop, customer, save } = await shopWithSaves();
    const product = platformNumber();
    await save(customer, product);
    const order = orderBody({
      customerId: Number(customer),
      lines: Array.from({ length: 2_000 }, (_, index) => ({
        productId: product,
        variantId: index + 1,
        quantity: 1,
        price: ["1.00", "0.90"] as [string, string],
      })),
    });
    // Not a 500 from SQLite's limit on a statement's variables (20 columns a conversion).
    expect((await send("orders/create", shop, order)).status).toBe(200);
    expect(await conversionsOf(shop.id)).toHaveLength(2_000);
    const { stats } = await statsOf(shop.id);
    expect(stats.map((stat) => [stat.lines, stat.revenueMinor])).toEqual([[2_000, 200_000]]);
  });

  it("refuses a body that is not an order or a refund, and answers 200 with nothing done for an unknown shop", async () => {
    const { shop } = await shopWithSaves();
    for (const [topic, body] of [
      ["orders/create", { id: 1 }],
      ["orders/paid", { id: "x", created_at: "yesterday", currency: "USD", line_items: [] }],
      ["refunds/create", { id: 1, order_id: 2 }],
    ] as const) {
      const answer = await send(topic, shop, body);
      expect(answer.status).toBe(400);
      expect(answer.headers.get("content-type")).toMatch(/application\/problem\+json/);
    }
    const unknown = { ...shop, domain: "never-installed.myshopify.com" };
    expect((await send("orders/create", unknown, orderBody({ lines: [] }))).status).toBe(200);
    expect((await send("refunds/create", unknown, { id: 1, order_id: 2, refund_line_items: [] })).status).toBe(200);
  });
});
