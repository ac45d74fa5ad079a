import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { insertAlerts, markClicked } from "~/data/alert-rows.server";
import { replaceProductReading } from "~/data/catalogue-rows.server";
import { database, transaction } from "~/data/database.server";
import { fillProductSnapshot } from "~/data/item-rows.server";
import { newId } from "~/lib/ids";
import type { ConversionReport, DemandReport } from "~/services/attribution/revenue-reports.server";
import type { Owner } from "~/services/owners/owner";
import { addItem } from "~/services/wishlists/wishlists.server";
import { createShopWithKey, setShopPlan } from "../factories";
import { apiHarness } from "../support/harness";
import { BASE_URL } from "../support/http";
import { platformWebhook } from "../support/platform-webhooks";
import { drainOutbox } from "../support/webhook-rows";

/**
 * The private API's conversions and demand reports and its list of conversions (issue 30), over conversions
 * recorded from real signed order webhooks (tests/services/attribution/orders.test.ts sends them the same way):
 * every figure is checked against a direct computation over the `Conversion` table here, never against the
 * service's own reads. Every answer is checked against the served OpenAPI document (the harness).
 */

const { app, callsOf } = await apiHarness();

type Shop = Awaited<ReturnType<typeof createShopWithKey>>["shop"];

const DAY_MS = 24 * 60 * 60 * 1000;
const now = new Date();
/** `back` UTC days before today, at `hour` UTC. */
const at = (back: number, hour = 12) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - back, hour));
const dayOf = (back: number) => at(back).toISOString().slice(0, 10);

// ---- the platform's webhooks, as it signs them ----------------------------------------------------------------

const send = async (topic: string, shop: Shop, body: unknown) => {
  const response = await app.request(
    `${BASE_URL}/webhooks/${topic}`,
    platformWebhook(topic, shop.domain, JSON.stringify(body), undefined, randomUUID()),
  );
  expect(response.status).toBe(200);
};

let nextId = 7_100_000_000;
const platformNumber = () => ++nextId;

type Money = [string, string];
interface LineSpec {
  productId: number;
  variantId?: number;
  quantity: number;
  price: Money;
  discount?: Money;
}

/** The order resource of the orders/* webhooks, with the buyer's personal data a real body carries. */
function orderBody({
  customerId = null as string | null,
  guestList = null as string | null,
  createdAt,
  currency = "USD",
  presentment = "EUR",
  lines,
}: {
  customerId?: string | null;
  guestList?: string | null;
  createdAt: Date;
  currency?: string;
  presentment?: string;
  lines: LineSpec[];
}) {
  const id = platformNumber();
  const set = ([shop, buyer]: Money) => ({
    shop_money: { amount: shop, currency_code: currency },
    presentment_money: { amount: buyer, currency_code: presentment },
  });
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#${id}`,
    email: "grace.hopper@example.com",
    created_at: createdAt.toISOString(),
    cancelled_at: null as string | null,
    currency,
    presentment_currency: presentment,
    financial_status: "paid",
    customer: customerId ? { id: Number(customerId), email: "grace.hopper@example.com", first_name: "Grace" } : null,
    note_attributes: guestList ? [{ name: "_wishlist_list", value: guestList }] : [],
    line_items: lines.map((line) => ({
      id: platformNumber(),
      product_id: line.productId,
      variant_id: line.variantId ?? null,
      title: "A product",
      quantity: line.quantity,
      price: line.price[0],
      price_set: set(line.price),
      discount_allocations: line.discount ? [{ amount: line.discount[0], amount_set: set(line.discount) }] : [],
    })),
  };
}
type OrderBody = ReturnType<typeof orderBody>;

function refundBody(order: OrderBody, line: number, quantity: number, subtotal: Money) {
  return {
    id: platformNumber(),
    order_id: order.id,
    created_at: new Date().toISOString(),
    refund_line_items: [
      {
        id: platformNumber(),
        line_item_id: order.line_items[line]!.id,
        quantity,
        subtotal: Number(subtotal[0]),
        subtotal_set: {
          shop_money: { amount: subtotal[0], currency_code: order.currency },
          presentment_money: { amount: subtotal[1], currency_code: order.presentment_currency },
        },
      },
    ],
    transactions: [],
  };
}

// ---- the fixture --------------------------------------------------------------------------------------------

const customer = (id: string): Owner => ({ kind: "customer", customerId: id });
const save = (shopId: string, owner: Owner, productId: number, back: number, variantId?: number) =>
  addItem({
    shopId,
    owner,
    item: {
      productId: String(productId),
      handle: `p-${productId}`,
      ...(variantId ? { variantId: String(variantId) } : {}),
    },
    at: at(back),
  });

const products = Array.from({ length: 9 }, () => platformNumber());
const [P1, P2, P3, P4, P5, P6, P7, P8, R] = products as [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
];
const [C1, C2, C3] = ["9001", "9002", "9003"];
const GUEST = randomUUID();

const { shop, secret } = await createShopWithKey();
const other = await createShopWithKey();
// The demand report is a feature of the Growth plan and higher (tests/api/plans.test.ts covers Free's answer).
await setShopPlan(shop.id, "GROWTH");
await setShopPlan(other.shop.id, "GROWTH");
const { privateCall, publicCall, proxyCall } = callsOf({ shop, secret });
const otherCalls = callsOf({ shop: other.shop, secret: other.secret });

