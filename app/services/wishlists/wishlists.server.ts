import { sql } from "~/db.server";
import { getEnv } from "~/env.server";
import type { Item, List } from "~/generated/prisma-sqlite/client";
import { newId } from "~/lib/ids";
import { AppError } from "~/lib/problems";
import type { SqlRunner, SqlValue } from "~/sql.server";
import { insertEvent } from "~/services/events/outbox.server";
import { ownerEventFields, type Owner } from "./owner";
import { itemFromRow, listFromRow } from "./rows";
import { serializeItem } from "./serialize";

/**
 * Storefront wishlist operations on an owner's default list, in direct SQL (decision 012). Every change
 * runs in one transaction that (1) finds or creates the list, (2) locks it, (3) changes the item,
 * (4) counts, (5) writes the event; so parallel requests for one owner apply one after another, `count`
 * is the true count at commit, and each change has exactly one event (decision 010). SQLite transactions
 * take the write lock at BEGIN; PostgreSQL locks the list row. The analytics rollups are folded in from
 * the events by the outbox relay (services/events/relay.server.ts), not here: a shop's daily row would
 * otherwise be a lock every concurrent change of the shop waits for.
 *
 * A list holds at most MAX_ITEMS_PER_LIST items (500 by default, .env.example). A save checks the count
 * its own transaction computes after the insert, under the list's lock, and undoes itself (409
 * `list-full`) when that passes the cap: concurrent saves cannot pass it together, and the save that fits
 * costs no extra query. Removing always works, even from a list above the cap (the cap was lowered).
 */
export interface ItemRef {
  productId: string;
  /** null or absent: the product itself, without a variant. */
  variantId?: string | null;
}

export interface NewItem extends ItemRef {
  handle: string;
  title?: string;
}

type Row = Record<string, unknown>;

/** `at` (default now) dates the change: the item, its event and the rollups; tests set it. */
interface ChangeInput {
  shopId: string;
  owner: Owner;
  at?: Date;
}

export function transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
  return sql().transaction(work);
}

function ownerColumns(owner: Owner) {
  return owner.kind === "customer"
    ? { column: `"customerId"`, other: `"anonymousId"`, value: owner.customerId }
    : { column: `"anonymousId"`, other: `"customerId"`, value: owner.anonymousId };
}

const selectDefaultList = (owner: Owner, lock: boolean) => {
  const { column, other } = ownerColumns(owner);
  return (
    `SELECT * FROM "List" WHERE "shopId" = ? AND ${column} = ? AND ${other} IS NULL ` +
    `AND "isDefault" = TRUE AND "retiredAt" IS NULL${lock ? " FOR UPDATE" : ""}`
  );
};

/**
 * New default lists for these owners (`column`: the quoted owner column). An owner that already has one,
 * or gets one from a concurrent transaction, is left alone by the unique (shop, owner, isDefault) index.
 */
async function insertDefaultLists(tx: SqlRunner, shopId: string, column: string, owners: string[], at: Date) {
  await tx.run(
    `INSERT INTO "List" ("id", "shopId", ${column}, "name", "isDefault", "shareEnabled", "createdAt", "updatedAt") ` +
      `VALUES ${owners.map(() => "(?, ?, ?, 'Wishlist', TRUE, FALSE, ?, ?)").join(", ")} ON CONFLICT DO NOTHING`,
    owners.flatMap((owner) => [newId("list"), shopId, owner, at, at]),
  );
}

/**
 * The owner's default list, locked for this transaction (PostgreSQL: row lock; SQLite: the transaction
 * already holds the write lock). Created when `create` is set and there is none; a concurrent creator
 * makes the insert do nothing (unique (shop, owner, isDefault) index), and the re-read finds its list.
 */
export async function lockDefaultList(
  tx: SqlRunner,
  shopId: string,
  owner: Owner,
  create: boolean,
  at = new Date(),
): Promise<List | null> {
  const select = selectDefaultList(owner, tx.engine === "postgres");
  const { column, value } = ownerColumns(owner);
  const found = await tx.get<Row>(select, [shopId, value]);
  if (found) return listFromRow(found);
  if (!create) return null;
  await insertDefaultLists(tx, shopId, column, [value], at);
  const created = await tx.get<Row>(select, [shopId, value]);
  if (!created) throw new Error("The default list was neither found nor created.");
  return listFromRow(created);
}

