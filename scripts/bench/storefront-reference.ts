/**
 * The reference of the storefront benchmark: a bare node:http server doing per request the SQL the app
 * does for a guest's toggle and wishlist read (docs/decisions/010-storefront-writes.md,
 * docs/decisions/017-data-layer.md), with no framework, query builder, validation, rate limiter or idempotency.
 * SQLite through better-sqlite3 (prepared statements, `BEGIN IMMEDIATE` as the app's transactions),
 * PostgreSQL through pg (a pool of the app's default size, 10).
 *
 * Per request, as the app: the shop looked up by the `X-Service-Shop` domain and its public key compared in
 * constant time (refused when unknown or uninstalled; its settings parsed). Toggle, in one transaction: the
 * shopper's default list (locked on PostgreSQL), created when missing (insert that a concurrent creator
 * makes do nothing, then read again); the item deleted by product, or inserted when it was not there; the
 * list touched with its item count returned by the same statement; the `item.added`/`item.removed` event
 * written to the outbox with the same payload. Read: the list, then its items newest first, serialised as
 * the API's wishlist.
 *
 * Usage: storefront-reference.ts <database url> <port> <shop id> <shop domain> <public key>; creates the shop
 * row when missing (the reference runs on a database of its own, migrated like the app's).
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import Database from "better-sqlite3";
import pg from "pg";
import { inTransaction, numbered, readBody, serveJson } from "./bare-server";
import { pgTypes } from "./pg-types";
import { typeidUnboxed } from "typeid-js";

const [url, portText, shopId, shopDomain, publicKey] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];

type Row = Record<string, unknown>;

interface Store {
  shop(domain: string): Promise<Row | undefined>;
  toggle(shopId: string, anonymousId: string, productId: string, handle: string): Promise<unknown>;
  read(shopId: string, anonymousId: string): Promise<{ list: Row | undefined; items: Row[] }>;
}

const SHOP = `SELECT "id", "domain", "publicKey", "settings", "uninstalledAt" FROM "Shop" WHERE "domain" = ?`;
const INSERT_SHOP =
  `INSERT INTO "Shop" ("id", "domain", "publicKey", "settings", "planUpdatedAt", "installedAt", "createdAt", "updatedAt") ` +
  `VALUES (?, ?, ?, '{}', ?, ?, ?, ?) ON CONFLICT DO NOTHING`;
const FIND_LIST =
  `SELECT * FROM "List" WHERE "shopId" = ? AND "anonymousId" = ? AND "customerId" IS NULL ` +
  `AND "isDefault" = TRUE AND "retiredAt" IS NULL`;
const INSERT_LIST =
  `INSERT INTO "List" ("id", "shopId", "anonymousId", "name", "isDefault", "shareEnabled", "createdAt", "updatedAt") ` +
  `VALUES (?, ?, ?, 'Wishlist', TRUE, FALSE, ?, ?) ON CONFLICT DO NOTHING`;
const DELETE_ITEM = `DELETE FROM "Item" WHERE "listId" = ? AND "productId" = ? AND "variantId" = ? RETURNING *`;
const INSERT_ITEM =
  `INSERT INTO "Item" ("id", "listId", "ownerKey", "shopId", "productId", "variantId", "handle", "titleSnapshot", "addedAt") ` +
  `VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING *`;
const TOUCH_AND_COUNT = `UPDATE "List" SET "updatedAt" = ? WHERE "id" = ? RETURNING (SELECT COUNT(*) FROM "Item" WHERE "listId" = ?) AS "n"`;
const INSERT_EVENT = `INSERT INTO "Event" ("id", "shopId", "type", "data", "createdAt") VALUES (?, ?, ?, ?, ?)`;
const ITEMS = `SELECT * FROM "Item" WHERE "listId" = ? ORDER BY "addedAt" DESC, "id" DESC`;

const timestamp = (value: unknown) =>
  value === null || value === undefined ? null : new Date(value as string | Date).toISOString();

function item(row: Row) {
  return {
    id: row.id,
    productId: row.productId,
    variantId: row.variantId === "" ? null : row.variantId,
    handle: row.handle,
    titleSnapshot: row.titleSnapshot,
    addedAt: timestamp(row.addedAt),
  };
}

/** The event as the app writes it, and the toggle's answer. */
function changed(shopId: string, anonymousId: string, listId: string, row: Row, added: boolean, count: number) {
  const event = {
    id: typeidUnboxed("evt"),
    shopId,
    type: added ? "item.added" : "item.removed",
    data: JSON.stringify({ listId, customerId: null, anonymousId, item: item(row), count }),
  };
  return { event, result: { added, count, itemId: row.id } };
}