// Saves, days before today.
await save(shop.id, customer(C1), P1, 15, 11);
await save(shop.id, customer(C2), P1, 12);
await save(shop.id, customer(C2), P2, 12);
await save(shop.id, customer(C3), P3, 9);
await save(shop.id, { kind: "anonymous", anonymousId: GUEST }, P4, 7);
const clickedItem = await save(shop.id, customer(C1), P2, 8);
await save(shop.id, customer(C2), P5, 45);
await save(shop.id, customer(C3), P6, 14);
// The restock fixture: P7's variant 701 sold out (702 not), all of P8's variants sold out.
await save(shop.id, customer(C1), P7, 6, 701);
await save(shop.id, customer(C2), P7, 6, 701);
await save(shop.id, customer(C3), P7, 6, 702);
await save(shop.id, { kind: "anonymous", anonymousId: GUEST }, P7, 6); // waits for none: 702 can be bought
await save(shop.id, customer(C1), P8, 4);
await save(shop.id, customer(C2), P8, 4);
await save(shop.id, { kind: "anonymous", anonymousId: GUEST }, P8, 4);
await save(shop.id, customer(C3), P8, 4, 801); // bought below: waits no more
// R: saved by eleven shoppers, bought by one (1/11 < a tenth: rarely bought).
const rSavers = Array.from({ length: 11 }, (_, index) => String(9101 + index));
for (const saver of rSavers) await save(shop.id, customer(saver), R, 6);

// The value the guest's storefront writes into the cart's hidden attribute, as the storefront API gives it.
const guestList = ((await (await publicCall(`/storefront/wishlist?aid=${GUEST}`)).json()) as { cartAttribute: string })
  .cartAttribute;

// C1 followed a price-drop alert for P2 a day before buying it.
const [alert] = await insertAlerts(database(), [
  {
    id: newId("alert"),
    shopId: shop.id,
    customerId: C1,
    listId: clickedItem.item.listId,
    itemId: clickedItem.item.id,
    productId: String(P2),
    variantId: "",
    kind: "price_dropped",
    oldPriceMinor: 5000,
    newPriceMinor: 4000,
    quantity: null,
    currency: "USD",
    changeKey: randomUUID(),
    messageId: null,
    createdAt: at(3, 10),
  },
]);
await markClicked(database(), shop.id, alert!.id, at(3));

// The orders, days before today. O2 and O3 are placed at the same instant (the list's order then goes by id).
const O1 = orderBody({
  customerId: C1,
  createdAt: at(10),
  lines: [
    { productId: P1, variantId: 11, quantity: 2, price: ["12.50", "11.25"], discount: ["1.10", "0.99"] },
    { productId: P2, quantity: 1, price: ["40.00", "36.00"] }, // C1 saved P2 only later: no conversion
  ],
});
const O2 = orderBody({
  customerId: C2,
  createdAt: at(5),
  presentment: "GBP",
  lines: [
    { productId: P1, quantity: 1, price: ["30.00", "26.00"] },
    { productId: P2, quantity: 1, price: ["8.00", "7.00"] },
  ],
});
const O3 = orderBody({
  customerId: C3,
  createdAt: at(5),
  lines: [{ productId: P3, quantity: 1, price: ["20.00", "18.00"] }],
});
// A guest's order, matched by the list its cart names, after the shop changed its currency to CAD; paid in yen.
const O4 = orderBody({
  guestList,
  createdAt: at(3),
  currency: "CAD",
  presentment: "JPY",
  lines: [{ productId: P4, quantity: 3, price: ["10.00", "1100"] }],
});
const O5 = orderBody({
  customerId: C1,
  createdAt: at(2),
  lines: [{ productId: P2, quantity: 1, price: ["40.00", "36.00"] }],
});
const O6 = orderBody({
  customerId: C2,
  createdAt: at(40),
  lines: [{ productId: P5, quantity: 1, price: ["99.99", "90.00"] }],
});
const O7 = orderBody({
  customerId: C3,
  createdAt: at(11),
  lines: [{ productId: P6, quantity: 4, price: ["2.50", "2.25"] }],
});
const O8 = orderBody({
  customerId: rSavers[0],
  createdAt: at(4),
  lines: [{ productId: R, quantity: 1, price: ["15.00", "13.50"] }],
});
const O9 = orderBody({
  customerId: C3,
  createdAt: at(1),
  lines: [{ productId: P8, variantId: 801, quantity: 1, price: ["60.00", "54.00"] }],
});
for (const order of [O1, O2, O3, O4, O5, O6, O7, O8]) await send("orders/create", shop, order);
await send("orders/paid", shop, O9); // paid arrives first: recorded all the same
await send("orders/create", shop, O9); // and once
await send("refunds/create", shop, refundBody(O2, 1, 1, ["5.00", "4.40"])); // a partial refund of O2's P2 line
await send("orders/cancelled", shop, { ...O3, cancelled_at: at(4).toISOString(), financial_status: "voided" });