/** Items of a list, newest first. */
export async function listItems(runner: SqlRunner, listId: string): Promise<Item[]> {
  const rows = await runner.all<Row>(`SELECT * FROM "Item" WHERE "listId" = ? ORDER BY "addedAt" DESC, "id" DESC`, [
    listId,
  ]);
  return rows.map(itemFromRow);
}

/** The most items one list may hold (MAX_ITEMS_PER_LIST). */
export function maxItemsPerList(): number {
  return getEnv().MAX_ITEMS_PER_LIST;
}

function listFull(max: number) {
  return new AppError("list-full", {
    detail: `This wishlist already holds ${max} items, the most a list may hold. Remove an item to save another.`,
    extensions: { maxItems: max },
  });
}

/** Touches the list and returns the true item count, in one statement. */
async function touchAndCount(tx: SqlRunner, listId: string, at: Date): Promise<number> {
  const row = await tx.get<{ n: number | string }>(
    `UPDATE "List" SET "updatedAt" = ? WHERE "id" = ? RETURNING (SELECT COUNT(*) FROM "Item" WHERE "listId" = ?) AS "n"`,
    [at, listId, listId],
  );
  return Number(row?.n ?? 0);
}

async function finishChange(
  tx: SqlRunner,
  {
    shopId,
    owner,
    list,
    item,
    type,
    at,
  }: { shopId: string; owner: Owner; list: List; item: Item; type: "item.added" | "item.removed"; at: Date },
) {
  const count = await touchAndCount(tx, list.id, at);
  // The item was just inserted: past the cap, throwing rolls the insert back (the list is locked, so no
  // concurrent save can have counted the same room).
  const max = maxItemsPerList();
  if (type === "item.added" && count > max) throw listFull(max);
  await insertEvent(tx, {
    shopId,
    type,
    createdAt: at,
    data: { listId: list.id, ...ownerEventFields(owner), item: serializeItem(item), count },
  });
  return count;
}

const DELETE_BY_REF = `DELETE FROM "Item" WHERE "listId" = ? AND "productId" = ? AND "variantId" = ? RETURNING *`;

interface ItemInsert {
  listId: string;
  item: NewItem;
  addedAt: Date;
}

const insertSql = new Map<string, string>();

/**
 * Inserts items, skipping any a list already holds (same product and variant): an existing item keeps
 * its addedAt. The one way items are written, by storefront saves (one row) and imports (many).
 */
async function insertItems(tx: SqlRunner, shopId: string, rows: ItemInsert[], returning: string): Promise<Row[]> {
  const cacheKey = `${rows.length}:${returning}`;
  let text = insertSql.get(cacheKey);
  if (text === undefined) {
    text =
      `INSERT INTO "Item" ("id", "listId", "shopId", "productId", "variantId", "handle", "titleSnapshot", "addedAt") ` +
      `VALUES ${rows.map(() => "(?, ?, ?, ?, ?, ?, ?, ?)").join(", ")} ON CONFLICT DO NOTHING RETURNING ${returning}`;
    insertSql.set(cacheKey, text);
  }
  const params: SqlValue[] = [];
  for (const { listId, item, addedAt } of rows) {
    params.push(
      newId("item"),
      listId,
      shopId,
      item.productId,
      item.variantId ?? "",
      item.handle,
      item.title ?? "",
      addedAt,
    );
  }
  return tx.all<Row>(text, params);
}

async function insertItem(tx: SqlRunner, shopId: string, listId: string, item: NewItem, addedAt: Date) {
  const [row] = await insertItems(tx, shopId, [{ listId, item, addedAt }], "*");
  return row ? itemFromRow(row) : null;
}

/** The owner's default list with its items (newest first), or null: reading never creates a list. */
export async function readWishlist({ shopId, owner }: { shopId: string; owner: Owner }) {
  const db = sql();
  const row = await db.get<Row>(selectDefaultList(owner, false), [shopId, ownerColumns(owner).value]);
  if (!row) return null;
  const items = await listItems(db, row.id as string);
  return { ...listFromRow(row), items, count: items.length };
}

