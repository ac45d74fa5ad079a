/**
 * The reference of the attribution benchmark: a bare node:http server doing per `orders/create` webhook the
 * SQL the app does (app/services/attribution/orders.server.ts, the statements as the app's data layer sends
 * them), with no framework, query builder, schema validation or logging.
 *
 * Per request, as the app: the HMAC of the body checked in constant time against the app's secret; the body
 * parsed and its sha256 taken; the shop looked up by the `X-Shopify-Shop-Domain`. In one transaction: the
 * webhook id and the body digest recorded (processed once); the buyer's saved items of the order's products,
 * saved before the order; the alert clicks of those products in the previous 7 days; whether the order had
 * conversions already; one conversion per line of a saved product (amounts in minor units, shop and
 * presentment currency); the daily rollups (stat, delay, order) added to; the items marked bought.
 *
 * Usage: attribution-reference.ts <database url> <port> <webhook secret>. SQLite through better-sqlite3
 * (`BEGIN IMMEDIATE`, as the app's transactions), PostgreSQL through pg (a pool of the app's default, 10).
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import Database from "better-sqlite3";
import pg from "pg";
import { typeidUnboxed } from "typeid-js";
import { inTransaction, numbered, readBody, serveJson } from "./bare-server";
import { pgTypes } from "./pg-types";

const [url, portText, secret] = process.argv.slice(2) as [string, string, string];

type Row = Record<string, unknown>;
type Value = string | number | null | Date;
type Query = (text: string, params: Value[]) => Promise<Row[]>;

const SHOP = `SELECT "id", "domain", "publicKey", "settings", "uninstalledAt" FROM "Shop" WHERE "domain" = ?`;
const LEDGER = `INSERT INTO "PlatformWebhook" ("id", "topic", "shopDomain", "receivedAt") VALUES (?, ?, ?, ?)`;
const SAVED = (products: number) =>
  `SELECT "Item"."id", "Item"."listId", "Item"."productId", "Item"."variantId", "Item"."addedAt", "Item"."purchasedAt", ` +
  `"List"."customerId", "List"."anonymousId" FROM "Item" INNER JOIN "List" ON "List"."id" = "Item"."listId" ` +
  `WHERE "List"."shopId" = ? AND "List"."customerId" = ? AND "Item"."shopId" = ? ` +
  `AND "Item"."productId" IN (${placeholders(products)}) AND "Item"."addedAt" < ? ORDER BY "Item"."addedAt", "Item"."id"`;
const CLICKS = (products: number) =>
  `SELECT "id", "productId", "kind", "clickedAt" FROM "Alert" WHERE "shopId" = ? AND "customerId" = ? ` +
  `AND "productId" IN (${placeholders(products)}) AND "clickedAt" >= ? AND "clickedAt" <= ?`;
const HAS_CONVERSIONS = `SELECT "id" FROM "Conversion" WHERE "shopId" = ? AND "orderId" = ? LIMIT 1`;
const CONVERSION_COLUMNS =
  `"id", "shopId", "orderId", "lineItemId", "customerId", "anonymousId", "productId", "variantId", "quantity", ` +
  `"amountMinor", "currency", "presentmentAmountMinor", "presentmentCurrency", "savedAt", "orderedAt", "day", "days", ` +
  `"source", "alertId", "createdAt"`;
const INSERT_CONVERSIONS = (rows: number) =>
  `INSERT INTO "Conversion" (${CONVERSION_COLUMNS}) VALUES ${Array.from({ length: rows }, () => `(${placeholders(20)})`).join(", ")} ` +
  `ON CONFLICT ("shopId", "orderId", "lineItemId") DO NOTHING RETURNING *`;
const ADD_STATS = (rows: number) =>
  `INSERT INTO "DailyConversionStat" ("shopId", "day", "productId", "source", "currency", "lines", "quantity", "revenueMinor", "refundedMinor") ` +
  `VALUES ${Array.from({ length: rows }, () => `(${placeholders(9)})`).join(", ")} ` +
  `ON CONFLICT ("shopId", "day", "productId", "source", "currency") DO UPDATE SET ` +
  `"lines" = "DailyConversionStat"."lines" + "excluded"."lines", "quantity" = "DailyConversionStat"."quantity" + "excluded"."quantity", ` +
  `"revenueMinor" = "DailyConversionStat"."revenueMinor" + "excluded"."revenueMinor", ` +
  `"refundedMinor" = "DailyConversionStat"."refundedMinor" + "excluded"."refundedMinor"`;
const ADD_DELAYS = (rows: number) =>
  `INSERT INTO "DailyConversionDelay" ("shopId", "day", "days", "lines") VALUES ${Array.from({ length: rows }, () => "(?, ?, ?, ?)").join(", ")} ` +
  `ON CONFLICT ("shopId", "day", "days") DO UPDATE SET "lines" = "DailyConversionDelay"."lines" + "excluded"."lines"`;
const ADD_ORDER =
  `INSERT INTO "DailyConversionOrder" ("shopId", "day", "orders", "cancelled") VALUES (?, ?, ?, ?) ` +
  `ON CONFLICT ("shopId", "day") DO UPDATE SET "orders" = "DailyConversionOrder"."orders" + "excluded"."orders", ` +
  `"cancelled" = "DailyConversionOrder"."cancelled" + "excluded"."cancelled"`;
const ACTIVE =
  `INSERT INTO "DailyActiveOwner" ("shopId", "day", "ownerKey") VALUES (?, ?, ?) ON CONFLICT DO NOTHING ` +
  `RETURNING "shopId", "day", "ownerKey"`;
const OWNER_DAYS = `SELECT "ownerKey", "day" FROM "DailyActiveOwner" WHERE "shopId" = ? AND "ownerKey" IN (?) AND "day" >= ?`;
const ADD_RETURNS = (rows: number) =>
  `INSERT INTO "DailyOwnerReturn" ("shopId", "day", "previousDay", "owners") VALUES ${Array.from({ length: rows }, () => "(?, ?, ?, ?)").join(", ")} ` +
  `ON CONFLICT ("shopId", "day", "previousDay") DO UPDATE SET "owners" = "DailyOwnerReturn"."owners" + "excluded"."owners"`;
const ADD_SHOP_STAT =
  `INSERT INTO "DailyShopStat" ("shopId", "day", "adds", "removes", "activeShoppers") VALUES (?, ?, 0, 0, 1) ` +
  `ON CONFLICT ("shopId", "day") DO UPDATE SET "adds" = "DailyShopStat"."adds" + "excluded"."adds", ` +
  `"removes" = "DailyShopStat"."removes" + "excluded"."removes", ` +
  `"activeShoppers" = "DailyShopStat"."activeShoppers" + "excluded"."activeShoppers"`;
const MARK_BOUGHT = (items: number) =>
  `UPDATE "Item" SET "purchasedAt" = ? WHERE "shopId" = ? AND "id" IN (${placeholders(items)}) AND "purchasedAt" IS NULL`;

function placeholders(count: number) {
  return Array.from({ length: count }, () => "?").join(", ");
}

const DAY_MS = 24 * 60 * 60 * 1000;
const dayBefore = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);

/** The buyer active on the order's day, and the day's owners by previous active day kept in step (decision 054). */
async function markActive(query: Query, shopId: string, day: string, ownerKey: string) {
  if ((await query(ACTIVE, [shopId, day, ownerKey])).length === 0) return;
  const days = (await query(OWNER_DAYS, [shopId, ownerKey, dayBefore(day, 366)]))
    .map((row) => row.day as string)
    .sort();
  const previousOf = (at: string, without: string | null) => {
    const earlier = days.filter((other) => other < at && other !== without).at(-1);
    return earlier !== undefined && earlier >= dayBefore(at, 365) ? earlier : "";
  };
  const changes: Value[][] = [[shopId, day, previousOf(day, null), 1]];
  const following = days.find((other) => other > day);
  if (following !== undefined) {
    changes.push(
      [shopId, following, previousOf(following, day), -1],
      [shopId, following, previousOf(following, null), 1],
    );
  }
  await query(ADD_RETURNS(changes.length), changes.flat());
  await query(ADD_SHOP_STAT, [shopId, day]);
}
const WINDOW_MS = 7 * DAY_MS;