// The other shop: the same customers and products, its own orders. None of it may show in the first shop's answers.
await save(other.shop.id, customer(C1), P1, 15);
await save(other.shop.id, customer(C2), P7, 6, 701);
await send(
  "orders/create",
  other.shop,
  orderBody({
    customerId: C1,
    createdAt: at(5),
    lines: [{ productId: P1, quantity: 7, price: ["1000.00", "900.00"] }],
  }),
);

// The catalogue as the alerts last read it (the product lookups write it so), in both shops.
const variant = (variantId: number, available: boolean, inventoryQuantity: number | null) => ({
  shopId: shop.id,
  variantId: String(variantId),
  productId: "",
  inventoryItemId: null,
  title: `Variant ${variantId}`,
  priceMinor: 1000,
  compareAtMinor: null,
  currency: "USD",
  available,
  inventoryQuantity,
  imageUrl: null,
  readAt: now,
});
await replaceProductReading(database(), shop.id, String(P7), [variant(701, false, 0), variant(702, true, 5)]);
await replaceProductReading(database(), shop.id, String(P8), [variant(801, false, -2), variant(802, false, null)]);
await replaceProductReading(database(), other.shop.id, String(P7), [
  { ...variant(701, false, 0), shopId: other.shop.id },
]);
// The catalogue has named P1 (as the worker's lookups do).
await transaction((tx) =>
  fillProductSnapshot(tx, shop.id, { productId: String(P1), title: "Catalogue P1", handle: "catalogue-p1" }, now),
);
// The saves' rollups (savers, saves) are folded in from the outbox by the relay.
await drainOutbox();

// ---- the direct computations --------------------------------------------------------------------------------

interface Row {
  id: string;
  orderId: string;
  lineItemId: string;
  customerId: string | null;
  anonymousId: string | null;
  productId: string;
  variantId: string;
  quantity: number;
  amountMinor: number;
  currency: string;
  presentmentAmountMinor: number;
  presentmentCurrency: string;
  refundedQuantity: number;
  refundedMinor: number;
  presentmentRefundedMinor: number;
  savedAt: Date;
  orderedAt: Date;
  days: number;
  source: string;
  cancelledAt: Date | null;
}

const startOf = (day: string) => new Date(`${day}T00:00:00Z`);
const endOf = (day: string) => new Date(startOf(day).getTime() + DAY_MS);

/** The shop's conversions placed from `from` to `to` (UTC days, both included), newest first, by SQL. */
async function conversionRows(shopId: string, from: string, to: string): Promise<Row[]> {
  const { rows } = await sql<Row>`
    select * from "Conversion"
    where "shopId" = ${shopId} and "orderedAt" >= ${startOf(from)} and "orderedAt" < ${endOf(to)}
    order by "orderedAt" desc, "id" desc`.execute(database());
  // SQLite's rows come back through the data layer's converters; PostgreSQL's bigints as numbers.
  return rows.map((row) => ({
    ...row,
    amountMinor: Number(row.amountMinor),
    presentmentAmountMinor: Number(row.presentmentAmountMinor),
    refundedMinor: Number(row.refundedMinor),
    presentmentRefundedMinor: Number(row.presentmentRefundedMinor),
    savedAt: new Date(row.savedAt),
    orderedAt: new Date(row.orderedAt),
    cancelledAt: row.cancelledAt === null ? null : new Date(row.cancelledAt),
  }));
}

/** Sums by SQL: per currency, per source and currency, per product in a currency, per day in a currency. */
async function sums(shopId: string, from: string, to: string) {
  const where = sql`"shopId" = ${shopId} and "orderedAt" >= ${startOf(from)} and "orderedAt" < ${endOf(to)}`;
  const q = database();
  const byCurrency = await sql<{ currency: string; gross: number; refunded: number; lines: number; quantity: number }>`
    select "currency", sum("amountMinor") as gross, sum("refundedMinor") as refunded, count(*) as lines,
      sum("quantity") as quantity
    from "Conversion" where ${where} group by "currency"`.execute(q);
  const bySource = await sql<{ source: string; currency: string; gross: number; refunded: number; lines: number }>`
    select "source", "currency", sum("amountMinor") as gross, sum("refundedMinor") as refunded, count(*) as lines
    from "Conversion" where ${where} group by "source", "currency"`.execute(q);
  const orders = await sql<{ placed: number; cancelled: number }>`
    select count(distinct "orderId") as placed,
      count(distinct case when "cancelledAt" is not null then "orderId" end) as cancelled
    from "Conversion" where ${where}`.execute(q);
  const buyers = await sql<{ n: number }>`
    select count(distinct coalesce('c' || "customerId", 'a' || "anonymousId")) as n
    from "Conversion" where ${where} and "cancelledAt" is null`.execute(q);
  const delays = await sql<{ days: number }>`
    select "days" from "Conversion" where ${where} and "cancelledAt" is null order by "days"`.execute(q);
  return {
    byCurrency: byCurrency.rows.map((row) => ({
      currency: row.currency,
      gross: Number(row.gross),
      refunded: Number(row.refunded),
      lines: Number(row.lines),
      quantity: Number(row.quantity),
    })),
    bySource: bySource.rows.map((row) => ({
      source: row.source,
      currency: row.currency,
      gross: Number(row.gross),
      refunded: Number(row.refunded),
      lines: Number(row.lines),
    })),
    placed: Number(orders.rows[0]!.placed),
    cancelled: Number(orders.rows[0]!.cancelled),
    buyers: Number(buyers.rows[0]!.n),
    delays: delays.rows.map((row) => Number(row.days)),
  };
}

