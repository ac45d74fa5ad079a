/**
 * Statements on the analytics rollups (docs/decisions/011-analytics-rollups.md): `DailyProductStat`,
 * `DailyShopStat` and `DailyActiveOwner`, keyed by shop and UTC day (`YYYY-MM-DD`). The relay adds to
 * them in the transaction that marks the events relayed; the analytics reads sum them over a range. Each
 * write takes one statement for all its rows.
 */
import { sql } from "kysely";
import type { Queryable } from "./database.server";

export interface DayKey {
  shopId: string;
  day: string;
}

/**
 * Records these owners as active on their day; returns those that were not yet (the rows inserted).
 * `ownerKey` is `c:<customer id>` or `a:<anonymous id>`.
 */
export async function insertActiveOwners(
  q: Queryable,
  owners: ReadonlyArray<DayKey & { ownerKey: string }>,
): Promise<Array<DayKey & { ownerKey: string }>> {
  if (owners.length === 0) return [];
  return q
    .insertInto("DailyActiveOwner")
    .values([...owners])
    .onConflict((conflict) => conflict.doNothing())
    .returning(["shopId", "day", "ownerKey"])
    .execute();
}

/** Adds to the products' counts of their day (rows created at these counts where missing). */
export async function addProductStats(
  q: Queryable,
  stats: ReadonlyArray<DayKey & { productId: string; adds: number; removes: number }>,
): Promise<void> {
  if (stats.length === 0) return;
  await q
    .insertInto("DailyProductStat")
    .values([...stats])
    .onConflict((conflict) =>
      conflict.columns(["shopId", "day", "productId"]).doUpdateSet((eb) => ({
        adds: eb("DailyProductStat.adds", "+", eb.ref("excluded.adds")),
        removes: eb("DailyProductStat.removes", "+", eb.ref("excluded.removes")),
      })),
    )
    .execute();
}

/** Adds to the shops' counts of their day (rows created at these counts where missing). */
export async function addShopStats(
  q: Queryable,
  stats: ReadonlyArray<DayKey & { adds: number; removes: number; activeShoppers: number }>,
): Promise<void> {
  if (stats.length === 0) return;
  await q
    .insertInto("DailyShopStat")
    .values([...stats])
    .onConflict((conflict) =>
      conflict.columns(["shopId", "day"]).doUpdateSet((eb) => ({
        adds: eb("DailyShopStat.adds", "+", eb.ref("excluded.adds")),
        removes: eb("DailyShopStat.removes", "+", eb.ref("excluded.removes")),
        activeShoppers: eb("DailyShopStat.activeShoppers", "+", eb.ref("excluded.activeShoppers")),
      })),
    )
    .execute();
}

/** The shop's most saved products from `from` to `to` (days, inclusive): sums, most adds first, ties by id. */
export async function topProductStats(q: Queryable, shopId: string, from: string, to: string, limit: number) {
  const rows = await q
    .selectFrom("DailyProductStat")
    .select((eb) => ["productId", eb.fn.sum<number>("adds").as("adds"), eb.fn.sum<number>("removes").as("removes")])
    .where("shopId", "=", shopId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .groupBy("productId")
    .orderBy((eb) => eb.fn.sum("adds"), "desc")
    .orderBy("productId")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ productId: row.productId, adds: Number(row.adds), removes: Number(row.removes) }));
}

/** The shop's day rows from `from` to `to` (inclusive); days without activity have none. */
export function findShopStats(q: Queryable, shopId: string, from: string, to: string) {
  return q
    .selectFrom("DailyShopStat")
    .select(["day", "adds", "removes", "activeShoppers"])
    .where("shopId", "=", shopId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .orderBy("day")
    .execute();
}

/** Distinct owners active from `from` to `to` (inclusive). */
export async function countActiveOwners(q: Queryable, shopId: string, from: string, to: string): Promise<number> {
  const row = await q
    .selectFrom("DailyActiveOwner")
    .select((eb) => eb.fn.count<number>("ownerKey").distinct().as("n"))
    .where("shopId", "=", shopId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * For the top products: per product, the shoppers holding it now on any of their lists (on the
 * `(shopId, productId)` index of `Item`). A read of `Item` for the analytics report; `Item`'s writes are in its own module.
 */
export async function countSaversOfProducts(q: Queryable, shopId: string, productIds: readonly string[]) {
  if (productIds.length === 0) return new Map<string, number>();
  // Shoppers, not lists: one customer with a product on two of their lists is one saver.
  const owner = sql<string>`coalesce('c:' || ${sql.ref("List.customerId")}, 'a:' || ${sql.ref("List.anonymousId")})`;
  const rows = await q
    .selectFrom("Item")
    .innerJoin("List", (join) => join.onRef("List.id", "=", "Item.listId").onRef("List.shopId", "=", "Item.shopId"))
    .select((eb) => ["Item.productId", eb.fn.count<number>(owner).distinct().as("savers")])
    .where("Item.shopId", "=", shopId)
    .where("Item.productId", "in", productIds)
    .groupBy("Item.productId")
    .execute();
  return new Map(rows.map((row) => [row.productId, Number(row.savers)]));
}
