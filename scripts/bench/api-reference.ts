/**
 * The reference of the API benchmark: a bare node:http server doing per request the SQL the app does for
 * `GET /v1/shop`, `GET /v1/lists` and `GET /v1/lists/{id}` with a private key, on the same database, and
 * serialising the same JSON (docs/openapi.json: ShopOverview, ListSummaryPage, List), with no framework,
 * query builder, validation or rate limiter. SQLite through better-sqlite3 (prepared statements), PostgreSQL
 * through pg (a pool of the app's default size, 10).
 *
 * Per request: the key lookup by the SHA-256 of the bearer secret, joined with its shop (refused when
 * unknown, revoked or the shop uninstalled), `lastUsedAt` written at most once a minute per key as the app
 * does; then
 * - `/v1/shop`: the shop row and its usage (lists not retired, items), counted on the shop-scoped indexes;
 * - `/v1/lists`: a keyset page of 50 lists (51 read) and their item counts in one grouped count, the next
 *   cursor signed with an HMAC;
 * - `/v1/lists/{id}`: the list (of this shop, not retired) and its items, newest first.
 *
 * Usage: api-reference.ts <database url> <port>
 */
import { createHash, createHmac } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import Database from "better-sqlite3";
import pg from "pg";
import { pgTypes } from "./pg-types";
import { numbered } from "./bare-server";

const [url, portText] = process.argv.slice(2) as [string, string];
const PAGE = 50;

type Row = Record<string, unknown>;

interface Store {
  keyByHash(hash: string): Promise<Row | undefined>;
  touchKey(keyId: string, at: Date): Promise<void>;
  shop(shopId: string): Promise<Row | undefined>;
  usage(shopId: string): Promise<{ lists: number; items: number }>;
  listPage(shopId: string, after: string | null, take: number): Promise<Row[]>;
  itemCounts(listIds: string[]): Promise<Row[]>;
  list(shopId: string, listId: string): Promise<Row | undefined>;
  items(listId: string): Promise<Row[]>;
}

const KEY_BY_HASH =
  `SELECT k."id", k."revokedAt", s."id" AS "shopId", s."domain", s."uninstalledAt" ` +
  `FROM "ApiKey" k JOIN "Shop" s ON s."id" = k."shopId" WHERE k."hash" = ?`;
const TOUCH_KEY = `UPDATE "ApiKey" SET "lastUsedAt" = ? WHERE "id" = ?`;
const SHOP = `SELECT * FROM "Shop" WHERE "id" = ?`;
const COUNT_LISTS = `SELECT COUNT(*) AS "n" FROM "List" WHERE "shopId" = ? AND "retiredAt" IS NULL`;
const COUNT_ITEMS = `SELECT COUNT(*) AS "n" FROM "Item" WHERE "shopId" = ?`;
const LIST_PAGE = `SELECT * FROM "List" WHERE "shopId" = ? AND "retiredAt" IS NULL ORDER BY "id" LIMIT ?`;
const LIST_PAGE_AFTER = `SELECT * FROM "List" WHERE "shopId" = ? AND "retiredAt" IS NULL AND "id" > ? ORDER BY "id" LIMIT ?`;
const ITEM_COUNTS = (n: number) =>
  `SELECT "listId", COUNT(*) AS "n" FROM "Item" WHERE "listId" IN (${Array(n).fill("?").join(", ")}) GROUP BY "listId"`;
const LIST = `SELECT * FROM "List" WHERE "id" = ? AND "shopId" = ? AND "retiredAt" IS NULL`;
const ITEMS = `SELECT * FROM "Item" WHERE "listId" = ? ORDER BY "addedAt" DESC, "id" DESC`;

/** SQLite timestamps are ISO-8601 text with an offset; PostgreSQL's come back as Dates. */
const timestamp = (value: unknown) =>
  value === null || value === undefined ? null : new Date(value as string | Date).toISOString();
const bool = (value: unknown) => value === true || value === 1;

function sqliteStore(): Store {
  const db = new Database(url.slice("file:".length), { readonly: false });
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  const statements = new Map<string, Database.Statement>();
  const prepared = (text: string) => {
    let statement = statements.get(text);
    if (!statement) statements.set(text, (statement = db.prepare(text)));
    return statement;
  };
  const sqliteParam = (value: unknown) => (value instanceof Date ? value.toISOString().replace("Z", "+00:00") : value);
  return {
    keyByHash: async (hash) => prepared(KEY_BY_HASH).get(hash) as Row | undefined,
    touchKey: async (keyId, at) => void prepared(TOUCH_KEY).run(sqliteParam(at), keyId),
    shop: async (shopId) => prepared(SHOP).get(shopId) as Row | undefined,
    usage: async (shopId) => ({
      lists: Number((prepared(COUNT_LISTS).get(shopId) as Row).n),
      items: Number((prepared(COUNT_ITEMS).get(shopId) as Row).n),
    }),
    listPage: async (shopId, after, take) =>
      (after ? prepared(LIST_PAGE_AFTER).all(shopId, after, take) : prepared(LIST_PAGE).all(shopId, take)) as Row[],
    itemCounts: async (listIds) => prepared(ITEM_COUNTS(listIds.length)).all(...listIds) as Row[],
    list: async (shopId, listId) => prepared(LIST).get(listId, shopId) as Row | undefined,
    items: async (listId) => prepared(ITEMS).all(listId) as Row[],
  };
}