async function productSums(shopId: string, from: string, to: string, currency: string) {
  const { rows } = await sql<{ productId: string; gross: number; refunded: number; lines: number; quantity: number }>`
    select "productId", sum("amountMinor") as gross, sum("refundedMinor") as refunded, count(*) as lines,
      sum("quantity") as quantity
    from "Conversion"
    where "shopId" = ${shopId} and "orderedAt" >= ${startOf(from)} and "orderedAt" < ${endOf(to)}
      and "currency" = ${currency}
    group by "productId"`.execute(database());
  return rows
    .map((row) => ({
      productId: row.productId,
      lines: Number(row.lines),
      quantity: Number(row.quantity),
      currency,
      grossMinor: Number(row.gross),
      refundedMinor: Number(row.refunded),
      netMinor: Number(row.gross) - Number(row.refunded),
    }))
    .sort((a, b) => b.netMinor - a.netMinor || (a.productId < b.productId ? -1 : 1))
    .slice(0, 10);
}

/**
 * Distinct shoppers who saved in the range (the fixture removes nothing), by SQL over the items, with the
 * range's buyers (a cancelled order's too), who bought from their wishlist in it.
 */
async function saversOf(shopId: string, from: string, to: string) {
  const { rows } = await sql<{ n: number }>`
    select count(*) as n from (
      select coalesce('c' || l."customerId", 'a' || l."anonymousId") as k
      from "Item" i join "List" l on l."id" = i."listId"
      where i."shopId" = ${shopId} and i."addedAt" >= ${startOf(from)} and i."addedAt" < ${endOf(to)}
      union
      select coalesce('c' || "customerId", 'a' || "anonymousId") as k from "Conversion"
      where "shopId" = ${shopId} and "orderedAt" >= ${startOf(from)} and "orderedAt" < ${endOf(to)}
    ) s`.execute(database());
  return Number(rows[0]!.n);
}

const median = (sorted: number[]) =>
  sorted.length === 0
    ? null
    : sorted.length % 2
      ? sorted[(sorted.length - 1) / 2]!
      : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;