function sqliteStore(): Store {
  const db = new Database(url.slice("file:".length));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  const stamp = (date: Date) => date.toISOString().replace("Z", "+00:00");
  const at = stamp(new Date());
  db.prepare(INSERT_SHOP).run(shopId, shopDomain, publicKey, at, at, at, at);
  const [shop, findList, insertList, deleteItem, insertItem, touchAndCount, insertEvent, items] = [
    SHOP,
    FIND_LIST,
    INSERT_LIST,
    DELETE_ITEM,
    INSERT_ITEM,
    TOUCH_AND_COUNT,
    INSERT_EVENT,
    ITEMS,
  ].map((text) => db.prepare(text));
  const toggle = db.transaction((shopId: string, anonymousId: string, productId: string, handle: string) => {
    const now = stamp(new Date());
    let list = findList!.get(shopId, anonymousId) as Row | undefined;
    if (!list) {
      insertList!.run(typeidUnboxed("lst"), shopId, anonymousId, now, now);
      list = findList!.get(shopId, anonymousId) as Row;
    }
    const listId = list.id as string;
    let row = deleteItem!.get(listId, productId, "") as Row | undefined;
    const added = !row;
    if (!row)
      row = insertItem!.get(
        typeidUnboxed("itm"),
        listId,
        `a:${anonymousId}`,
        shopId,
        productId,
        "",
        handle,
        "",
        now,
      ) as Row;
    const { n } = touchAndCount!.get(now, listId, listId) as { n: number };
    const { event, result } = changed(shopId, anonymousId, listId, row, added, n);
    insertEvent!.run(event.id, event.shopId, event.type, event.data, now);
    return result;
  });
  return {
    shop: async (domain) => shop!.get(domain) as Row | undefined,
    // As the app's transactions: the write lock taken at BEGIN.
    toggle: async (...args) => toggle.immediate(...args),
    read: async (shopId, anonymousId) => {
      const list = findList!.get(shopId, anonymousId) as Row | undefined;
      return { list, items: list ? (items!.all(list.id) as Row[]) : [] };
    },
  };
}

async function postgresStore(): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max: 10, types: pgTypes });
  const [shop, findList, lockList, insertList, deleteItem, insertItem, touchAndCount, insertEvent, items] = [
    SHOP,
    FIND_LIST,
    `${FIND_LIST} FOR UPDATE`,
    INSERT_LIST,
    DELETE_ITEM,
    INSERT_ITEM,
    TOUCH_AND_COUNT,
    INSERT_EVENT,
    ITEMS,
  ].map(numbered) as [string, string, string, string, string, string, string, string, string];
  const at = new Date();
  await pool.query(numbered(INSERT_SHOP), [shopId, shopDomain, publicKey, at, at, at, at]);
  return {
    shop: async (domain) => (await pool.query(shop, [domain])).rows[0] as Row | undefined,
    toggle: async (shopId, anonymousId, productId, handle) => {
      return inTransaction(pool, async (client) => {
        const now = new Date();
        let list = (await client.query(lockList, [shopId, anonymousId])).rows[0] as Row | undefined;
        if (!list) {
          // A parallel first save for the same shopper makes this insert do nothing; the re-read finds its list.
          await client.query(insertList, [typeidUnboxed("lst"), shopId, anonymousId, now, now]);
          list = (await client.query(lockList, [shopId, anonymousId])).rows[0] as Row;
        }
        const listId = list.id as string;
        let row = (await client.query(deleteItem, [listId, productId, ""])).rows[0] as Row | undefined;
        const added = !row;
        if (!row) {
          const values = [typeidUnboxed("itm"), listId, `a:${anonymousId}`, shopId, productId, "", handle, "", now];
          row = (await client.query(insertItem, values)).rows[0] as Row;
        }
        const count = Number((await client.query(touchAndCount, [now, listId, listId])).rows[0].n);
        const { event, result } = changed(shopId, anonymousId, listId, row, added, count);
        await client.query(insertEvent, [event.id, event.shopId, event.type, event.data, now]);
        return result;
      });
    },
    read: async (shopId, anonymousId) => {
      const list = (await pool.query(findList, [shopId, anonymousId])).rows[0] as Row | undefined;
      return { list, items: list ? ((await pool.query(items, [list.id])).rows as Row[]) : [] };
    },
  };
}

const store = url.startsWith("file:") ? sqliteStore() : await postgresStore();

const sameSecret = (a: string, b: string) => {
  const [left, right] = [Buffer.from(a), Buffer.from(b)];
  return left.length === right.length && timingSafeEqual(left, right);
};

async function answer(request: IncomingMessage): Promise<[number, unknown]> {
  const { pathname, searchParams } = new URL(request.url ?? "/", "http://localhost");
  if (pathname === "/healthz") return [200, { status: "ok" }];
  const shop = await store.shop(String(request.headers["x-service-shop"] ?? ""));
  if (!shop || !sameSecret(shop.publicKey as string, String(request.headers["x-service-public-key"] ?? ""))) {
    return [401, { title: "Unauthorized" }];
  }
  if (shop.uninstalledAt) return [403, { title: "Shop uninstalled" }];
  JSON.parse(shop.settings as string);
  if (request.method === "POST" && pathname === "/toggle") {
    const body = JSON.parse(await readBody(request)) as { anonymousId: string; productId: string; handle: string };
    return [200, await store.toggle(shop.id as string, body.anonymousId, body.productId, body.handle)];
  }
  if (request.method === "GET" && pathname === "/wishlist") {
    const anonymousId = searchParams.get("aid") ?? "";
    const { list, items } = await store.read(shop.id as string, anonymousId);
    return [
      200,
      {
        id: list?.id ?? null,
        owner: { type: "anonymous", customerId: null },
        name: list?.name ?? "Wishlist",
        default: true,
        count: items.length,
        items: items.map(item),
        share: {
          enabled: list ? list.shareEnabled === true || list.shareEnabled === 1 : false,
          token: list?.shareToken ?? null,
        },
        updatedAt: timestamp(list?.updatedAt),
      },
    ];
  }
  return [404, null];
}

serveJson(Number(portText), answer);