function postgresStore(): Store {
  const pool = new pg.Pool({ connectionString: url, max: 10, types: pgTypes });
  const query = async (text: string, params: unknown[]) => (await pool.query(numbered(text), params)).rows as Row[];
  return {
    keyByHash: async (hash) => (await query(KEY_BY_HASH, [hash]))[0],
    touchKey: async (keyId, at) => void (await query(TOUCH_KEY, [at, keyId])),
    shop: async (shopId) => (await query(SHOP, [shopId]))[0],
    usage: async (shopId) => {
      const [lists, items] = await Promise.all([query(COUNT_LISTS, [shopId]), query(COUNT_ITEMS, [shopId])]);
      return { lists: Number(lists[0]!.n), items: Number(items[0]!.n) };
    },
    listPage: (shopId, after, take) =>
      after ? query(LIST_PAGE_AFTER, [shopId, after, take]) : query(LIST_PAGE, [shopId, take]),
    itemCounts: (listIds) => query(ITEM_COUNTS(listIds.length), listIds),
    list: async (shopId, listId) => (await query(LIST, [listId, shopId]))[0],
    items: (listId) => query(ITEMS, [listId]),
  };
}

const store = url.startsWith("file:") ? sqliteStore() : postgresStore();
const cursorKey = createHash("sha256").update("bench cursor key").digest();
const touched = new Map<string, number>();

function listSummary(list: Row, count: number) {
  return {
    id: list.id,
    owner: list.customerId
      ? { type: "customer", customerId: list.customerId }
      : { type: "anonymous", customerId: null },
    name: list.name,
    default: bool(list.isDefault),
    count,
    share: { enabled: bool(list.shareEnabled), token: list.shareToken ?? null },
    updatedAt: timestamp(list.updatedAt),
  };
}

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

function send(response: ServerResponse, status: number, body: unknown) {
  const json = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
  response.end(json);
}

async function answer(method: string, path: string, authorization: string | undefined): Promise<[number, unknown]> {
  if (path === "/healthz") return [200, { status: "ok" }];
  if (method !== "GET") return [404, null];
  const secret = /^Bearer\s+(svc_sk_\S+)\s*$/i.exec(authorization ?? "")?.[1];
  const key = secret ? await store.keyByHash(createHash("sha256").update(secret).digest("hex")) : undefined;
  if (!key || key.revokedAt || key.uninstalledAt) return [401, { title: "Unauthorized" }];
  const now = Date.now();
  if (now - (touched.get(key.id as string) ?? 0) >= 60_000) {
    touched.set(key.id as string, now);
    void store.touchKey(key.id as string, new Date(now));
  }
  const shopId = key.shopId as string;
  const { pathname, searchParams } = new URL(path, "http://localhost");
  if (pathname === "/v1/shop") {
    const [shop, usage] = await Promise.all([store.shop(shopId), store.usage(shopId)]);
    if (!shop) return [404, null];
    return [
      200,
      {
        domain: shop.domain,
        plan: shop.plan,
        planUpdatedAt: timestamp(shop.planUpdatedAt),
        installedAt: timestamp(shop.installedAt),
        settings: JSON.parse(shop.settings as string) as unknown,
        publicKey: shop.publicKey,
        usage,
      },
    ];
  }
  if (pathname === "/v1/lists") {
    const cursor = searchParams.get("cursor");
    const after = cursor
      ? (JSON.parse(Buffer.from(cursor.split(".")[0]!, "base64url").toString()) as { after: string }).after
      : null;
    const rows = await store.listPage(shopId, after, PAGE + 1);
    const page = rows.slice(0, PAGE);
    const counts = new Map(
      page.length
        ? (await store.itemCounts(page.map((list) => list.id as string))).map((row) => [row.listId, Number(row.n)])
        : [],
    );
    let nextCursor: string | null = null;
    if (rows.length > PAGE) {
      const payload = Buffer.from(JSON.stringify({ after: page.at(-1)!.id })).toString("base64url");
      const signature = createHmac("sha256", cursorKey).update(`lists:${shopId}:`).update("\0").update(payload);
      nextCursor = `${payload}.${signature.digest().subarray(0, 16).toString("base64url")}`;
    }
    return [200, { data: page.map((list) => listSummary(list, counts.get(list.id) ?? 0)), pageInfo: { nextCursor } }];
  }
  const listId = /^\/v1\/lists\/([^/]+)$/.exec(pathname)?.[1];
  if (listId) {
    const list = await store.list(shopId, decodeURIComponent(listId));
    if (!list) return [404, { title: "Not Found" }];
    const items = await store.items(list.id as string);
    return [200, { ...listSummary(list, items.length), items: items.map(item) }];
  }
  return [404, null];
}

createServer((request, response) => {
  answer(request.method ?? "GET", request.url ?? "/", request.headers.authorization).then(
    ([status, body]) => (body === null ? response.writeHead(status).end() : send(response, status, body)),
    (error: unknown) => response.writeHead(500).end(String(error)),
  );
}).listen(Number(portText), "127.0.0.1");
