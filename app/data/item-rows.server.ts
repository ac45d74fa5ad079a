/**
 * Statements on `Item` (docs/decisions/017-data-layer.md): a list's saved products. Every function takes
 * the handle to run on (`database()` or a transaction's `tx`) and the shop id that scopes it. A list holds a
 * product once, whatever its variant: the unique (listId, productId) index
 * (docs/decisions/032-one-item-per-product.md).
 */
import { sql, type Selectable } from "kysely";
import { newId } from "~/lib/ids";
import type { DB, Queryable } from "./database.server";

export type ItemRow = Selectable<DB["Item"]>;

/** A product of a list: the list holds it once, with or without a variant. */
export interface ItemKey {
  listId: string;
  productId: string;
}

export interface ItemInsert extends ItemKey {
  /** The variant the shopper chose; "" for the product itself. */
  variantId: string;
  handle: string;
  titleSnapshot: string;
  addedAt: Date;
  /** When the worker is due to ask the platform for the product's title and handle; null or absent: never. */
  productLookupAt?: Date | null;
  /** The shopper's note ("" or absent: none) and quantity (absent: 1). */
  note?: string;
  quantity?: number;
}

/**
 * The owner key of a list of the shop, as its items keep it (`Item.ownerKey`,
 * docs/decisions/055-demand-from-the-item-index.md): read from the list in the statement that writes the item, so
 * it cannot differ from the list's. NULL for a list that is not the shop's (none, or another shop's), which the
 * column refuses: no item can be written onto such a list.
 */
function ownerKeyOfList(shopId: string, listId: string) {
  return sql<string>`(select coalesce('c:' || "customerId", 'a:' || "anonymousId") from "List" where "id" = ${listId} and "shopId" = ${shopId})`;
}

/** A product's title and handle as the shop's catalogue gave them to one of its items. */
export interface CatalogueTitle {
  titleSnapshot: string;
  handle: string;
  catalogueTitleAt: Date;
}

/**
 * Which products sit on each of the lists (the storefront's hearts and list picker), newest first. One read of the
 * (listId, addedAt, id) index per list: given several lists at once, SQLite's planner (without statistics) read
 * the whole shop's items by the (shopId, addedAt, id) index instead.
 */
