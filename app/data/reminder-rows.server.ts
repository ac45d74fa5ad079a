/**
 * Statements of the reminder rule (docs/decisions/050-wishlist-alerts.md#reminders): the scan of a shop's
 * saved items and the weekly pass over its reminders, each read a page at a time from where the last run
 * stopped (`ReminderScan`), the items a customer is due to be reminded of, and the marks that make an item
 * reminded of once. Every function takes the handle to run on and the shop id that scopes it.
 */
import type { Queryable } from "./database.server";

const CHUNK = 500;
function chunks<T>(values: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < values.length; start += size) out.push(values.slice(start, start + size));
  return out;
}

/** A position in an ordered read: the last row passed, by its time and then its id. */
export interface ScanPosition {
  at: Date;
  id: string;
}

export interface ReminderScanState {
  /** The last item the scan of saved items passed; null: it starts with the shop's oldest item. */
  item: ScanPosition | null;
  /** The last reminder the weekly pass passed; null: it starts with the shop's oldest reminder. */
  reminder: ScanPosition | null;
}

export async function findReminderScan(q: Queryable, shopId: string): Promise<ReminderScanState> {
  const row = await q.selectFrom("ReminderScan").selectAll().where("shopId", "=", shopId).executeTakeFirst();
  return {
    item: row?.itemAddedAt && row.itemId ? { at: row.itemAddedAt, id: row.itemId } : null,
    reminder: row?.reminderAt && row.reminderId ? { at: row.reminderAt, id: row.reminderId } : null,
  };
}

/** Moves the shop's scan of saved items (`item`) or its weekly pass (`reminder`) on to `to`. */
export async function saveReminderScan(
  q: Queryable,
  shopId: string,
  { item, reminder, at }: { item?: ScanPosition; reminder?: ScanPosition; at: Date },
): Promise<void> {
  const changes = {
    ...(item ? { itemAddedAt: item.at, itemId: item.id } : {}),
    ...(reminder ? { reminderAt: reminder.at, reminderId: reminder.id } : {}),
    updatedAt: at,
  };
  await q
    .insertInto("ReminderScan")
    .values({ shopId, ...changes })
    .onConflict((conflict) => conflict.column("shopId").doUpdateSet(changes))
    .execute();
}

/**
 * The next page of the shop's items saved at or before `savedBy`, after `after`, in the order they were saved:
 * a range read of the (shopId, addedAt, id) index, `limit` rows whatever they are. Guests' items, retired
 * lists, bought and reminded items are read too and left to the caller: filtering them here would let one
 * page read any number of rows (a million guest items before the first customer's), and the scan reads each
 * row once anyway. Each row carries its list's owner.
 */
export async function findItemsSavedAfter(
  q: Queryable,
  shopId: string,
  { after, savedBy, limit }: { after: ScanPosition | null; savedBy: Date; limit: number },
) {
  let query = q
    .selectFrom("Item")
    .innerJoin("List", "List.id", "Item.listId")
    .select([
      "Item.id",
      "Item.addedAt",
      "Item.remindedAt",
      "Item.purchasedAt",
      "Item.unavailableAt",
      "List.customerId",
      "List.retiredAt",
    ])
    .where("Item.shopId", "=", shopId)
    .where("Item.addedAt", "<=", savedBy);
  if (after) {
    // One range on addedAt, and the id for the rows saved at the same instant: an OR of the two would not
    // be a range the index serves.
    query = query
      .where("Item.addedAt", ">=", after.at)
      .where((eb) => eb.or([eb("Item.addedAt", ">", after.at), eb("Item.id", ">", after.id)]));
  }
  return query.orderBy("Item.addedAt").orderBy("Item.id").limit(limit).execute();
}

/**
 * The next page of the shop's alerts of `kind` made at or before `madeBy`, after `after`, in the order they
 * were made (the (shopId, kind, createdAt, id) index): the weekly pass reads the reminders whose week is over.
 */
