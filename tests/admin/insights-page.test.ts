/**
 * The admin's Insights page, its downloads, Home's month revenue and the bought-items setting without a browser
 * (issue 30, item 4): the loaders and actions called with the requests the embedded admin sends (a session token
 * of the shop), against the real database, Redis and worker (which folds the saves into the analytics rollups),
 * the platform's GraphQL stand-in behind the fake Admin API. Conversions are seeded as the platform makes them:
 * saves through the wishlist service, then signed order and refund webhooks through the web process's app. The
 * page's figures must be the report service's (which the private API reads too) and a count made here with
 * SQL over `Conversion`.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Session } from "@shopify/shopify-api";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoShopData, type StandInShop } from "../../stand-in/demo-data";
import { signSessionToken } from "../../stand-in/session-token";
import { startFakeAdminApi, standInGraphql } from "../../scripts/lib/fake-admin-api";

// The platform at the network boundary, set before app modules (and the worker started below) read it.
const platform = await startFakeAdminApi();
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
afterAll(() => platform.close());

const { sql } = await import("kysely");
const { getEnv } = await import("~/env.server");
const { database } = await import("~/data/database.server");
const { insertAlerts, markClicked } = await import("~/data/alert-rows.server");
const { replaceProductReading } = await import("~/data/catalogue-rows.server");
const { newId } = await import("~/lib/ids");
const { exactDecimal, formatMoney } = await import("~/lib/money");
const { utcDay } = await import("~/services/analytics/rollups.server");
const { conversionReport, demandReport, resolveRange } = await import("~/services/attribution/revenue-reports.server");
const { platformSessionStorage } = await import("~/services/shops/platform-sessions.server");
const { getShopSettings } = await import("~/services/shops/shops.server");
const { toggleItem } = await import("~/services/wishlists/wishlists.server");
const insightsRoute = await import("~/routes/app.insights");
const insightsCsv = await import("~/routes/app.insights.csv");
const homeRoute = await import("~/routes/app._index");
const settingsRoute = await import("~/routes/app.settings");
const { createShop, setShopPlan } = await import("../factories");
const { apiHarness } = await import("../support/harness");
const { BASE_URL } = await import("../support/http");
const { until } = await import("../support/poll");
const { orderBody, orderWebhook, refundBody } = await import("../support/signed-orders");
const { useWorker } = await import("../support/worker");

useWorker();
const { app } = await apiHarness();

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
const DAY_MS = 24 * 60 * 60 * 1000;
/** A product title a spreadsheet would run as a formula: the downloads must defuse it. */
const FORMULA_TITLE = '=HYPERLINK("https://attacker.example","Click")';

// ---- The shop, installed on the platform -----------------------------------------------------------------

const standIns = new Map<string, StandInShop>();
platform.answer((call) => standInGraphql(standIns.get(call.accessToken ?? "")!)(call));

/** A shop with the app installed, on the Growth plan (the demand insights are its feature). */
async function installedShop() {
  const shop = await createShop();
  await setShopPlan(shop.id, "GROWTH");
  const accessToken = `shpat_${shop.id}`;
  const session = new Session({ id: `offline_${shop.domain}`, shop: shop.domain, state: "", isOnline: false });
  session.scope = getEnv().SCOPES;
  session.accessToken = accessToken;
  await platformSessionStorage.storeSession(session);
  const data = demoShopData({ domain: shop.domain, accessToken });
  standIns.set(accessToken, data);
  return { ...shop, data };
}
type Shop = Awaited<ReturnType<typeof installedShop>>;

async function adminHeaders(shop: Shop, contentType?: string) {
  const token = await signSessionToken({
    shopDomain: shop.domain,
    apiKey: getEnv().SHOPIFY_API_KEY,
    apiSecret: getEnv().SHOPIFY_API_SECRET,
  });
  const headers = new Headers({ authorization: `Bearer ${token}`, "user-agent": BROWSER });
  if (contentType) headers.set("content-type", contentType);
  return headers;
}

const adminRequest = async (shop: Shop, path: string, query: Record<string, string> = {}) =>
  new Request(`${getEnv().SHOPIFY_APP_URL}${path}?${new URLSearchParams(query)}`, {
    headers: await adminHeaders(shop),
  });

