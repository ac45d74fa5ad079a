/**
 * Statements of the customer metafield sync (docs/decisions/023-customer-metafield-sync.md): which
 * customers owe a metafield write, and what their saved products are. Every statement is scoped by the
 * shop's id.
 */
import { sql, type Selectable } from "kysely";
import type { DB, Queryable } from "./database.server";

export type MetafieldSyncRow = Selectable<DB["CustomerMetafieldSync"]>;

/** Marks these customers as owing a write (their saved products changed at `at`). */
export async function markCustomersChanged(
  q: Queryable,
  shopId: string,
  customerIds: readonly string[],
  at: Date,
): Promise<void> {
  // In id order: writers marking overlapping customers at once (the relay, an import, the backfill) take
  // the rows' locks in one order, so none waits for another in a cycle.
  const unique = [...new Set(customerIds)].sort();
  for (let start = 0; start < unique.length; start += 500) {
    await q
      .insertInto("CustomerMetafieldSync")
      .values(unique.slice(start, start + 500).map((customerId) => ({ shopId, customerId, changedAt: at })))
      .onConflict((conflict) =>
        conflict.columns(["shopId", "customerId"]).doUpdateSet({ changedAt: at, syncedAt: null, error: null }),
      )
      .execute();
  }
}

/**
 * The customers of the shop who have a list (retired guest lists excluded), in id order after `after`, at
 * most `limit`: one page of the backfill, on the (shopId, customerId, ...) index of List.
 */
export async function customersWithLists(
  q: Queryable,
  shopId: string,
  after: string | null,
  limit: number,
): Promise<string[]> {
  const rows = await q
    .selectFrom("List")
    .select("customerId")
    .distinct()
    .where("shopId", "=", shopId)
    .where("customerId", "is not", null)
    .where("retiredAt", "is", null)
    .$if(after !== null, (query) => query.where("customerId", ">", after!))
    .orderBy("customerId")
    .limit(limit)
    .execute();
  return rows.map((row) => row.customerId!);
}

/**
 * Records the backfill of `requestedAt` done. A merchant who turned the sync off and on again meanwhile
 * asked for another backfill (a later time): that one stays owed.
 */
export async function finishMetafieldBackfill(q: Queryable, shopId: string, requestedAt: Date): Promise<void> {
  await q
    .updateTable("Shop")
    .set({ metafieldBackfillAt: null })
    .where("id", "=", shopId)
    .where("metafieldBackfillAt", "=", requestedAt)
    .execute();
}

/** Customers of the shop who owe a write, oldest change first. */
export function findChangedCustomers(q: Queryable, shopId: string, limit: number): Promise<MetafieldSyncRow[]> {
  return q
    .selectFrom("CustomerMetafieldSync")
    .selectAll()
    .where("syncedAt", "is", null)
    .where("shopId", "=", shopId)
    .orderBy("changedAt")
    .orderBy("customerId")
    .limit(limit)
    .execute();
}

/**
 * Records a write (or the platform's refusal, `error`) made for the change of `changedAt`; a change that
 * arrived meanwhile keeps the row owing.
 */
export async function markCustomerSynced(
  q: Queryable,
  shopId: string,
  customerId: string,
  { changedAt, error }: { changedAt: Date; error: string | null },
  at: Date,
): Promise<void> {
  await q
    .updateTable("CustomerMetafieldSync")
    .set({ syncedAt: at, error })
    .where("shopId", "=", shopId)
    .where("customerId", "=", customerId)
    .where("changedAt", "=", changedAt)
    .execute();
}

/** Forgets what the shop owes (the setting was turned off: nothing is written). */
export async function deleteShopMetafieldSyncs(q: Queryable, shopId: string): Promise<number> {
  const result = await q.deleteFrom("CustomerMetafieldSync").where("shopId", "=", shopId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteCustomerMetafieldSync(q: Queryable, shopId: string, customerId: string): Promise<void> {
  await q
    .deleteFrom("CustomerMetafieldSync")
    .where("shopId", "=", shopId)
    .where("customerId", "=", customerId)
    .execute();
}

/**
 * Installed shops with customers owing a write, or owed a backfill (the sweep's list), at most `limit`
 * of each.
 */
export async function findShopsOwingMetafields(q: Queryable, limit: number): Promise<string[]> {
  const [owing, backfilling] = await Promise.all([
    q
      .selectFrom("CustomerMetafieldSync as m")
      .innerJoin("Shop as s", "s.id", "m.shopId")
      .select("m.shopId")
      .where("m.syncedAt", "is", null)
      .where("s.uninstalledAt", "is", null)
      .groupBy("m.shopId")
      .limit(limit)
      .execute(),
    q
      .selectFrom("Shop")
      .select("id as shopId")
      .where("metafieldBackfillAt", "is not", null)
      .where("uninstalledAt", "is", null)
      .limit(limit)
      .execute(),
  ]);
  return [...new Set([...owing, ...backfilling].map((row) => row.shopId))];
}

/**
 * The products on the customer's lists (retired guest lists excluded), each once, most recently saved
 * first, at most `limit`.
 */
export async function savedProductIds(
  q: Queryable,
  shopId: string,
  customerId: string,
  limit: number,
): Promise<string[]> {
  const rows = await q
    .selectFrom("Item as i")
    .innerJoin("List as l", "l.id", "i.listId")
    .select(["i.productId", sql<Date | string>`max(${sql.ref("i.addedAt")})`.as("lastAddedAt")])
    .where("i.shopId", "=", shopId)
    .where("l.shopId", "=", shopId)
    .where("l.customerId", "=", customerId)
    .where("l.retiredAt", "is", null)
    .groupBy("i.productId")
    .orderBy("lastAddedAt", "desc")
    .orderBy("i.productId")
    .limit(limit)
    .execute();
  return rows.map((row) => row.productId);
}