/** Saves the item if it is not in the list, removes it if it is. */
export async function toggleItem({ shopId, owner, item, at = new Date() }: ChangeInput & { item: NewItem }) {
  return transaction(async (tx) => {
    const list = (await lockDefaultList(tx, shopId, owner, true, at))!;
    const removed = await tx.get<Row>(DELETE_BY_REF, [list.id, item.productId, item.variantId ?? ""]);
    if (removed) {
      const existing = itemFromRow(removed);
      const count = await finishChange(tx, { shopId, owner, list, item: existing, type: "item.removed", at });
      return { added: false, count, itemId: existing.id };
    }
    // The list is locked, so nobody else can have saved this product since the delete found nothing.
    const created = (await insertItem(tx, shopId, list.id, item, at))!;
    const count = await finishChange(tx, { shopId, owner, list, item: created, type: "item.added", at });
    return { added: true, count, itemId: created.id };
  });
}

/** Saves the item; an item already saved is returned as it is (its addedAt kept, no event). */
export async function addItem({ shopId, owner, item, at = new Date() }: ChangeInput & { item: NewItem }) {
  return transaction(async (tx) => {
    const list = (await lockDefaultList(tx, shopId, owner, true, at))!;
    const created = await insertItem(tx, shopId, list.id, item, at);
    if (!created) {
      const existing = await tx.get<Row>(
        `SELECT * FROM "Item" WHERE "listId" = ? AND "productId" = ? AND "variantId" = ?`,
        [list.id, item.productId, item.variantId ?? ""],
      );
      return { item: itemFromRow(existing!), created: false };
    }
    await finishChange(tx, { shopId, owner, list, item: created, type: "item.added", at });
    return { item: created, created: true };
  });
}

/** Removes one item, by id or by product+variant. Removing what is not there changes nothing. */
export async function removeItem({
  shopId,
  owner,
  target,
  at = new Date(),
}: ChangeInput & { target: { itemId: string } | ItemRef }) {
  return transaction(async (tx) => {
    const list = await lockDefaultList(tx, shopId, owner, false, at);
    if (!list) return { removed: false };
    const removed =
      "itemId" in target
        ? await tx.get<Row>(`DELETE FROM "Item" WHERE "id" = ? AND "listId" = ? RETURNING *`, [target.itemId, list.id])
        : await tx.get<Row>(DELETE_BY_REF, [list.id, target.productId, target.variantId ?? ""]);
    if (!removed) return { removed: false };
    await finishChange(tx, { shopId, owner, list, item: itemFromRow(removed), type: "item.removed", at });
    return { removed: true };
  });
}

/** One imported saved item: a customer's, never a guest's (import rule 3). */
export interface ImportRow extends NewItem {
  customerId: string;
  addedAt: Date;
}

const IMPORT_CHUNK = 250;

/**
 * Saves imported items into their customers' default lists (created when missing), in one transaction:
 * items already saved are left as they are (rules 4-5). The lists are locked in id order (PostgreSQL),
 * as a storefront change locks its one list, so counts in concurrent events stay true. Imports write
 * no events (decision 014).
 *
 * No list passes MAX_ITEMS_PER_LIST: rows for a list that is full are not saved and come back in `full`
 * (the caller reports them as skipped); rows whose item is already saved are never counted as full.
 * `uncommitted` (a dry run's earlier batches, rolled back) counts per customer the items that would already
 * be in the list, so they take up its room as they would in a real run.
 * Returns the `customerId|productId|variantId` keys actually inserted, and those rows.
 */