const args = (request: Request) => ({ request, params: {}, context: {} }) as LoaderFunctionArgs;
const loadInsights = async (shop: Shop, query: Record<string, string> = {}) =>
  insightsRoute.loader(args(await adminRequest(shop, "/app/insights", query)));
const loadHome = async (shop: Shop) => homeRoute.loader(args(await adminRequest(shop, "/app")));

async function download(shop: Shop, query: Record<string, string>) {
  const response = await insightsCsv.loader(args(await adminRequest(shop, "/app/insights/csv", query)));
  const text = await response.text();
  return {
    status: response.status,
    name: /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1],
    text,
    rows: response.ok ? Papa.parse<string[]>(text.trim(), { skipEmptyLines: true }).data : [],
  };
}

async function send(shop: Shop, topic: string, body: unknown) {
  const response = await app.request(`${BASE_URL}/webhooks/${topic}`, orderWebhook(topic, shop.domain, body));
  expect(response.status).toBe(200);
}

// ---- What the test seeds ---------------------------------------------------------------------------------

const now = new Date();
const ago = (days: number, hours = 0) => new Date(now.getTime() - days * DAY_MS - hours * 3_600_000);
const dayAgo = (days: number) => utcDay(ago(days));

let shop: Shop;
let quiet: Shop;
/** The shoppers who saved or removed something, by the UTC day they did. */
const activeOn = new Map<string, Set<string>>();

async function save(
  target: Shop,
  owner: { customerId: string } | { anonymousId: string },
  productId: string,
  at: Date,
  variantId?: string,
) {
  const product = target.data.products.find((candidate) => candidate.id === productId)!;
  await toggleItem({
    shopId: target.id,
    owner: "customerId" in owner ? { kind: "customer", ...owner } : { kind: "anonymous", ...owner },
    at,
    item: { productId, handle: product.handle, ...(variantId ? { variantId } : {}) },
  });
  const key = "customerId" in owner ? `c:${owner.customerId}` : `a:${owner.anonymousId}`;
  const day = utcDay(at);
  activeOn.set(day, (activeOn.get(day) ?? new Set()).add(key));
}