export async function findProductsOfLists(q: Queryable, shopId: string, listIds: readonly string[]) {
  const perList = await Promise.all(
    [...new Set(listIds)].map((listId) =>
      q
        .selectFrom("Item")
        .select(["id", "listId", "productId", "variantId", "handle", "addedAt"])
        .where("listId", "=", listId)
        .where("shopId", "=", shopId)
        .orderBy("addedAt", "desc")
        .orderBy("id", "desc")
        .execute(),
    ),
  );
  return perList
    .flat()
    .sort((a, b) => b.addedAt.getTime() - a.addedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map(({ addedAt: _addedAt, ...row }) => row);
}

/** A list's items, newest first. */
export function findItemsOfList(q: Queryable, shopId: string, listId: string): Promise<ItemRow[]> {
  return q
    .selectFrom("Item")
    .selectAll()
    .where("listId", "=", listId)
    .where("shopId", "=", shopId)
    .orderBy("addedAt", "desc")
    .orderBy("id", "desc")
    .execute();
}

/** Those of these products that some list of the shop holds. */
export async function findSavedProductIds(
  q: Queryable,
  shopId: string,
  productIds: readonly string[],
): Promise<string[]> {
  if (productIds.length === 0) return [];
  const rows = await q
    .selectFrom("Item")
    .select("productId")
    .distinct()
    .where("shopId", "=", shopId)
    .where("productId", "in", productIds)
    .execute();
  return rows.map((row) => row.productId);
}

/** These items of the shop (those that still exist). */
export function findItemsByIds(q: Queryable, shopId: string, itemIds: readonly string[]): Promise<ItemRow[]> {
  if (itemIds.length === 0) return Promise.resolve([]);
  return q.selectFrom("Item").selectAll().where("shopId", "=", shopId).where("id", "in", itemIds).execute();
}

export function findItemByKey(q: Queryable, shopId: string, key: ItemKey): Promise<ItemRow | undefined> {
  return q
    .selectFrom("Item")
    .selectAll()
    .where("listId", "=", key.listId)
    .where("productId", "=", key.productId)
    .where("shopId", "=", shopId)
    .executeTakeFirst();
}

/**
 * The rows to insert. A product whose title the shop's catalogue already gave another item of the shop
 * takes that title and handle, not the ones the save carried (a shopper's or an import file's): the
 * catalogue's title wins once known (docs/decisions/029-catalogue-titles.md).
 */
async function insertValues(q: Queryable, shopId: string, rows: readonly ItemInsert[]) {
  const known = await findCatalogueTitles(
    q,
    shopId,
    rows.map((row) => row.productId),
  );
  return rows.map((row) => ({
    id: newId("item"),
    listId: row.listId,
    ownerKey: ownerKeyOfList(shopId, row.listId),
    shopId,
    productId: row.productId,
    variantId: row.variantId,
    handle: row.handle,
    titleSnapshot: row.titleSnapshot,
    catalogueTitleAt: null,
    ...known.get(row.productId),
    addedAt: row.addedAt,
    productLookupAt: row.productLookupAt ?? null,
    note: row.note ?? "",
    quantity: row.quantity ?? 1,
  }));
}

/**
 * Saves the item unless its list holds it already (then undefined: the saved one keeps its addedAt and
 * title). A product the catalogue has named for the shop is saved with the catalogue's title and handle.
 */
export async function insertItem(q: Queryable, shopId: string, row: ItemInsert): Promise<ItemRow | undefined> {
  return q
    .insertInto("Item")
    .values(await insertValues(q, shopId, [row]))
    .onConflict((conflict) => conflict.doNothing())
    .returningAll()
    .executeTakeFirst();
}

/**
 * Saves many items in one statement, skipping those their lists already hold; returns the keys of the
 * ones it inserted. Products the catalogue has named for the shop take the catalogue's title and handle.
 */
export async function insertItems(q: Queryable, shopId: string, rows: readonly ItemInsert[]): Promise<ItemKey[]> {
  if (rows.length === 0) return [];
  return q
    .insertInto("Item")
    .values(await insertValues(q, shopId, rows))
    .onConflict((conflict) => conflict.doNothing())
    .returning(["listId", "productId"])
    .execute();
}

/**
 * The catalogue's latest title and handle of each of these products, from the shop's items that have
 * them (on the `(shopId, productId, catalogueTitleAt, id)` index); products no item has a catalogue title
 * for are absent.
 */
export async function findCatalogueTitles(
  q: Queryable,
  shopId: string,
  productIds: readonly string[],
): Promise<Map<string, CatalogueTitle>> {
  const wanted = [...new Set(productIds)];
  if (wanted.length === 0) return new Map();
  // A save (the storefront's hot path): one seek to the product's latest catalogue title on the
  // (shopId, productId, catalogueTitleAt, id) index, however many shoppers saved the product.
  const rows =
    wanted.length === 1
      ? await q
          .selectFrom("Item")
          .select(["productId", "titleSnapshot", "handle", "catalogueTitleAt"])
          .where("shopId", "=", shopId)
          .where("productId", "=", wanted[0]!)
          .where("catalogueTitleAt", "is not", null)
          .orderBy("catalogueTitleAt", "desc")
          .orderBy("id", "desc")
          .limit(1)
          .execute()
      : await rankedCatalogueTitles(q, shopId, wanted);
  return new Map(
    rows.map((row) => [
      row.productId,
      { titleSnapshot: row.titleSnapshot, handle: row.handle, catalogueTitleAt: row.catalogueTitleAt! },
    ]),
  );
}

/** Several products' latest catalogue titles: the shop's items of them ranked per product. */
function rankedCatalogueTitles(q: Queryable, shopId: string, wanted: readonly string[]) {
  return q
    .selectFrom((eb) =>
      eb
        .selectFrom("Item")
        .select((eb) => [
          "productId",
          "titleSnapshot",
          "handle",
          "catalogueTitleAt",
          eb.fn
            .agg<number>("row_number")
            .over((over) => over.partitionBy("productId").orderBy("catalogueTitleAt", "desc").orderBy("id", "desc"))
            .as("rank"),
        ])
        .where("shopId", "=", shopId)
        .where("productId", "in", wanted)
        .where("catalogueTitleAt", "is not", null)
        .as("named"),
    )
    .select(["productId", "titleSnapshot", "handle", "catalogueTitleAt"])
    .where("rank", "=", 1)
    .execute();
}

/** Deletes the item with this key; returns it (undefined: it was not there). */
export function deleteItemByKey(q: Queryable, shopId: string, key: ItemKey): Promise<ItemRow | undefined> {
  return q
    .deleteFrom("Item")
    .where("listId", "=", key.listId)
    .where("productId", "=", key.productId)
    .where("shopId", "=", shopId)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the list's item with this id; returns it (undefined: no such item in that list). */
export function deleteItemById(
  q: Queryable,
  shopId: string,
  listId: string,
  itemId: string,
): Promise<ItemRow | undefined> {
  return q
    .deleteFrom("Item")
    .where("id", "=", itemId)
    .where("listId", "=", listId)
    .where("shopId", "=", shopId)
    .returningAll()
    .executeTakeFirst();
}

/** Items per list (lists without items are absent). */
export async function countItemsOfLists(
  q: Queryable,
  shopId: string,
  listIds: readonly string[],
): Promise<Map<string, number>> {
  if (listIds.length === 0) return new Map();
  const rows = await q
    .selectFrom("Item")
    .select((eb) => ["listId", eb.fn.countAll<number>().as("n")])
    .where("shopId", "=", shopId)
    .where("listId", "in", listIds)
    .groupBy("listId")
    .execute();
  return new Map(rows.map((row) => [row.listId, Number(row.n)]));
}

/** Which of these keys are saved, in one statement. */
export function findSavedKeys(q: Queryable, shopId: string, keys: readonly ItemKey[]): Promise<ItemKey[]> {
  if (keys.length === 0) return Promise.resolve([]);
  return q
    .selectFrom("Item")
    .select(["listId", "productId"])
    .where("shopId", "=", shopId)
    .where((eb) =>
      eb.or(keys.map((key) => eb.and([eb("listId", "=", key.listId), eb("productId", "=", key.productId)]))),
    )
    .execute();
}

/** Sets what a merge keeps of the guest's item on the customer's item of the same product. */
export async function updateMergedItem(
  q: Queryable,
  shopId: string,
  itemId: string,
  changes: { addedAt?: Date; variantId?: string; note?: string },
): Promise<void> {
  await q.updateTable("Item").set(changes).where("id", "=", itemId).where("shopId", "=", shopId).execute();
}

/** The item with this id, if it sits on this list of the shop. */
export function findItemOfList(
  q: Queryable,
  shopId: string,
  listId: string,
  itemId: string,
): Promise<ItemRow | undefined> {
  return q
    .selectFrom("Item")
    .selectAll()
    .where("id", "=", itemId)
    .where("listId", "=", listId)
    .where("shopId", "=", shopId)
    .executeTakeFirst();
}

/** The list an item of the shop sits on (undefined: no such item in this shop). */
export async function findListIdOfItem(q: Queryable, shopId: string, itemId: string): Promise<string | undefined> {
  const row = await q
    .selectFrom("Item")
    .select("listId")
    .where("id", "=", itemId)
    .where("shopId", "=", shopId)
    .executeTakeFirst();
  return row?.listId;
}

/** Sets the shopper's note and quantity of an item; returns it as it is now. */
export function updateItemDetails(
  q: Queryable,
  shopId: string,
  itemId: string,
  changes: { note?: string; quantity?: number },
): Promise<ItemRow | undefined> {
  return q
    .updateTable("Item")
    .set(changes)
    .where("id", "=", itemId)
    .where("shopId", "=", shopId)
    .returningAll()
    .executeTakeFirst();
}

/** Moves one item to another list of the shop, keeping everything else; returns it as it is now. */
export function moveItem(q: Queryable, shopId: string, itemId: string, listId: string): Promise<ItemRow | undefined> {
  return q
    .updateTable("Item")
    .set({ listId, ownerKey: ownerKeyOfList(shopId, listId) })
    .where("id", "=", itemId)
    .where("shopId", "=", shopId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * A copy of the item on another list (a new id; product, variant, title, note, quantity and the dates kept).
 * Undefined when that list holds the product already.
 */
export function copyItem(q: Queryable, item: ItemRow, listId: string): Promise<ItemRow | undefined> {
  return q
    .insertInto("Item")
    .values({ ...item, id: newId("item"), listId, ownerKey: ownerKeyOfList(item.shopId, listId) })
    .onConflict((conflict) => conflict.doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Moves these items into another list of the shop, in one statement. */
export async function moveItems(q: Queryable, shopId: string, itemIds: readonly string[], listId: string) {
  if (itemIds.length === 0) return;
  await q
    .updateTable("Item")
    .set({ listId, ownerKey: ownerKeyOfList(shopId, listId) })
    .where("shopId", "=", shopId)
    .where("id", "in", itemIds)
    .execute();
}

/** Deletes every item of the list. */
export async function deleteItemsOfList(q: Queryable, shopId: string, listId: string): Promise<void> {
  await q.deleteFrom("Item").where("listId", "=", listId).where("shopId", "=", shopId).execute();
}

/**
 * Product ids of the shop's items due for a lookup at `now` (longest due first), at most `limit` distinct
 * ones, read from at most `scan` due items (a product saved in many lists takes one place).
 */
export async function findDueProductIds(
  q: Queryable,
  shopId: string,
  { now, limit, scan = limit * 4 }: { now: Date; limit: number; scan?: number },
): Promise<string[]> {
  const rows = await q
    .selectFrom("Item")
    .select("productId")
    .where("productLookupAt", "<=", now)
    .where("shopId", "=", shopId)
    .orderBy("productLookupAt")
    .limit(scan)
    .execute();
  return [...new Set(rows.map((row) => row.productId))].slice(0, limit);
}

/**
 * The platform's title and handle for the shop's items of this product that were due for a lookup,
 * replacing whatever title their saves carried and marked as the catalogue's (`catalogueTitleAt`); the
 * lookup is then done (`productLookupAt` null). Returns how many items it filled.
 */
export async function fillProductSnapshot(
  q: Queryable,
  shopId: string,
  product: { productId: string; title: string; handle: string },
  at: Date,
): Promise<number> {
  const result = await q
    .updateTable("Item")
    .set({ titleSnapshot: product.title, handle: product.handle, catalogueTitleAt: at, productLookupAt: null })
    .where("shopId", "=", shopId)
    .where("productId", "=", product.productId)
    .where("productLookupAt", "is not", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The shop's items of these products are of products gone from the shop: marked unavailable (from `at`,
 * unless they were already), and no longer due for a lookup. Returns how many items it changed.
 */
export async function markProductsGone(
  q: Queryable,
  shopId: string,
  productIds: readonly string[],
  at: Date,
): Promise<number> {
  if (productIds.length === 0) return 0;
  const result = await q
    .updateTable("Item")
    .set((eb) => ({ unavailableAt: eb.fn.coalesce("unavailableAt", eb.val(at)), productLookupAt: null }))
    .where("shopId", "=", shopId)
    .where("productId", "in", productIds)
    .where((eb) => eb.or([eb("unavailableAt", "is", null), eb("productLookupAt", "is not", null)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Puts off the shop's lookups due at `now` until `until` (the platform cannot be asked for the shop now). */
export async function postponeDueLookups(
  q: Queryable,
  shopId: string,
  { now, until }: { now: Date; until: Date },
): Promise<number> {
  const result = await q
    .updateTable("Item")
    .set({ productLookupAt: until })
    .where("productLookupAt", "<=", now)
    .where("shopId", "=", shopId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Installed shops holding items due for a lookup since `before` (the sweep; across shops by design): the
 * range of the (productLookupAt, shopId) index holds only due items.
 */
export async function findShopsWithDueLookups(
  q: Queryable,
  { before, limit }: { before: Date; limit: number },
): Promise<string[]> {
  const rows = await q
    .selectFrom("Shop")
    .select("Shop.id")
    .where("Shop.uninstalledAt", "is", null)
    .where("Shop.id", "in", (eb) =>
      eb.selectFrom("Item").select("Item.shopId").distinct().where("Item.productLookupAt", "<=", before),
    )
    .orderBy("Shop.id")
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * One page of the shop's items for an export, chosen on Item alone (its (shopId, id) index, in order)
 * and then joined to their lists: items of retired lists come back with `retiredAt` set, so the caller
 * drops them after the cursor has passed them and they can never end the export early.
 */
export function exportItemsPage(q: Queryable, shopId: string, { after, limit }: { after: string; limit: number }) {
  return q
    .selectFrom((eb) =>
      eb
        .selectFrom("Item")
        .selectAll()
        .where("shopId", "=", shopId)
        .where("id", ">", after)
        .orderBy("id")
        .limit(limit)
        .as("i"),
    )
    .innerJoin("List as l", "l.id", "i.listId")
    .select([
      "i.id",
      "l.customerId",
      "l.anonymousId",
      "l.retiredAt",
      "l.name as listName",
      "l.isDefault as listIsDefault",
      "i.note",
      "i.quantity",
      "i.productId",
      "i.variantId",
      "i.handle",
      "i.titleSnapshot",
      "i.catalogueTitleAt",
      "i.addedAt",
    ])
    .orderBy("i.id")
    .execute();
}

/**
 * PostgreSQL: fresh planner statistics for Item and List after a bulk load (an import), so the next
 * export or list browse does not read a whole shop's items per page until autovacuum gets round to it.
 */
export async function analyzeAfterBulkLoad(q: Queryable): Promise<void> {
  await sql`ANALYZE "Item"`.execute(q);
  await sql`ANALYZE "List"`.execute(q);
}