/** A decimal amount of a two-digit currency ("24.90") in minor units, exactly. */
function minor(amount: string): number {
  const [whole, fraction = ""] = amount.split(".");
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0").slice(0, 2));
}

interface Line {
  id: number;
  product_id: number;
  variant_id: number | null;
  quantity: number;
  price_set: { shop_money: { amount: string }; presentment_money: { amount: string } };
  discount_allocations: Array<{
    amount_set: { shop_money: { amount: string }; presentment_money: { amount: string } };
  }>;
}

async function record(query: Query, shopId: string, order: Row, now: Date) {
  const customerId = (order.customer as { id: number } | null)?.id;
  if (customerId === undefined) return 0;
  const lines = order.line_items as Line[];
  const orderedAt = new Date(order.created_at as string);
  const productIds = [...new Set(lines.map((line) => String(line.product_id)))];
  const saved = (
    await query(SAVED(productIds.length), [shopId, String(customerId), shopId, ...productIds, orderedAt])
  ).filter((item) => item.purchasedAt === null || new Date(item.purchasedAt as string) >= orderedAt);
  if (saved.length === 0) return 0;
  const firstSave = new Map<string, Row>();
  for (const item of saved) if (!firstSave.has(item.productId as string)) firstSave.set(item.productId as string, item);
  const clicks = new Map<string, Row>();
  for (const click of await query(CLICKS(firstSave.size), [
    shopId,
    String(customerId),
    ...firstSave.keys(),
    new Date(orderedAt.getTime() - WINDOW_MS),
    orderedAt,
  ])) {
    clicks.set(click.productId as string, click);
  }
  const existed = (await query(HAS_CONVERSIONS, [shopId, String(order.id)])).length > 0;
  const day = orderedAt.toISOString().slice(0, 10);
  const values: Value[] = [];
  let count = 0;
  for (const line of lines) {
    const item = firstSave.get(String(line.product_id));
    if (!item) continue;
    const click = clicks.get(String(line.product_id));
    const discount = (money: "shop_money" | "presentment_money") =>
      line.discount_allocations.reduce((sum, allocation) => sum + minor(allocation.amount_set[money].amount), 0);
    const addedAt = new Date(item.addedAt as string);
    values.push(
      typeidUnboxed("cnv"),
      shopId,
      String(order.id),
      String(line.id),
      String(customerId),
      null,
      String(line.product_id),
      line.variant_id === null ? "" : String(line.variant_id),
      line.quantity,
      minor(line.price_set.shop_money.amount) * line.quantity - discount("shop_money"),
      order.currency as string,
      minor(line.price_set.presentment_money.amount) * line.quantity - discount("presentment_money"),
      order.presentment_currency as string,
      addedAt,
      orderedAt,
      day,
      Math.max(0, Math.floor((orderedAt.getTime() - addedAt.getTime()) / DAY_MS)),
      (click?.kind as string | undefined) ?? "",
      (click?.id as string | undefined) ?? null,
      now,
    );
    count++;
  }
  const inserted = await query(INSERT_CONVERSIONS(count), values);
  if (inserted.length === 0) return 0;
  const stats = new Map<string, Value[]>();
  const delays = new Map<number, number>();
  for (const row of inserted) {
    const key = `${row.productId}\0${row.source}\0${row.currency}`;
    const stat = stats.get(key) ?? [
      shopId,
      day,
      row.productId as string,
      row.source as string,
      row.currency as string,
      0,
      0,
      0,
      0,
    ];
    stat[5] = (stat[5] as number) + 1;
    stat[6] = (stat[6] as number) + Number(row.quantity);
    stat[7] = (stat[7] as number) + Number(row.amountMinor);
    stats.set(key, stat);
    delays.set(Number(row.days), (delays.get(Number(row.days)) ?? 0) + 1);
  }
  await query(ADD_STATS(stats.size), [...stats.values()].flat());
  await query(
    ADD_DELAYS(delays.size),
    [...delays].flatMap(([days, lines]) => [shopId, day, days, lines]),
  );
  if (!existed) await query(ADD_ORDER, [shopId, day, 1, 0]);
  await markActive(query, shopId, day, `c:${customerId}`);
  const bought = saved
    .filter((item) => item.purchasedAt === null && inserted.some((row) => row.productId === item.productId))
    .map((item) => item.id as string);
  if (bought.length > 0) await query(MARK_BOUGHT(bought.length), [orderedAt, shopId, ...bought]);
  return inserted.length;
}

