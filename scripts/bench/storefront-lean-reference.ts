/**
 * The lean reference of the storefront benchmark (issue 27): what the hardware and the driver can do for a
 * guest's toggle and wishlist read with nothing else around them. A bare node:http server on tables of its
 * own holding only what the work needs (no shop lookup, no foreign keys, no other index than the unique keys
 * the work looks up by), and per request:
 *  - toggle, in one transaction: find the shopper's list (locked on PostgreSQL) or create it; delete the
 *    item, or insert it when it was not there; count the list's items; insert the event;
 *  - read: the list, then its items newest first, serialised.
 * The fuller reference (storefront-reference.ts) does the same work on the app's own schema with the
 * shop's authentication; both are reported.
 *
 * SQLite through better-sqlite3 (prepared statements, `BEGIN IMMEDIATE`), PostgreSQL through pg (a pool
 * of the app's default size, 10). Usage: storefront-lean-reference.ts <database url> <port>.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import Database from "better-sqlite3";
import pg from "pg";
import { inTransaction, numbered, readBody, serveJson } from "./bare-server";

const [url, portText] = process.argv.slice(2) as [string, string];

type Row = Record<string, unknown>;

const TABLES = [
  `CREATE TABLE IF NOT EXISTS lean_list (id TEXT PRIMARY KEY, shop_id TEXT NOT NULL, anonymous_id TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (shop_id, anonymous_id))`,
  `CREATE TABLE IF NOT EXISTS lean_item (id TEXT PRIMARY KEY, list_id TEXT NOT NULL, product_id TEXT NOT NULL, handle TEXT NOT NULL, added_at TEXT NOT NULL, UNIQUE (list_id, product_id))`,
  `CREATE TABLE IF NOT EXISTS lean_event (id TEXT PRIMARY KEY, shop_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL)`,
];
const FIND_LIST = `SELECT id, updated_at FROM lean_list WHERE shop_id = ? AND anonymous_id = ?`;
const INSERT_LIST = `INSERT INTO lean_list (id, shop_id, anonymous_id, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`;
const DELETE_ITEM = `DELETE FROM lean_item WHERE list_id = ? AND product_id = ? RETURNING id`;
const INSERT_ITEM = `INSERT INTO lean_item (id, list_id, product_id, handle, added_at) VALUES (?, ?, ?, ?, ?) RETURNING id`;
const COUNT = `SELECT COUNT(*) AS n FROM lean_item WHERE list_id = ?`;
const INSERT_EVENT = `INSERT INTO lean_event (id, shop_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)`;
const ITEMS = `SELECT id, product_id, handle, added_at FROM lean_item WHERE list_id = ? ORDER BY added_at DESC, id DESC`;

interface Toggled {
  added: boolean;
  count: number;
  itemId: string;
}

interface Store {
  toggle(shopId: string, anonymousId: string, productId: string, handle: string): Promise<Toggled>;
  read(shopId: string, anonymousId: string): Promise<{ list: Row | undefined; items: Row[] }>;
}

const event = (shopId: string, listId: string, result: Toggled) => [
  randomUUID(),
  shopId,
  result.added ? "item.added" : "item.removed",
  JSON.stringify({ listId, ...result }),
];

function sqliteStore(): Store {
  const db = new Database(url.slice("file:".length));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  for (const table of TABLES) db.exec(table);
  const [findList, insertList, deleteItem, insertItem, count, insertEvent, items] = [
    FIND_LIST,
    INSERT_LIST,
    DELETE_ITEM,
    INSERT_ITEM,
    COUNT,
    INSERT_EVENT,
    ITEMS,
  ].map((text) => db.prepare(text));
  const toggle = db.transaction((shopId: string, anonymousId: string, productId: string, handle: string) => {
    const now = new Date().toISOString();
    let list = findList!.get(shopId, anonymousId) as Row | undefined;
    if (!list) {
      insertList!.run(randomUUID(), shopId, anonymousId, now);
      list = findList!.get(shopId, anonymousId) as Row;
    }
    const listId = list.id as string;
    let row = deleteItem!.get(listId, productId) as Row | undefined;
    const added = !row;
    if (!row) row = insertItem!.get(randomUUID(), listId, productId, handle, now) as Row;
    const { n } = count!.get(listId) as { n: number };
    const result = { added, count: n, itemId: row.id as string };
    insertEvent!.run(...event(shopId, listId, result), now);
    return result;
  });
  return {
    toggle: async (...args) => toggle.immediate(...args),
    read: async (shopId, anonymousId) => {
      const list = findList!.get(shopId, anonymousId) as Row | undefined;
      return { list, items: list ? (items!.all(list.id) as Row[]) : [] };
    },
  };
}

async function postgresStore(): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  for (const table of TABLES) await pool.query(table);
  const [findList, lockList, insertList, deleteItem, insertItem, count, insertEvent, items] = [
    FIND_LIST,
    `${FIND_LIST} FOR UPDATE`,
    INSERT_LIST,
    DELETE_ITEM,
    INSERT_ITEM,
    COUNT,
    INSERT_EVENT,
    ITEMS,
  ].map(numbered) as [string, string, string, string, string, string, string, string];
  return {
    toggle: async (shopId, anonymousId, productId, handle) => {
      return inTransaction(pool, async (client) => {
        const now = new Date().toISOString();
        let list = (await client.query(lockList, [shopId, anonymousId])).rows[0] as Row | undefined;
        if (!list) {
          await client.query(insertList, [randomUUID(), shopId, anonymousId, now]);
          list = (await client.query(lockList, [shopId, anonymousId])).rows[0] as Row;
        }
        const listId = list.id as string;
        let row = (await client.query(deleteItem, [listId, productId])).rows[0] as Row | undefined;
        const added = !row;
        if (!row) row = (await client.query(insertItem, [randomUUID(), listId, productId, handle, now])).rows[0] as Row;
        const n = Number((await client.query(count, [listId])).rows[0].n);
        const result = { added, count: n, itemId: row.id as string };
        await client.query(insertEvent, [...event(shopId, listId, result), now]);
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

async function answer(request: IncomingMessage): Promise<[number, unknown]> {
  const { pathname, searchParams } = new URL(request.url ?? "/", "http://localhost");
  if (pathname === "/healthz") return [200, { status: "ok" }];
  // The shop as the caller names it: no lookup (the fuller reference authenticates it).
  const shopId = String(request.headers["x-service-shop"] ?? "");
  if (request.method === "POST" && pathname === "/toggle") {
    const body = JSON.parse(await readBody(request)) as { anonymousId: string; productId: string; handle: string };
    return [200, await store.toggle(shopId, body.anonymousId, body.productId, body.handle)];
  }
  if (request.method === "GET" && pathname === "/wishlist") {
    const { list, items } = await store.read(shopId, searchParams.get("aid") ?? "");
    return [
      200,
      {
        id: list?.id ?? null,
        count: items.length,
        items: items.map((row) => ({
          id: row.id,
          productId: row.product_id,
          handle: row.handle,
          addedAt: row.added_at,
        })),
        updatedAt: list?.updated_at ?? null,
      },
    ];
  }
  return [404, null];
}

serveJson(Number(portText), answer);