export async function findAlertsMadeAfter(
  q: Queryable,
  shopId: string,
  { kind, after, madeBy, limit }: { kind: string; after: ScanPosition | null; madeBy: Date; limit: number },
) {
  let query = q
    .selectFrom("Alert")
    .select(["id", "customerId", "createdAt"])
    .where("shopId", "=", shopId)
    .where("kind", "=", kind)
    .where("createdAt", "<=", madeBy);
  if (after) {
    query = query
      .where("createdAt", ">=", after.at)
      .where((eb) => eb.or([eb("createdAt", ">", after.at), eb("id", ">", after.id)]));
  }
  return query.orderBy("createdAt").orderBy("id").limit(limit).execute();
}

/**
 * The items these customers are due to be reminded of: on their live lists, saved at or before `savedBy`,
 * never reminded of, not bought, their product not gone from the shop; oldest first. A customer's items are
 * bounded by their lists (MAX_ITEMS_PER_LIST on each).
 */
export async function findDueItemsOfCustomers(
  q: Queryable,
  shopId: string,
  { customerIds, savedBy }: { customerIds: readonly string[]; savedBy: Date },
) {
  const rows = [];
  for (const part of chunks(customerIds)) {
    rows.push(
      ...(await q
        .selectFrom("Item")
        .innerJoin("List", "List.id", "Item.listId")
        .select(["Item.id", "Item.listId", "Item.productId", "Item.variantId", "Item.addedAt", "List.customerId"])
        .where("List.shopId", "=", shopId)
        .where("List.customerId", "in", part)
        .where("List.retiredAt", "is", null)
        .where("Item.shopId", "=", shopId)
        .where("Item.addedAt", "<=", savedBy)
        .where("Item.remindedAt", "is", null)
        .where("Item.purchasedAt", "is", null)
        .where("Item.unavailableAt", "is", null)
        .orderBy("Item.addedAt")
        .orderBy("Item.id")
        .execute()),
    );
  }
  return rows.map((row) => ({ ...row, customerId: row.customerId! }));
}

/**
 * Marks the customer's items of these products reminded of, on every list of theirs (a product on two lists
 * is one reminder): none of them is reminded of again. Returns the items marked.
 */
export async function markReminded(
  q: Queryable,
  shopId: string,
  { customerId, productIds, at }: { customerId: string; productIds: readonly string[]; at: Date },
): Promise<number> {
  let marked = 0;
  for (const part of chunks(productIds)) {
    const result = await q
      .updateTable("Item")
      .set({ remindedAt: at })
      .where("shopId", "=", shopId)
      .where("productId", "in", part)
      .where("remindedAt", "is", null)
      .where("listId", "in", (eb) =>
        eb
          .selectFrom("List")
          .select("List.id")
          .where("List.shopId", "=", shopId)
          .where("List.customerId", "=", customerId),
      )
      .executeTakeFirst();
    marked += Number(result.numUpdatedRows);
  }
  return marked;
}

/**
 * Each of these customers' reminders (product and when it was made): whether they had one in the last week,
 * and which products they were reminded of already (one reminder per customer and product while kept).
 */
export async function findRemindersOfCustomers(
  q: Queryable,
  shopId: string,
  { kind, customerIds }: { kind: string; customerIds: readonly string[] },
) {
  const rows = [];
  for (const part of chunks(customerIds)) {
    rows.push(
      ...(await q
        .selectFrom("Alert")
        .select(["customerId", "productId", "createdAt"])
        .where("shopId", "=", shopId)
        .where("customerId", "in", part)
        .where("kind", "=", kind)
        .execute()),
    );
  }
  return rows;
}

/**
 * A page of the installed shops with their alert settings, after `afterId` in id order (the reminders' sweep
 * reads which shops have the rule on: the settings are a JSON document).
 */
export function findInstalledShopAlertSettings(
  q: Queryable,
  { afterId, limit }: { afterId: string | null; limit: number },
) {
  let query = q.selectFrom("Shop").select(["id", "alertSettings"]).where("uninstalledAt", "is", null);
  if (afterId !== null) query = query.where("id", ">", afterId);
  return query.orderBy("id").limit(limit).execute();
}