interface Store {
  query: Query;
  transaction<T>(work: (query: Query) => Promise<T>): Promise<T>;
}

function sqliteStore(file: string): Store {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 10000");
  db.pragma("synchronous = NORMAL");
  const param = (value: Value) => (value instanceof Date ? value.toISOString().replace("Z", "+00:00") : value);
  const statements = new Map<string, Database.Statement>();
  const query: Query = async (text, params) => {
    let statement = statements.get(text);
    if (!statement) statements.set(text, (statement = db.prepare(text)));
    const bound = params.map(param);
    return statement.reader ? (statement.all(...bound) as Row[]) : (statement.run(...bound), []);
  };
  // One writer at a time, as the app's SQLite writer: each transaction waits for the one before it, so no
  // other request's statement lands inside it.
  let last: Promise<unknown> = Promise.resolve();
  return {
    query,
    transaction: <T>(work: (query: Query) => Promise<T>) => {
      const run = last.then(async () => {
        db.exec("BEGIN IMMEDIATE");
        try {
          const result = await work(query);
          db.exec("COMMIT");
          return result;
        } catch (error) {
          db.exec("ROLLBACK");
          throw error;
        }
      });
      last = run.catch(() => undefined);
      return run;
    },
  };
}

function postgresStore(connectionString: string): Store {
  const pool = new pg.Pool({ connectionString, max: 10, types: pgTypes });
  const on =
    (client: pg.Pool | pg.PoolClient): Query =>
    async (text, params) =>
      (await client.query(numbered(text), params)).rows as Row[];
  return { query: on(pool), transaction: (work) => inTransaction(pool, (client) => work(on(client))) };
}

const store = url.startsWith("file:") ? sqliteStore(url.slice("file:".length)) : postgresStore(url);
const key = Buffer.from(secret, "utf8");

async function answer(request: IncomingMessage): Promise<[number, unknown]> {
  if (request.url === "/healthz") return [200, { ok: true }];
  const body = await readBody(request);
  const given = Buffer.from(String(request.headers["x-shopify-hmac-sha256"] ?? ""), "base64");
  const expected = createHmac("sha256", key).update(body).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return [401, null];
  const topic = String(request.headers["x-shopify-topic"]);
  const domain = String(request.headers["x-shopify-shop-domain"]);
  const webhookId = String(request.headers["x-shopify-webhook-id"]);
  const order = JSON.parse(body) as Row;
  const digest = createHash("sha256").update(body).digest("hex");
  const [shop] = await store.query(SHOP, [domain]);
  if (!shop) return [200, null];
  const now = new Date();
  await store.transaction(async (query) => {
    await query(LEDGER, [webhookId, topic, domain, now]);
    await query(LEDGER, [`sha256:${digest}`, topic, domain, now]);
    await record(query, shop.id as string, order, now);
  });
  return [200, null];
}

serveJson(Number(portText), answer);