function daysBetween(from: string, to: string) {
  const days: string[] = [];
  for (let t = startOf(from).getTime(); t <= startOf(to).getTime(); t += DAY_MS) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

/** The whole conversions report as computed here from the Conversion table (and the items, for savers). */
async function expectedReport(shopId: string, from: string, to: string) {
  const s = await sums(shopId, from, to);
  const revenue = s.byCurrency
    .map((row) => ({
      currency: row.currency,
      grossMinor: row.gross,
      refundedMinor: row.refunded,
      netMinor: row.gross - row.refunded,
    }))
    .sort((a, b) => b.netMinor - a.netMinor);
  const currency = revenue[0]?.currency ?? null;
  const savers = await saversOf(shopId, from, to);
  const rows = await conversionRows(shopId, from, to);
  const SOURCES = ["none", "back_in_stock", "price_dropped", "low_stock", "reminder"];
  return {
    from,
    to,
    currency,
    revenue,
    orders: { placed: s.placed, cancelled: s.cancelled, net: s.placed - s.cancelled },
    lines: s.byCurrency.reduce((sum, row) => sum + row.lines, 0),
    quantity: s.byCurrency.reduce((sum, row) => sum + row.quantity, 0),
    buyers: s.buyers,
    savers,
    conversionRate: savers === 0 ? null : Math.round((s.buyers / savers) * 10_000) / 10_000,
    medianDaysToPurchase: median(s.delays),
    bySource: SOURCES.flatMap((source) =>
      revenue.map(({ currency: code }) => {
        const row = s.bySource.find(
          (entry) => (entry.source === "" ? "none" : entry.source) === source && entry.currency === code,
        );
        const gross = row?.gross ?? 0;
        const refunded = row?.refunded ?? 0;
        return {
          source,
          currency: code,
          grossMinor: gross,
          refundedMinor: refunded,
          netMinor: gross - refunded,
          lines: row?.lines ?? 0,
        };
      }),
    ),
    days: daysBetween(from, to).map((date) => {
      const ofDay = rows.filter((row) => row.orderedAt.toISOString().slice(0, 10) === date);
      const orders = new Set(ofDay.map((row) => row.orderId));
      const cancelled = new Set(ofDay.filter((row) => row.cancelledAt).map((row) => row.orderId));
      return {
        date,
        netMinor: ofDay
          .filter((row) => row.currency === currency)
          .reduce((sum, row) => sum + row.amountMinor - row.refundedMinor, 0),
        orders: orders.size - cancelled.size,
      };
    }),
    topProducts: currency ? await productSums(shopId, from, to, currency) : [],
  };
}

/** The answer: the service's report and the preset echoed. */
type Report = ConversionReport & { range: string | null };

const json = async <T>(response: Response, status = 200): Promise<T> => {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
};

const withoutNames = (report: Report) => ({
  ...report,
  topProducts: report.topProducts.map(({ handle: _h, title: _t, ...rest }) => rest),
});

// ---- the tests ----------------------------------------------------------------------------------------------

describe("GET /v1/analytics/conversions", () => {
  it("over every order: each figure equals the direct computation over the Conversion table", async () => {
    const [from, to] = [dayOf(60), dayOf(0)];
    const report = await json<Report>(await privateCall(`/analytics/conversions?from=${from}&to=${to}`));
    const expected = await expectedReport(shop.id, from, to);
    expect(withoutNames(report)).toEqual({ range: null, ...expected });

    // And what the fixture says, so that the computation above is not merely the service read twice.
    expect(report.revenue.map((entry) => entry.currency)).toEqual(["USD", "CAD"]);
    expect(report.revenue[1]).toEqual({ currency: "CAD", grossMinor: 3000, refundedMinor: 0, netMinor: 3000 });
    // USD: O1 23.90, O2 30.00 + 8.00 (5.00 refunded), O3 20.00 (cancelled), O5 40.00, O6 99.99, O7 10.00,
    // O8 15.00, O9 60.00.
    expect(report.revenue[0]).toEqual({ currency: "USD", grossMinor: 30689, refundedMinor: 2500, netMinor: 28189 });
    expect(report.orders).toEqual({ placed: 9, cancelled: 1, net: 8 });
    expect(report.lines).toBe(10);
    expect(report.buyers).toBe(5); // C1, C2, C3 (O7, O9), the guest, R's buyer
    const priceDropped = report.bySource.find((e) => e.source === "price_dropped" && e.currency === "USD")!;
    expect(priceDropped).toMatchObject({ grossMinor: 4000, netMinor: 4000, lines: 1 });
    expect(report.bySource).toHaveLength(10);
    expect(report.topProducts.find((entry) => entry.productId === String(P1))).toMatchObject({
      handle: "catalogue-p1",
      title: "Catalogue P1",
    });
    expect(report.topProducts.find((entry) => entry.productId === String(P5))).toMatchObject({
      handle: null,
      title: null,
    });
    expect(report.topProducts.every((entry) => entry.currency === "USD")).toBe(true);
  });

  it("a custom range includes both its days and nothing outside them", async () => {
    // Day 10 (O1) to day 3 (O4): O7 (day 11) and O5 (day 2) fall outside, each a day away.
    const [from, to] = [dayOf(10), dayOf(3)];
    const report = await json<Report>(await privateCall(`/analytics/conversions?from=${from}&to=${to}`));
    expect(withoutNames(report)).toEqual({ range: null, ...(await expectedReport(shop.id, from, to)) });
    expect(report.days.map((entry) => entry.date)).toEqual(daysBetween(from, to));
    expect(report.days).toHaveLength(8);
    expect(report.orders).toEqual({ placed: 5, cancelled: 1, net: 4 }); // O1, O2, O3, O4, O8
    expect(report.bySource.filter((entry) => entry.source === "price_dropped").every((e) => e.lines === 0)).toBe(true);
    const included = (await conversionRows(shop.id, from, to)).map((row) => row.orderId);
    expect(included).not.toContain(String(O7.id));
    expect(included).not.toContain(String(O5.id));
    expect(new Set(included)).toEqual(new Set([O1, O2, O3, O4, O8].map((order) => String(order.id))));
    // One day, the first edge alone: O1 only.
    const single = await json<Report>(await privateCall(`/analytics/conversions?from=${from}&to=${from}`));
    expect(single.revenue).toEqual([{ currency: "USD", grossMinor: 2390, refundedMinor: 0, netMinor: 2390 }]);
    expect(single.days).toEqual([{ date: from, netMinor: 2390, orders: 1 }]);
  });

  it("presets end today: 30d is the default, 7d and 90d; savers are the activity report's active shoppers, buyers among them", async () => {
    for (const [query, range, days] of [
      ["", "30d", 30],
      ["?range=7d", "7d", 7],
      ["?range=30d", "30d", 30],
      ["?range=90d", "90d", 90],
    ] as const) {
      const report = await json<Report>(await privateCall(`/analytics/conversions${query}`));
      expect(report.range).toBe(range);
      expect(report.to).toBe(dayOf(0));
      expect(report.from).toBe(dayOf(days - 1));
      expect(withoutNames(report)).toEqual({ range, ...(await expectedReport(shop.id, report.from, report.to)) });
      const activity = await json<{ totals: { activeShoppers: number } }>(
        await privateCall(`/analytics/activity?range=${range}`),
      );
      expect(report.savers).toBe(activity.totals.activeShoppers);
      expect(report.buyers).toBeLessThanOrEqual(report.savers);
    }
    // O6 (day 40) is in 90d, not in 30d.
    const thirty = await json<Report>(await privateCall("/analytics/conversions"));
    const ninety = await json<Report>(await privateCall("/analytics/conversions?range=90d"));
    expect(ninety.orders.placed - thirty.orders.placed).toBe(1);
  });

  it("never shows another shop's conversions", async () => {
    const [from, to] = [dayOf(60), dayOf(0)];
    const mine = await json<Report>(await privateCall(`/analytics/conversions?from=${from}&to=${to}`));
    // The other shop's one order (7 x 1000.00 USD) is in none of the figures.
    expect(mine.revenue[0]!.grossMinor).toBe(30689);
    const theirs = await json<Report>(await otherCalls.privateCall(`/analytics/conversions?from=${from}&to=${to}`));
    expect(withoutNames(theirs)).toEqual({ range: null, ...(await expectedReport(other.shop.id, from, to)) });
    expect(theirs.revenue).toEqual([{ currency: "USD", grossMinor: 700000, refundedMinor: 0, netMinor: 700000 }]);
    expect(theirs.orders).toEqual({ placed: 1, cancelled: 0, net: 1 });
  });
});

describe("GET /v1/conversions", () => {
  interface Page {
    data: Array<Record<string, unknown> & { id: string; orderId: string }>;
    pageInfo: { nextCursor: string | null };
  }

  const view = (row: Row) => ({
    id: row.id,
    orderId: row.orderId,
    lineItemId: row.lineItemId,
    productId: row.productId,
    variantId: row.variantId === "" ? null : row.variantId,
    buyer: row.customerId ? { type: "customer", customerId: row.customerId } : { type: "anonymous", customerId: null },
    quantity: row.quantity,
    amount: { currency: row.currency, minor: row.amountMinor },
    presentmentAmount: { currency: row.presentmentCurrency, minor: row.presentmentAmountMinor },
    refunded: {
      quantity: row.refundedQuantity,
      minor: row.refundedMinor,
      presentmentMinor: row.presentmentRefundedMinor,
    },
    savedAt: row.savedAt.toISOString(),
    orderedAt: row.orderedAt.toISOString(),
    daysToPurchase: row.days,
    source: row.source === "" ? null : row.source,
    cancelledAt: row.cancelledAt?.toISOString() ?? null,
  });

  async function pageThrough(query: string, limit: number) {
    const seen: Page["data"] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page = await json<Page>(
        await privateCall(
          `/conversions?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        ),
      );
      expect(page.data.length).toBeLessThanOrEqual(limit);
      seen.push(...page.data);
      cursor = page.pageInfo.nextCursor;
      pages++;
    } while (cursor && pages < 50);
    return { seen, pages };
  }

  it("pages to the end, newest first, with no duplicates, each conversion as its row says", async () => {
    const [from, to] = [dayOf(60), dayOf(0)];
    const rows = await conversionRows(shop.id, from, to);
    expect(rows).toHaveLength(10);
    for (const limit of [1, 3, 100]) {
      const { seen, pages } = await pageThrough(`from=${from}&to=${to}`, limit);
      expect(pages).toBe(Math.max(1, Math.ceil(rows.length / limit)));
      expect(new Set(seen.map((entry) => entry.id)).size).toBe(seen.length);
      expect(seen).toEqual(rows.map(view));
    }
    // O2 and O3 were placed at the same instant: the order between them is by id, and paging keeps it.
    const sameInstant = rows.filter((row) => row.orderedAt.getTime() === at(5).getTime());
    expect(sameInstant.length).toBe(3);
    // The guest's conversion names no one; the alert's names its kind; the cancelled one says so.
    const byOrder = (order: OrderBody) => rows.map(view).find((entry) => entry.orderId === String(order.id))!;
    expect(byOrder(O4)).toMatchObject({
      buyer: { type: "anonymous", customerId: null },
      amount: { currency: "CAD", minor: 3000 },
      presentmentAmount: { currency: "JPY", minor: 3300 },
    });
    expect(byOrder(O5)).toMatchObject({ source: "price_dropped", daysToPurchase: 6 });
    expect(byOrder(O3).cancelledAt).not.toBeNull();
    expect(byOrder(O1)).toMatchObject({ variantId: "11", amount: { currency: "USD", minor: 2390 } });
    // A guest's anonymous id is never shown.
    const all = await json<Page>(await privateCall(`/conversions?from=${from}&to=${to}&limit=100`));
    expect(JSON.stringify(all)).not.toContain(GUEST);
  });

  it("a custom range's edges: the days outside are not listed; presets page too", async () => {
    const [from, to] = [dayOf(10), dayOf(3)];
    const { seen } = await pageThrough(`from=${from}&to=${to}`, 2);
    expect(seen).toEqual((await conversionRows(shop.id, from, to)).map(view));
    expect(seen.map((entry) => entry.orderId)).not.toContain(String(O7.id));
    expect(seen.map((entry) => entry.orderId)).not.toContain(String(O5.id));
    const thirty = await pageThrough("range=30d", 4);
    expect(thirty.seen).toEqual((await conversionRows(shop.id, dayOf(29), dayOf(0))).map(view));
    const byDefault = await pageThrough("", 4);
    expect(byDefault.seen).toEqual(thirty.seen);
  });

  it("shows only the shop's own conversions, and a cursor works only for the listing that issued it", async () => {
    const [from, to] = [dayOf(60), dayOf(0)];
    const theirs = await json<Page>(await otherCalls.privateCall(`/conversions?from=${from}&to=${to}`));
    expect(theirs.data.map((entry) => entry.orderId)).toHaveLength(1);
    const mine = await json<Page>(await privateCall(`/conversions?from=${from}&to=${to}&limit=1`));
    expect(mine.data.map((entry) => entry.id)).not.toContain(theirs.data[0]!.id);
    const cursor = encodeURIComponent(mine.pageInfo.nextCursor!);
    for (const [calls, query] of [
      [otherCalls, `from=${from}&to=${to}`], // another shop
      [{ privateCall }, `from=${dayOf(59)}&to=${to}`], // another range
      [{ privateCall }, "range=7d"],
    ] as const) {
      const refused = await json<{ type: string }>(
        await calls.privateCall(`/conversions?${query}&cursor=${cursor}`),
        400,
      );
      expect(refused.type).toBe(`${BASE_URL}/problems/invalid-cursor`);
    }
    const edited = `${mine.pageInfo.nextCursor!.slice(0, -2)}AA`;
    const refused = await json<{ type: string }>(
      await privateCall(`/conversions?from=${from}&to=${to}&cursor=${encodeURIComponent(edited)}`),
      400,
    );
    expect(refused.type).toBe(`${BASE_URL}/problems/invalid-cursor`);
  });
});

describe("GET /v1/analytics/demand", () => {
  /** The answer: the service's report and the preset echoed. */
  type Demand = DemandReport & { range: string | null };

  /** The restock list computed here from the raw rows of the catalogue, the items and the lists. */
  async function expectedRestock(shopId: string) {
    const variants = await database().selectFrom("CatalogueVariant").selectAll().where("shopId", "=", shopId).execute();
    const items = await database()
      .selectFrom("Item")
      .innerJoin("List", "List.id", "Item.listId")
      .select([
        "Item.productId",
        "Item.variantId",
        "Item.purchasedAt",
        "List.customerId",
        "List.anonymousId",
        "List.retiredAt",
      ])
      .where("Item.shopId", "=", shopId)
      .execute();
    return variants
      .filter((row) => !row.available)
      .map((row) => {
        const anyAvailable = variants.some((other) => other.productId === row.productId && other.available);
        const waiting = new Set(
          items
            .filter((item) => item.productId === row.productId && item.purchasedAt === null && item.retiredAt === null)
            .filter((item) => item.variantId === row.variantId || (item.variantId === "" && !anyAvailable))
            .map((item) => (item.customerId ? `c${item.customerId}` : `a${item.anonymousId}`)),
        );
        return {
          productId: row.productId,
          variantId: row.variantId,
          variantTitle: row.title,
          inventoryQuantity: row.inventoryQuantity,
          waiting: waiting.size,
        };
      })
      .filter((row) => row.waiting > 0)
      .sort(
        (a, b) =>
          b.waiting - a.waiting ||
          (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : a.variantId < b.variantId ? -1 : 1),
      );
  }

  /** Products saved in the range and bought under a tenth as often, from the items and the Conversion table. */
  async function expectedRarelyBought(shopId: string, from: string, to: string) {
    const saves = await sql<{ productId: string; saves: number }>`
      select "productId", count(*) as saves from "Item"
      where "shopId" = ${shopId} and "addedAt" >= ${startOf(from)} and "addedAt" < ${endOf(to)}
      group by "productId"`.execute(database());
    const purchases = await sql<{ productId: string; lines: number }>`
      select "productId", count(*) as lines from "Conversion"
      where "shopId" = ${shopId} and "orderedAt" >= ${startOf(from)} and "orderedAt" < ${endOf(to)}
      group by "productId"`.execute(database());
    const savers = await sql<{ productId: string; n: number }>`
      select i."productId", count(distinct coalesce('c' || l."customerId", 'a' || l."anonymousId")) as n
      from "Item" i join "List" l on l."id" = i."listId" where i."shopId" = ${shopId} group by i."productId"`.execute(
      database(),
    );
    return saves.rows
      .map((row) => {
        const bought = Number(purchases.rows.find((entry) => entry.productId === row.productId)?.lines ?? 0);
        return {
          productId: row.productId,
          saves: Number(row.saves),
          purchases: bought,
          rate: bought / Number(row.saves),
          savers: Number(savers.rows.find((entry) => entry.productId === row.productId)?.n ?? 0),
        };
      })
      .filter((row) => row.rate < 0.1)
      .sort((a, b) => b.saves - a.saves || (a.productId < b.productId ? -1 : 1))
      .map(({ rate, ...row }) => ({ ...row, purchaseRate: Math.round(rate * 10_000) / 10_000 }));
  }

  it("the restock list: sold-out saved variants with the shoppers waiting, as the raw rows say", async () => {
    const demand = await json<Demand>(await privateCall("/analytics/demand"));
    expect(demand.range).toBe("30d");
    const expected = await expectedRestock(shop.id);
    expect(demand.restock.map(({ handle: _h, title: _t, ...row }) => row)).toEqual(expected);
    // By hand: P8's two sold-out variants wait for C1, C2 and the guest (product-wide saves; C3 bought 801);
    // P7's 701 for C1 and C2 (the guest's product-wide save waits for nothing: 702 can be bought). The other
    // shop's shopper waiting for its own P7/701 is not counted here.
    expect(expected.map((row) => [row.productId, row.variantId, row.waiting])).toEqual([
      [String(P8), "801", 3],
      [String(P8), "802", 3],
      [String(P7), "701", 2],
    ]);
    expect(demand.restock[0]).toMatchObject({ variantTitle: "Variant 801", inventoryQuantity: -2 });
    expect(demand.restock[1]).toMatchObject({ inventoryQuantity: null });
    const limited = await json<Demand>(await privateCall("/analytics/demand?restockLimit=1"));
    expect(limited.restock.map(({ handle: _h, title: _t, ...row }) => row)).toEqual(expected.slice(0, 1));
    const theirs = await json<Demand>(await otherCalls.privateCall("/analytics/demand"));
    expect(theirs.restock.map((row) => [row.productId, row.variantId, row.waiting])).toEqual([[String(P7), "701", 1]]);
  });

  it("saved often, rarely bought: as the items and the Conversion table say, for presets and custom ranges", async () => {
    for (const query of ["", "?range=7d", `?from=${dayOf(10)}&to=${dayOf(3)}`, `?from=${dayOf(60)}&to=${dayOf(0)}`]) {
      const demand = await json<Demand>(await privateCall(`/analytics/demand${query}`));
      const expected = await expectedRarelyBought(shop.id, demand.from, demand.to);
      expect(demand.rarelyBought.map(({ handle: _h, title: _t, ...row }) => row)).toEqual(expected);
    }
    // By hand, in the last 7 days: R saved 11 times and bought once (1/11 under a tenth), P7 and P8 saved 4 times;
    // P8 bought once (a quarter: not rare), P7 never. P4 (saved on day 7) is outside.
    const week = await json<Demand>(await privateCall("/analytics/demand?range=7d"));
    expect(week.rarelyBought.map((row) => [row.productId, row.saves, row.purchases, row.purchaseRate])).toEqual([
      [String(R), 11, 1, 0.0909],
      [String(P7), 4, 0, 0],
    ]);
    expect(week.rarelyBought[0]!.savers).toBe(11);
  });
});

describe("who may call, and the ranges refused", () => {
  const PATHS = ["/analytics/conversions", "/analytics/demand", "/conversions"];

  it("refuses the public key and the app proxy (403), and a call without a credential (401)", async () => {
    for (const path of PATHS) {
      const viaPublic = await json<{ type: string }>(await publicCall(path), 403);
      expect(viaPublic.type).toBe(`${BASE_URL}/problems/forbidden`);
      for (const who of [C1, null]) {
        const viaProxy = await json<{ type: string }>(await proxyCall(path, who), 403);
        expect(viaProxy.type).toBe(`${BASE_URL}/problems/forbidden`);
      }
      expect((await app.request(`${BASE_URL}/v1${path}`)).status).toBe(401);
    }
  });

  const tomorrow = dayOf(-1);
  const cases: Array<[string, string, string, string]> = [
    ["from after to", `from=${dayOf(3)}&to=${dayOf(10)}`, "from", "from is after to"],
    ["367 days", `from=${dayOf(366)}&to=${dayOf(0)}`, "from", "at most 366 days"],
    ["to tomorrow", `from=${dayOf(1)}&to=${tomorrow}`, "to", "after today"],
    ["from and to tomorrow", `from=${tomorrow}&to=${tomorrow}`, "to", "after today"],
    ["February 30th", "from=2026-02-30&to=2026-03-01", "from", "calendar day"],
    ["a month of one digit", "from=2026-1-05&to=2026-01-06", "from", "calendar day"],
    ["a word", `from=yesterday&to=${dayOf(0)}`, "from", "calendar day"],
    ["a time", `from=${dayOf(3)}&to=${dayOf(3)}T00:00:00Z`, "to", "calendar day"],
    ["range with from and to", `range=7d&from=${dayOf(3)}&to=${dayOf(1)}`, "range", "not both"],
    ["range with to", `range=7d&to=${dayOf(1)}`, "range", "not both"],
    ["from alone", `from=${dayOf(3)}`, "to", "both from and to"],
    ["to alone", `to=${dayOf(3)}`, "from", "both from and to"],
    ["an unknown preset", "range=1y", "range", ""],
  ];

  it.each(cases)("%s: 400 invalid-parameter naming it", async (_case, query, parameter, detail) => {
    for (const path of PATHS) {
      const problem = await json<{ type: string; errors: Array<{ parameter: string; detail: string }> }>(
        await privateCall(`${path}?${query}`),
        400,
      );
      expect(problem.type).toBe(`${BASE_URL}/problems/invalid-parameter`);
      expect(problem.errors).toEqual([{ parameter, detail: expect.stringContaining(detail) }]);
    }
  });

  it("takes the longest range (366 days, to today) and a one-day range of today", async () => {
    for (const path of PATHS) {
      await json(await privateCall(`${path}?from=${dayOf(365)}&to=${dayOf(0)}`));
      await json(await privateCall(`${path}?from=${dayOf(0)}&to=${dayOf(0)}`));
    }
  });

  it.each(["0", "501", "1e2", "-1", "abc"])("restockLimit=%s is refused naming it", async (value) => {
    const problem = await json<{ errors: Array<{ parameter: string }> }>(
      await privateCall(`/analytics/demand?restockLimit=${value}`),
      400,
    );
    expect(problem.errors.map((error) => error.parameter)).toEqual(["restockLimit"]);
  });

  it.each(["0", "101", "1.5"])("/conversions limit=%s is refused naming it", async (value) => {
    const problem = await json<{ errors: Array<{ parameter: string }> }>(
      await privateCall(`/conversions?limit=${value}`),
      400,
    );
    expect(problem.errors.map((error) => error.parameter)).toEqual(["limit"]);
  });
});
