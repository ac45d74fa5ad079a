/**
 * Statements of the customer metafield sync (docs/decisions/023-customer-metafield-sync.md): which
 * customers owe a metafield write, and what their saved products are. Every statement is scoped by the
 * shop's id.
 */
import { sql, type Selectable } from "kysely";
import { engine, type DB, type Queryable } from "./database.server";

/** The column type of a `DateTime` (Prisma's) on the current engine, for a typed parameter. */
const timestampType = () => (engine() === "sqlite" ? "text" : "timestamp(3)");

export type MetafieldSyncRow = Selectable<DB["CustomerMetafieldSync"]>;

/** Marks these customers as owing a write (their saved products changed at `at`). */
export async function markCustomersChanged(
  q: Queryable,
  shopId: string,
  customerIds: readonly string[],
  at: Date,
): Promise<void> {
  const unique = [...new Set(customerIds)];
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
 * Marks every customer of the shop who has a list as owing a write: the backfill when the merchant turns
 * the sync on (a customer whose lists are empty gets an empty value, which removes a stale metafield).
 */
export async function markAllCustomersChanged(q: Queryable, shopId: string, at: Date): Promise<void> {
  await q
    .insertInto("CustomerMetafieldSync")
    .columns(["shopId", "customerId", "changedAt"])
    .expression((eb) =>
      eb
        .selectFrom("List")
        // Typed parameters: PostgreSQL cannot infer the type of a bare parameter in a select list.
        .select([
          sql<string>`cast(${shopId} as text)`.as("shopId"),
          "customerId",
          sql<Date>`cast(${at} as ${sql.raw(timestampType())})`.as("changedAt"),
        ])
        .where("shopId", "=", shopId)
        .where("customerId", "is not", null)
        .where("retiredAt", "is", null)
        .distinct(),
    )
    .onConflict((conflict) =>
      conflict.columns(["shopId", "customerId"]).doUpdateSet({ changedAt: at, syncedAt: null, error: null }),
    )
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

/** Installed shops with customers owing a write (the sweep's list), at most `limit`. */
export async function findShopsOwingMetafields(q: Queryable, limit: number): Promise<string[]> {
  const rows = await q
    .selectFrom("CustomerMetafieldSync as m")
    .innerJoin("Shop as s", "s.id", "m.shopId")
    .select("m.shopId")
    .where("m.syncedAt", "is", null)
    .where("s.uninstalledAt", "is", null)
    .groupBy("m.shopId")
    .limit(limit)
    .execute();
  return rows.map((row) => row.shopId);
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