export async function importItems<R extends ImportRow>(
  tx: SqlRunner,
  {
    shopId,
    rows,
    at = new Date(),
    uncommitted,
  }: { shopId: string; rows: R[]; at?: Date; uncommitted?: ReadonlyMap<string, number> },
): Promise<{ inserted: string[]; full: R[] }> {
  const customers = [...new Set(rows.map((row) => row.customerId))];
  const lists = new Map<string, string>();
  const lock = tx.engine === "postgres" ? " FOR UPDATE" : "";
  const select = (ids: string[]) =>
    tx.all<{ id: string; customerId: string }>(
      `SELECT "id", "customerId" FROM "List" WHERE "shopId" = ? AND "customerId" IN (${ids.map(() => "?").join(", ")}) ` +
        `AND "anonymousId" IS NULL AND "isDefault" = TRUE AND "retiredAt" IS NULL ORDER BY "id"${lock}`,
      [shopId, ...ids],
    );
  for (const list of await select(customers)) lists.set(list.customerId, list.id);
  const missing = customers.filter((customerId) => !lists.has(customerId));
  if (missing.length > 0) {
    await insertDefaultLists(tx, shopId, `"customerId"`, missing, at);
    for (const list of await select(missing)) lists.set(list.customerId, list.id);
  }

  const customerOf = new Map([...lists].map(([customerId, listId]) => [listId, customerId]));
  const listIds = [...lists.values()];
  const counts = new Map(listIds.map((listId) => [listId, 0]));
  const counted = await tx.all<{ listId: string; n: number | string }>(
    `SELECT "listId", COUNT(*) AS "n" FROM "Item" WHERE "listId" IN (${listIds.map(() => "?").join(", ")}) GROUP BY "listId"`,
    listIds,
  );
  for (const { listId, n } of counted) counts.set(listId, Number(n));
  for (const [customerId, listId] of lists)
    counts.set(listId, counts.get(listId)! + (uncommitted?.get(customerId) ?? 0));
  const max = maxItemsPerList();

  const inserted: string[] = [];
  const full: R[] = [];
  const touched = new Set<string>();
  const keyOf = (listId: string, productId: string, variantId: string) => `${listId}|${productId}|${variantId}`;
  for (let index = 0; index < rows.length; index += IMPORT_CHUNK) {
    let pending = rows.slice(index, index + IMPORT_CHUNK);
    let atCap: R[] = [];
    // Each round inserts, per list, only as many rows as it has room for. Rows that found their item already
    // saved leave room unused, so the rows held back get another round; the rest are for full lists.
    while (pending.length > 0) {
      const room = new Map<string, number>();
      const take: R[] = [];
      const held: R[] = [];
      for (const row of pending) {
        const listId = lists.get(row.customerId)!;
        const left = room.get(listId) ?? max - counts.get(listId)!;
        if (left > 0) {
          take.push(row);
          room.set(listId, left - 1);
        } else {
          held.push(row);
          room.set(listId, left);
        }
      }
      if (take.length === 0) {
        atCap = held;
        break;
      }
      const created = await insertItems(
        tx,
        shopId,
        take.map((row) => ({ listId: lists.get(row.customerId)!, item: row, addedAt: row.addedAt })),
        `"listId", "productId", "variantId"`,
      );
      for (const row of created) {
        const listId = row.listId as string;
        touched.add(listId);
        counts.set(listId, counts.get(listId)! + 1);
        inserted.push(`${customerOf.get(listId)}|${row.productId as string}|${row.variantId as string}`);
      }
      pending = held;
    }
    if (atCap.length > 0) {
      // A row held back for a full list may still name an item already saved: that one is unchanged, not full.
      const saved = new Set<string>();
      const refs = atCap.map((row) => [lists.get(row.customerId)!, row.productId, row.variantId ?? ""] as const);
      const found = await tx.all<{ listId: string; productId: string; variantId: string }>(
        `SELECT "listId", "productId", "variantId" FROM "Item" WHERE ` +
          refs.map(() => `("listId" = ? AND "productId" = ? AND "variantId" = ?)`).join(" OR "),
        refs.flat(),
      );
      for (const item of found) saved.add(keyOf(item.listId, item.productId, item.variantId));
      full.push(...atCap.filter((_, at) => !saved.has(keyOf(...refs[at]!))));
    }
  }
  if (touched.size > 0) {
    const ids = [...touched];
    // Lists already touched at `at` are not written again: an import passes its start time for every batch.
    await tx.run(
      `UPDATE "List" SET "updatedAt" = ? WHERE "id" IN (${ids.map(() => "?").join(", ")}) AND "updatedAt" < ?`,
      [at, ...ids, at],
    );
  }
  return { inserted, full };
}