beforeAll(async () => {
  shop = await installedShop();
  quiet = await installedShop();
  const [shirt, coat, hat, boots, shorts, jacket, sweater, tote] = shop.data.products;
  // The tote's catalogue title is a formula: the restock download must defuse it.
  tote!.title = FORMULA_TITLE;

  // 45 days ago: customer 8001 buys the shirt saved 5 days before (in the 90 days only).
  await save(shop, { customerId: "8001" }, shirt!.id, ago(50));
  await send(
    shop,
    "orders/create",
    orderBody({
      customerId: "8001",
      createdAt: ago(45),
      lines: [{ productId: shirt!.id, quantity: 1, price: "29.00" }],
    }),
  );

  // 10 days ago: 8002 buys two coats, less a discount, a day after following a price-drop alert's link.
  await save(shop, { customerId: "8002" }, coat!.id, ago(20));
  const item = await database()
    .selectFrom("Item")
    .innerJoin("List", "List.id", "Item.listId")
    .select(["Item.id", "Item.listId"])
    .where("Item.shopId", "=", shop.id)
    .where("List.customerId", "=", "8002")
    .where("Item.productId", "=", coat!.id)
    .executeTakeFirstOrThrow();
  const [alert] = await insertAlerts(database(), [
    {
      id: newId("alert"),
      shopId: shop.id,
      customerId: "8002",
      listId: item.listId,
      itemId: item.id,
      productId: coat!.id,
      variantId: "",
      kind: "price_dropped",
      oldPriceMinor: 4_000,
      newPriceMinor: 3_600,
      quantity: null,
      currency: "USD",
      changeKey: newId("event"),
      messageId: null,
      createdAt: ago(12),
    },
  ]);
  await markClicked(database(), shop.id, alert!.id, ago(11));
  await send(
    shop,
    "orders/create",
    orderBody({
      customerId: "8002",
      createdAt: ago(10),
      lines: [{ productId: coat!.id, quantity: 2, price: "36.00", presentmentPrice: "33.00", discount: "2.00" }],
    }),
  );

  // 6 days ago: an order of 8002's in another currency (the shop's currency changed), for the swim shorts.
  await save(shop, { customerId: "8002" }, shorts!.id, ago(8));
  await send(
    shop,
    "orders/create",
    orderBody({
      customerId: "8002",
      createdAt: ago(6),
      currency: "EUR",
      lines: [{ productId: shorts!.id, quantity: 1, price: "40.00" }],
    }),
  );

  // 3 days ago: 8001 orders the coat, then the order is cancelled.
  await save(shop, { customerId: "8001" }, coat!.id, ago(4));
  const cancelled = orderBody({
    customerId: "8001",
    createdAt: ago(3),
    lines: [{ productId: coat!.id, quantity: 1, price: "36.00" }],
  });
  await send(shop, "orders/create", cancelled);
  await send(shop, "orders/cancelled", { ...cancelled, cancelled_at: ago(2).toISOString() });

  // 2 days ago: 8003 buys the hat and the boots, and the boots are refunded.
  await save(shop, { customerId: "8003" }, hat!.id, ago(5));
  await save(shop, { customerId: "8003" }, boots!.id, ago(5));
  const refunded = orderBody({
    customerId: "8003",
    createdAt: ago(2),
    lines: [
      { productId: hat!.id, quantity: 1, price: "43.00" },
      { productId: boots!.id, quantity: 1, price: "50.00" },
    ],
  });
  await send(shop, "orders/create", refunded);
  await send(shop, "refunds/create", refundBody(refunded, [{ line: 1, quantity: 1, subtotal: "50.00" }]));

  // Yesterday: a guest buys the shirt, matched by the list its cart names.
  const guest = "4f1c0f8e-5d43-4d2b-9b1e-7a6f1f0c2d11";
  await save(shop, { anonymousId: guest }, shirt!.id, ago(3));
  // The value the guest's storefront writes into the cart's hidden attribute, as the storefront API gives it.
  const read = await app.request(`${BASE_URL}/v1/storefront/wishlist?aid=${guest}`, {
    headers: { "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey },
  });
  const { cartAttribute } = (await read.json()) as { cartAttribute: string };
  await send(
    shop,
    "orders/create",
    orderBody({
      guestListId: cartAttribute,
      createdAt: ago(1),
      lines: [{ productId: shirt!.id, quantity: 1, price: "29.00" }],
    }),
  );

  // Today: 8003 buys the shorts saved an hour before.
  await save(shop, { customerId: "8003" }, shorts!.id, ago(0, 1));
  await send(
    shop,
    "orders/create",
    orderBody({ customerId: "8003", createdAt: now, lines: [{ productId: shorts!.id, quantity: 3, price: "57.00" }] }),
  );

  // Demand: the rain jacket saved by four shoppers and bought by none; the tote (sold out) and the sweater's
  // Large (sold out) wait for a restock.
  for (const customerId of ["8004", "8005", "8006", "8007"]) await save(shop, { customerId }, jacket!.id, ago(9));
  for (const customerId of ["8004", "8005"]) await save(shop, { customerId }, tote!.id, ago(7));
  await save(shop, { customerId: "8006" }, sweater!.id, ago(7), "9300000007");
  await save(shop, { customerId: "8007" }, sweater!.id, ago(7), "9100000007");
  const variant = (productId: string, variantId: string, title: string, quantity: number) => ({
    shopId: shop.id,
    productId,
    variantId,
    inventoryItemId: null,
    title,
    priceMinor: 7_100,
    compareAtMinor: null,
    currency: "USD",
    available: quantity > 0,
    inventoryQuantity: quantity,
    imageUrl: null,
    readAt: new Date(),
  });
  // The catalogue as the alerts' reading of the stand-in leaves it (the worker may read it too: the same rows).
  await replaceProductReading(database(), shop.id, tote!.id, [variant(tote!.id, "9100000008", "Default Title", 0)]);
  await replaceProductReading(database(), shop.id, sweater!.id, [
    variant(sweater!.id, "9100000007", "Small", 14),
    variant(sweater!.id, "9200000007", "Medium", 22),
    variant(sweater!.id, "9300000007", "Large", 0),
  ]);

  // The worker has folded every save into the analytics rollups (the savers of the conversion rate).
  await until(
    async () => {
      const row = await database()
        .selectFrom("Event")
        .select((eb) => eb.fn.countAll<number>().as("pending"))
        .where("shopId", "=", shop.id)
        .where("dispatchedAt", "is", null)
        .executeTakeFirstOrThrow();
      return Number(row.pending);
    },
    (pending) => pending === 0,
    "the worker relayed the saves' events",
  );
}, 180_000);

// ---- The figures, counted here with SQL over Conversion --------------------------------------------------

async function countedWithSql(shopId: string, from: string, to: string) {
  const rows = await database()
    .selectFrom("Conversion")
    .select([
      "orderId",
      "customerId",
      "anonymousId",
      "productId",
      "currency",
      "source",
      "days",
      "cancelledAt",
      sql<number>`"amountMinor"`.as("amountMinor"),
      sql<number>`"refundedMinor"`.as("refundedMinor"),
    ])
    .where("shopId", "=", shopId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .execute();
  const net = new Map<string, number>();
  for (const row of rows) {
    net.set(row.currency, (net.get(row.currency) ?? 0) + Number(row.amountMinor) - Number(row.refundedMinor));
  }
  const live = rows.filter((row) => row.cancelledAt === null);
  const delays = live.map((row) => row.days).sort((a, b) => a - b);
  const middle = delays.length / 2;
  return {
    net: Object.fromEntries(net),
    placed: new Set(rows.map((row) => row.orderId)).size,
    cancelled: new Set(rows.filter((row) => row.cancelledAt !== null).map((row) => row.orderId)).size,
    lines: rows.length,
    buyers: new Set(live.map((row) => `${row.customerId}|${row.anonymousId}`)).size,
    median:
      delays.length === 0
        ? null
        : delays.length % 2
          ? delays[Math.floor(middle)]
          : (delays[middle - 1]! + delays[middle]!) / 2,
    bySource: rows.reduce<Record<string, number>>((sums, row) => {
      const key = `${row.source || "none"} ${row.currency}`;
      sums[key] = (sums[key] ?? 0) + Number(row.amountMinor) - Number(row.refundedMinor);
      return sums;
    }, {}),
  };
}

/** The range's savers: the shoppers who saved in it, and its buyers (a cancelled order's too). */
async function saversIn(from: string, to: string) {
  const owners = new Set<string>();
  for (const [day, keys] of activeOn) if (day >= from && day <= to) for (const key of keys) owners.add(key);
  const buyers = await database()
    .selectFrom("Conversion")
    .select(["customerId", "anonymousId"])
    .where("shopId", "=", shop.id)
    .where("orderedAt", ">=", new Date(`${from}T00:00:00Z`))
    .where("orderedAt", "<", new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000))
    .execute();
  for (const buyer of buyers) owners.add(buyer.customerId ? `c:${buyer.customerId}` : `a:${buyer.anonymousId}`);
  return owners.size;
}

type InsightsData = Awaited<ReturnType<typeof loadInsights>>;

/** The page's figures are the service's, its products named; and they are what SQL counts. */
async function expectFiguresOfRange(page: InsightsData, from: string, to: string) {
  expect(page.range).toEqual({ from, to });
  const service = await conversionReport(shop.id, { from, to });
  const { topProducts, ...figures } = page.report;
  const { topProducts: serviceTop, ...serviceFigures } = service;
  expect(figures).toEqual(serviceFigures);
  expect(topProducts.map(({ title: _title, ...rest }) => rest)).toEqual(
    serviceTop.map(({ title: _title, ...rest }) => ({ ...rest, handle: rest.handle ?? expect.any(String) })),
  );
  const demand = await demandReport(shop.id, { from, to });
  expect(page.demand!.rarelyBought.map(({ title: _title, handle: _handle, ...rest }) => rest)).toEqual(
    demand.rarelyBought.map(({ title: _title, handle: _handle, ...rest }) => rest),
  );
  expect(page.demand!.restock.map(({ title: _title, handle: _handle, ...rest }) => rest)).toEqual(
    demand.restock.map(({ title: _title, handle: _handle, ...rest }) => rest),
  );

  const counted = await countedWithSql(shop.id, from, to);
  expect(Object.fromEntries(page.report.revenue.map((entry) => [entry.currency, entry.netMinor]))).toEqual(counted.net);
  expect(page.report.orders).toEqual({
    placed: counted.placed,
    cancelled: counted.cancelled,
    net: counted.placed - counted.cancelled,
  });
  expect(page.report.lines).toBe(counted.lines);
  expect(page.report.buyers).toBe(counted.buyers);
  expect(page.report.savers).toBe(await saversIn(from, to));
  expect(page.report.medianDaysToPurchase).toBe(counted.median);
  expect(
    Object.fromEntries(
      page.report.bySource.filter((row) => row.lines > 0).map((row) => [`${row.source} ${row.currency}`, row.netMinor]),
    ),
  ).toEqual(counted.bySource);
  return counted;
}

// ---- The tests -------------------------------------------------------------------------------------------

describe("the Insights page", () => {
  it("shows the last 30 days by default: revenue per currency, orders, conversion, delays and sources", async () => {
    const page = await loadInsights(shop);
    expect(page).toMatchObject({ choice: "30d", errors: {}, unknownRange: null });
    const { from, to } = resolveRange({ range: "30d" });
    const counted = await expectFiguresOfRange(page, from, to);

    // What the seed makes of these 30 days, worked out by hand: USD 2 x 36.00 - 2.00 (coat), 36.00 cancelled,
    // 43.00 + 50.00 refunded (hat, boots), 29.00 (guest's shirt), 3 x 57.00 (shorts); EUR 40.00 (shorts).
    expect(counted.net).toEqual({ USD: 7_000 + 4_300 + 2_900 + 17_100, EUR: 4_000 });
    expect(page.report.currency).toBe("USD");
    expect(page.report.revenue[0]).toEqual({
      currency: "USD",
      grossMinor: 7_000 + 3_600 + 4_300 + 5_000 + 2_900 + 17_100,
      refundedMinor: 3_600 + 5_000,
      netMinor: 31_300,
    });
    expect(page.report.orders).toEqual({ placed: 6, cancelled: 1, net: 5 });
    // Buyers 8002, 8003 and the guest (8001's only order in the range was cancelled).
    expect(page.report.buyers).toBe(3);
    expect(page.report.bySource.find((row) => row.source === "price_dropped" && row.currency === "USD")).toMatchObject({
      netMinor: 7_000,
      lines: 1,
    });
    // The daily series in the main currency: the coat's day, and today's shorts.
    expect(page.report.days).toHaveLength(30);
    expect(page.report.days.find((day) => day.date === dayAgo(10))).toEqual({
      date: dayAgo(10),
      netMinor: 7_000,
      orders: 1,
    });
    expect(page.report.days.at(-1)).toEqual({ date: to, netMinor: 17_100, orders: 1 });

    // Top converting products by net revenue (main currency), named from the platform's catalogue.
    const [, coat, hat, , shorts] = shop.data.products;
    expect(page.report.topProducts.slice(0, 3).map((product) => [product.title, product.netMinor])).toEqual([
      [shorts!.title, 17_100],
      [coat!.title, 7_000],
      [hat!.title, 4_300],
    ]);
  });

  it("shows the demand: products saved often and rarely bought, and the restock list with the shoppers waiting", async () => {
    const page = await loadInsights(shop);
    const [, , , , , jacket, sweater, tote] = shop.data.products;
    expect(page.demand!.rarelyBought[0]).toMatchObject({
      productId: jacket!.id,
      title: jacket!.title,
      saves: 4,
      purchases: 0,
      purchaseRate: 0,
      savers: 4,
    });
    expect(
      page.demand!.restock.map((row) => [
        row.productId,
        row.variantId,
        row.variantTitle,
        row.inventoryQuantity,
        row.waiting,
      ]),
    ).toEqual([
      [tote!.id, "9100000008", "Default Title", 0, 2],
      [sweater!.id, "9300000007", "Large", 0, 1],
    ]);
    expect(page.demand!.restock[0]!.title).toBe(FORMULA_TITLE);
  });

  it("shows the 7 and 90 days, and a custom range of two dates", async () => {
    for (const [range, days] of [
      ["7d", 7],
      ["90d", 90],
    ] as const) {
      const page = await loadInsights(shop, { range });
      expect(page.choice).toBe(range);
      const { from, to } = resolveRange({ range });
      await expectFiguresOfRange(page, from, to);
      expect(page.report.days).toHaveLength(days);
    }
    const week = await loadInsights(shop, { range: "7d" });
    // The EUR order was 6 days ago: in the week, with today's and the last days' USD orders.
    expect(Object.fromEntries(week.report.revenue.map((entry) => [entry.currency, entry.netMinor]))).toEqual({
      USD: 4_300 + 2_900 + 17_100,
      EUR: 4_000,
    });
    expect((await loadInsights(shop, { range: "90d" })).report.revenue[0]!.netMinor).toBe(31_300 + 2_900);

    // Two dates around the first order only.
    const custom = await loadInsights(shop, { range: "custom", from: dayAgo(50), to: dayAgo(40) });
    expect(custom).toMatchObject({ choice: "custom", from: dayAgo(50), to: dayAgo(40), errors: {} });
    await expectFiguresOfRange(custom, dayAgo(50), dayAgo(40));
    expect(custom.report.revenue).toEqual([{ currency: "USD", grossMinor: 2_900, refundedMinor: 0, netMinor: 2_900 }]);
    expect(custom.report.medianDaysToPurchase).toBe(5);
    expect(custom.report.days).toHaveLength(11);
  });

  it("names what is wrong with a custom range on its field, and shows the last 30 days meanwhile", async () => {
    const thirty = resolveRange({ range: "30d" });
    const today = utcDay(new Date());
    const cases: Array<[Record<string, string>, Record<string, unknown>]> = [
      [{ from: dayAgo(3), to: dayAgo(5) }, { from: { key: "insights.custom.afterEnd" } }],
      [
        { from: dayAgo(3), to: utcDay(new Date(Date.now() + 2 * DAY_MS)) },
        { to: { key: "insights.custom.future", values: { today } } },
      ],
      [{ from: "2026-02-30", to: dayAgo(1) }, { from: { key: "insights.custom.notDay" } }],
      [
        { from: "yesterday", to: "" },
        { from: { key: "insights.custom.notDay" }, to: { key: "insights.custom.missing" } },
      ],
      [{ from: dayAgo(400), to: dayAgo(0) }, { to: { key: "insights.custom.tooLong", values: { days: 366 } } }],
    ];
    for (const [dates, errors] of cases) {
      const page = await loadInsights(shop, { range: "custom", ...dates });
      // The fields keep what was typed, each error is on its field, and the figures are the last 30 days'.
      expect(page).toMatchObject({ choice: "custom", from: dates.from, to: dates.to, unknownRange: null });
      expect(page.errors).toEqual(errors);
      expect(page.range).toEqual(thirty);
      expect(page.report.days).toHaveLength(30);
    }
    // Each message exists in the admin's languages (the page shows it with t()).
    const { createTranslator } = await import("~/i18n/translate");
    expect(createTranslator("de").t("insights.custom.future", { today })).toContain(today);

    // A range the page does not offer: a warning, and the last 30 days.
    const unknown = await loadInsights(shop, { range: "365d" });
    expect(unknown).toMatchObject({ choice: "30d", unknownRange: "365d", errors: {} });
    expect(unknown.range).toEqual(thirty);
  });

  it("shows no conversion figures for a shop without orders: the page explains attribution instead", async () => {
    const page = await loadInsights(quiet);
    expect(page.report).toMatchObject({
      currency: null,
      revenue: [],
      orders: { placed: 0, cancelled: 0, net: 0 },
      lines: 0,
      conversionRate: null,
      medianDaysToPurchase: null,
      topProducts: [],
    });
    expect(page.demand).toMatchObject({ rarelyBought: [], restock: [] });
  });
});

describe("the Insights downloads", () => {
  const range = () => resolveRange({ range: "30d" });

  it("give the daily revenue, the revenue by source and the top products of the range, amounts exact", async () => {
    const { from, to } = range();
    const query = { range: "custom", from, to };
    const page = await loadInsights(shop, query);

    const daily = await download(shop, { ...query, report: "revenue" });
    expect(daily.status).toBe(200);
    expect(daily.name).toBe(`wishlist-revenue-${from}-to-${to}.csv`);
    expect(daily.text.endsWith("\r\n")).toBe(true);
    expect(daily.rows).toEqual([
      ["date", "currency", "net_revenue", "orders"],
      ...page.report.days.map((day) => [day.date, "USD", exactDecimal(day.netMinor, "USD"), String(day.orders)]),
    ]);
    expect(daily.rows.find((row) => row[0] === dayAgo(10))).toEqual([dayAgo(10), "USD", "70.00", "1"]);

    const sources = await download(shop, { ...query, report: "sources" });
    expect(sources.rows[0]).toEqual(["source", "currency", "gross_revenue", "refunded", "net_revenue", "items_bought"]);
    expect(sources.rows).toContainEqual(["price_dropped", "USD", "70.00", "0.00", "70.00", "1"]);
    expect(sources.rows).toContainEqual(["none", "EUR", "40.00", "0.00", "40.00", "1"]);
    expect(sources.rows).toHaveLength(1 + page.report.bySource.length);

    const products = await download(shop, { ...query, report: "products" });
    expect(products.rows.slice(1)).toEqual(
      page.report.topProducts.map((p) => [
        p.productId,
        p.title,
        p.handle ?? "",
        String(p.lines),
        String(p.quantity),
        "USD",
        exactDecimal(p.grossMinor, "USD"),
        exactDecimal(p.refundedMinor, "USD"),
        exactDecimal(p.netMinor, "USD"),
      ]),
    );

    const rarely = await download(shop, { ...query, report: "rarely-bought" });
    expect(rarely.rows[0]).toEqual([
      "product_id",
      "title",
      "handle",
      "saves",
      "purchases",
      "purchase_rate",
      "current_savers",
    ]);
    expect(rarely.rows.slice(1).map((row) => row[0])).toEqual(page.demand!.rarelyBought.map((p) => p.productId));
  });

  it("gives the restock list as its own file, a formula in a title defused", async () => {
    const restock = await download(shop, { range: "30d", report: "restock" });
    expect(restock.status).toBe(200);
    expect(restock.name).toBe(`wishlist-restock-${utcDay(new Date())}.csv`);
    const [, , , , , , sweater, tote] = shop.data.products;
    expect(restock.rows).toEqual([
      ["product_id", "variant_id", "title", "handle", "variant_title", "inventory_quantity", "shoppers_waiting"],
      // The formula guard: a leading ' keeps a spreadsheet from running the cell.
      [tote!.id, "9100000008", `'${FORMULA_TITLE}`, tote!.handle, "Default Title", "0", "2"],
      [sweater!.id, "9300000007", sweater!.title, sweater!.handle, "Large", "0", "1"],
    ]);
  });

  it("refuses a bad range or an unknown report with a 400 that says why", async () => {
    const backwards = await download(shop, { range: "custom", from: dayAgo(1), to: dayAgo(3), report: "revenue" });
    expect(backwards.status).toBe(400);
    expect(backwards.text).toBe("from: The start must be on or before the end.");
    expect((await download(shop, { range: "365d", report: "revenue" })).status).toBe(400);
    const unknown = await download(shop, { range: "30d", report: "orders" });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toMatch(/report must be one of revenue, sources, products, rarely-bought, restock/);
  });
});

describe("Home", () => {
  it("shows this month's influenced revenue (net, UTC days) beside the saves, as the report and SQL count it", async () => {
    const home = await loadHome(shop);
    const today = utcDay(new Date());
    const from = `${today.slice(0, 8)}01`;
    const counted = await countedWithSql(shop.id, from, today);
    expect(home.monthRevenue.from).toBe(from);
    expect(home.monthRevenue.to).toBe(today);
    expect(Object.fromEntries(home.monthRevenue.revenue.map((entry) => [entry.currency, entry.netMinor]))).toEqual(
      counted.net,
    );
    // Today's order is this month's whatever the date: the main currency's figure is never empty.
    expect(home.monthRevenue.revenue[0]!.currency).toBe("USD");
    expect(home.monthRevenue.revenue[0]!.netMinor).toBeGreaterThanOrEqual(17_100);
    const service = await conversionReport(shop.id, { from, to: today });
    expect(home.monthRevenue.revenue).toEqual(
      service.revenue.map(({ currency, netMinor }) => ({ currency, netMinor })),
    );
    expect((await loadHome(quiet)).monthRevenue.revenue).toEqual([]);
  });
});

describe("the bought-items setting", () => {
  type Answer = Awaited<ReturnType<typeof settingsRoute.action>>;
  async function saveSettings(target: Shop, body: unknown): Promise<Answer> {
    const request = new Request(`${getEnv().SHOPIFY_APP_URL}/app/settings`, {
      method: "POST",
      headers: await adminHeaders(target, "application/json"),
      body: JSON.stringify(body),
    });
    return settingsRoute.action({ request, params: {}, context: {} } as ActionFunctionArgs);
  }
  const loadSettings = async (target: Shop) => settingsRoute.loader(args(await adminRequest(target, "/app/settings")));

  it("keeps bought items by default, saves remove and keep, and refuses anything else on its field", async () => {
    expect((await loadSettings(quiet)).settings.boughtItems).toBe("keep");
    expect(await saveSettings(quiet, { boughtItems: "remove" })).toMatchObject({
      ok: true,
      settings: { boughtItems: "remove" },
    });
    expect((await loadSettings(quiet)).settings.boughtItems).toBe("remove");
    expect((await getShopSettings({ shopId: quiet.id })).boughtItems).toBe("remove");

    const refused = await saveSettings(quiet, { boughtItems: "discard" });
    expect(refused.ok).toBe(false);
    expect(Object.keys((refused as { fieldErrors: Record<string, string> }).fieldErrors)).toEqual(["boughtItems"]);
    expect((await getShopSettings({ shopId: quiet.id })).boughtItems).toBe("remove");

    expect(await saveSettings(quiet, { boughtItems: "keep" })).toMatchObject({ ok: true });
    expect((await getShopSettings({ shopId: quiet.id })).boughtItems).toBe("keep");
  });
});

describe("money on the pages", () => {
  it("is formatted in the admin's language from minor units, exactly", () => {
    expect(exactDecimal(31_300, "USD")).toBe("313.00");
    expect(exactDecimal(-5, "EUR")).toBe("-0.05");
    expect(exactDecimal(1_234, "JPY")).toBe("1234");
    expect(exactDecimal(1_234_567, "KWD")).toBe("1234.567");
    // Where dividing by 100 as a float would round to the wrong cent (90071992547409.91).
    expect(exactDecimal(9_007_199_254_740_990, "USD")).toBe("90071992547409.90");
    expect(formatMoney(9_007_199_254_740_990, "USD", "en")).toBe("$90,071,992,547,409.90");
    expect(formatMoney(31_300, "USD", "en")).toBe("$313.00");
    expect(formatMoney(4_000, "EUR", "de")).toMatch(/^40,00\s€$/u);
    expect(formatMoney(4_000, "EUR", "fr")).toMatch(/^40,00\s€$/u);
    expect(formatMoney(150, "JPY", "es")).toMatch(/^150\sJPY$/u);
  });
});

describe("the demand insights on a plan without them", () => {
  it("are not computed or downloadable on Free, the rest of the page is as on any plan, and an upgrade brings them", async () => {
    const free = await installedShop();
    await setShopPlan(free.id, "FREE");
    const page = await loadInsights(free);
    expect(page.demand).toBeNull();
    expect(page.report).toMatchObject({ lines: 0, topProducts: [] });
    for (const report of ["rarely-bought", "restock"]) {
      const refused = await download(free, { report, range: "30d" });
      expect(refused.status).toBe(403);
      expect(refused.text).toMatch(/Growth plan/);
    }
    // The revenue reports stay on every plan.
    expect((await download(free, { report: "revenue", range: "30d" })).status).toBe(200);
    await setShopPlan(free.id, "GROWTH");
    expect((await loadInsights(free)).demand).toMatchObject({ rarelyBought: [], restock: [] });
    expect((await download(free, { report: "restock", range: "30d" })).status).toBe(200);
  });
});
