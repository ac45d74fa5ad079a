/**
 * The storefront baseline (issue 4): a bare node:http server doing the same toggle and wishlist read in
 * one transaction on the same database, with no framework, ORM, auth, rate limit, events or rollups.
 * SQLite through better-sqlite3 (prepared statements), PostgreSQL through pg.
 * Usage: storefront-reference.ts <database url> <port> <shop id>; creates the shop row when missing (the
 * reference runs on a database of its own, migrated like ours, so neither run inherits the other's rows).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import Database from "better-sqlite3";
import pg from "pg";

const [url, portText, shopId] = process.argv.slice(2) as [string, string, string];

interface Store {
  toggle(anonymousId: string, productId: string): Promise<{ added: boolean; count: number; itemId: string }>;
  read(anonymousId: string): Promise<unknown>;
}

function sqliteStore(): Store {
  const db = new Database(url.slice("file:".length));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.prepare(
    `INSERT INTO "Shop" (id, domain, "publicKey", "updatedAt") VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  ).run(shopId, `${shopId}.example`, `pk_${shopId}`, new Date().toISOString());
  const findList = db.prepare(`SELECT id FROM "List" WHERE "shopId" = ? AND "anonymousId" = ? AND "isDefault" = 1`);
  const insertList = db.prepare(
    `INSERT INTO "List" (id, "shopId", "anonymousId", "isDefault", name, "shareEnabled", "createdAt", "updatedAt") VALUES (?, ?, ?, 1, 'Wishlist', 0, ?, ?)`,
  );
  const findItem = db.prepare(`SELECT id FROM "Item" WHERE "listId" = ? AND "productId" = ? AND "variantId" = ''`);
  const insertItem = db.prepare(
    `INSERT INTO "Item" (id, "listId", "shopId", "productId", "variantId", handle, "titleSnapshot", "addedAt") VALUES (?, ?, ?, ?, '', ?, '', ?)`,
  );
  const deleteItem = db.prepare(`DELETE FROM "Item" WHERE id = ?`);
  const countItems = db.prepare(`SELECT COUNT(*) AS n FROM "Item" WHERE "listId" = ?`);
  const listItems = db.prepare(`SELECT * FROM "Item" WHERE "listId" = ? ORDER BY "addedAt" DESC`);
  const toggle = db.transaction((anonymousId: string, productId: string) => {
    const now = new Date().toISOString();
    let list = findList.get(shopId, anonymousId) as { id: string } | undefined;
    if (!list) {
      list = { id: `lst_${randomUUID().replaceAll("-", "")}` };
      insertList.run(list.id, shopId, anonymousId, now, now);
    }
    const item = findItem.get(list.id, productId) as { id: string } | undefined;
    let itemId: string;
    if (item) {
      deleteItem.run(item.id);
      itemId = item.id;
    } else {
      itemId = `itm_${randomUUID().replaceAll("-", "")}`;
      insertItem.run(itemId, list.id, shopId, productId, `p-${productId}`, now);
    }
    const { n } = countItems.get(list.id) as { n: number };
    return { added: !item, count: n, itemId };
  });
  return {
    toggle: async (anonymousId, productId) => toggle(anonymousId, productId),
    read: async (anonymousId) => {
      const list = findList.get(shopId, anonymousId) as { id: string } | undefined;
      const items = list ? listItems.all(list.id) : [];
      return { id: list?.id ?? null, count: items.length, items };
    },
  };
}

async function postgresStore(): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  await pool.query(
    `INSERT INTO "Shop" (id, domain, "publicKey", "updatedAt") VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
    [shopId, `${shopId}.example`, `pk_${shopId}`, new Date()],
  );
  return {
    toggle: async (anonymousId, productId) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const now = new Date();
        const findList = () =>
          client.query(`SELECT id FROM "List" WHERE "shopId" = $1 AND "anonymousId" = $2 AND "isDefault" FOR UPDATE`, [
            shopId,
            anonymousId,
          ]);
        let list = (await findList()).rows[0];
        if (!list) {
          // A parallel first save for the same shopper makes this insert do nothing; the re-read finds its list.
          await client.query(
            `INSERT INTO "List" (id, "shopId", "anonymousId", "isDefault", name, "shareEnabled", "createdAt", "updatedAt") VALUES ($1, $2, $3, true, 'Wishlist', false, $4, $4) ON CONFLICT DO NOTHING`,
            [`lst_${randomUUID().replaceAll("-", "")}`, shopId, anonymousId, now],
          );
          list = (await findList()).rows[0];
        }
        const item = (
          await client.query(`SELECT id FROM "Item" WHERE "listId" = $1 AND "productId" = $2 AND "variantId" = ''`, [
            list.id,
            productId,
          ])
        ).rows[0];
        let itemId: string;
        if (item) {
          await client.query(`DELETE FROM "Item" WHERE id = $1`, [item.id]);
          itemId = item.id;
        } else {
          itemId = `itm_${randomUUID().replaceAll("-", "")}`;
          await client.query(
            `INSERT INTO "Item" (id, "listId", "shopId", "productId", "variantId", handle, "titleSnapshot", "addedAt") VALUES ($1, $2, $3, $4, '', $5, '', $6)`,
            [itemId, list.id, shopId, productId, `p-${productId}`, now],
          );
        }
        const count = Number(
          (await client.query(`SELECT COUNT(*) AS n FROM "Item" WHERE "listId" = $1`, [list.id])).rows[0].n,
        );
        await client.query("COMMIT");
        return { added: !item, count, itemId };
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      } finally {
        client.release();
      }
    },
    read: async (anonymousId) => {
      const list = (
        await pool.query(`SELECT id FROM "List" WHERE "shopId" = $1 AND "anonymousId" = $2 AND "isDefault"`, [
          shopId,
          anonymousId,
        ])
      ).rows[0];
      const items = list
        ? (await pool.query(`SELECT * FROM "Item" WHERE "listId" = $1 ORDER BY "addedAt" DESC`, [list.id])).rows
        : [];
      return { id: list?.id ?? null, count: items.length, items };
    },
  };
}

const store = url.startsWith("file:") ? sqliteStore() : await postgresStore();

async function readBody(request: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of request) body += chunk;
  return body;
}

createServer(async (request, response) => {
  try {
    const { pathname, searchParams } = new URL(request.url ?? "/", "http://localhost");
    let result: unknown;
    if (request.method === "POST" && pathname === "/toggle") {
      const body = JSON.parse(await readBody(request)) as { anonymousId: string; productId: string };
      result = await store.toggle(body.anonymousId, body.productId);
    } else if (request.method === "GET" && pathname === "/wishlist") {
      result = await store.read(searchParams.get("aid") ?? "");
    } else if (pathname === "/healthz") {
      result = { status: "ok" };
    } else {
      response.writeHead(404).end();
      return;
    }
    const json = JSON.stringify(result);
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
    response.end(json);
  } catch (error) {
    response.writeHead(500).end(String(error));
  }
}).listen(Number(portText), "127.0.0.1");
