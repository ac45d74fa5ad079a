/**
 * Statements on `Conversion`, `ConversionRefund` and the conversions' daily rollups (`DailyConversionStat`,
 * `DailyConversionOrder`, `DailyConversionDelay`; docs/decisions/052-attribution.md). Every function takes the
 * handle to run on and the shop id that scopes it.
 */
import { sql, type Insertable, type Selectable } from "kysely";
import { engine, type DB, type Queryable } from "./database.server";

export type ConversionRow = Selectable<DB["Conversion"]>;
export type ConversionInsert = Insertable<DB["Conversion"]>;

/** A saved item of the buyer's, as the matching needs it. */
export interface SavedItemMatch {
  id: string;
  listId: string;
  productId: string;
  variantId: string;
  addedAt: Date;
  purchasedAt: Date | null;
  customerId: string | null;
  anonymousId: string | null;
}

/**
 * The owner's items of these products saved before `before`, on any of their lists, oldest save first. The owner
 * is a customer or an anonymous id. Read by the owner key items keep (decision 055) on the
 * `(shopId, productId, ownerKey, ...)` index: three equalities, which SQLite takes with or without statistics
 * (with the saved-before condition or an ORDER BY in the statement, it read the shop's whole (shopId, addedAt, id)
 * range instead; decision 057), so the date and the order are applied here, on the owner's few items.
 */
export async function findSavedItemsOfProducts(
  q: Queryable,
  shopId: string,
  owner: { column: "customerId" | "anonymousId"; value: string },
  productIds: readonly string[],
  before: Date,
): Promise<SavedItemMatch[]> {
  if (productIds.length === 0) return [];
  const rows = await q
    .selectFrom("Item")
    .select(["id", "listId", "productId", "variantId", "addedAt", "purchasedAt"])
    .where("shopId", "=", shopId)
    .where("ownerKey", "=", owner.column === "customerId" ? `c:${owner.value}` : `a:${owner.value}`)
    .where("productId", "in", [...productIds])
    .execute();
  return rows
    .filter((row) => row.addedAt < before)
    .sort((a, b) => a.addedAt.getTime() - b.addedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((row) => ({
      ...row,
      customerId: owner.column === "customerId" ? owner.value : null,
      anonymousId: owner.column === "anonymousId" ? owner.value : null,
    }));
}

/** The anonymous owner of a guest list (the cart attribute's list id); undefined for another kind of list. */
export async function findAnonymousOwnerOfList(q: Queryable, shopId: string, listId: string) {
  const row = await q
    .selectFrom("List")
    .select("anonymousId")
    .where("shopId", "=", shopId)
    .where("id", "=", listId)
    .where("anonymousId", "is not", null)
    .executeTakeFirst();
  return row?.anonymousId ?? undefined;
}

/**
 * The customer's latest click on an alert or reminder link for each of these products within [from, to]:
 * product id to the alert's id and kind.
 */
export async function findAlertClicks(
  q: Queryable,
  shopId: string,
  customerId: string,
  productIds: readonly string[],
  from: Date,
  to: Date,
): Promise<Map<string, { id: string; kind: string }>> {
  if (productIds.length === 0) return new Map();
  const rows = await q
    .selectFrom("Alert")
    .select(["id", "productId", "kind", "clickedAt"])
    .where("shopId", "=", shopId)
    .where("customerId", "=", customerId)
    .where("productId", "in", [...productIds])
    .where("clickedAt", ">=", from)
    .where("clickedAt", "<=", to)
    .execute();
  const latest = new Map<string, { id: string; kind: string; at: number }>();
  for (const row of rows) {
    const at = row.clickedAt!.getTime();
    const seen = latest.get(row.productId);
    if (!seen || at > seen.at || (at === seen.at && row.id > seen.id)) {
      latest.set(row.productId, { id: row.id, kind: row.kind, at });
    }
  }
  return new Map([...latest].map(([productId, { id, kind }]) => [productId, { id, kind }]));
}

/** Whether the shop holds a conversion of the order already. */
export async function orderHasConversions(q: Queryable, shopId: string, orderId: string): Promise<boolean> {
  const row = await q
    .selectFrom("Conversion")
    .select("id")
    .where("shopId", "=", shopId)
    .where("orderId", "=", orderId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Conversions a statement inserts at once: 20 columns each, well within SQLite's 32,766 variables a statement
 * (an order of 2,000 lines in one statement is 40,000).
 */
const INSERT_CHUNK = 500;

/** Inserts the conversions an order's lines make; a line already recorded is left as it is. Returns those inserted. */
export async function insertConversions(q: Queryable, rows: readonly ConversionInsert[]): Promise<ConversionRow[]> {
  const inserted: ConversionRow[] = [];
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    inserted.push(
      ...(await q
        .insertInto("Conversion")
        .values(rows.slice(start, start + INSERT_CHUNK))
        .onConflict((conflict) => conflict.columns(["shopId", "orderId", "lineItemId"]).doNothing())
        .returningAll()
        .execute()),
    );
  }
  return inserted;
}

/** The order's conversions, locked for this transaction (PostgreSQL; SQLite's transaction holds the write lock). */
export function findConversionsOfOrder(q: Queryable, shopId: string, orderId: string, { lock = false } = {}) {
  return q
    .selectFrom("Conversion")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("orderId", "=", orderId)
    .orderBy("lineItemId")
    .$if(lock && engine() === "postgres", (query) => query.forUpdate())
    .execute();
}

/** Records a refund line once; false when this refund's line was applied before. */
export async function insertConversionRefund(
  q: Queryable,
  refund: Insertable<DB["ConversionRefund"]>,
): Promise<boolean> {
  const inserted = await q
    .insertInto("ConversionRefund")
    .values(refund)
    .onConflict((conflict) => conflict.columns(["shopId", "refundId", "lineItemId"]).doNothing())
    .returning("conversionId")
    .execute();
  return inserted.length > 0;
}

/** Sets what refunds and a cancellation took back of one conversion. */
export async function setConversionRefunded(
  q: Queryable,
  shopId: string,
  id: string,
  refunded: {
    refundedQuantity: number;
    refundedMinor: number;
    presentmentRefundedMinor: number;
    cancelledAt?: Date;
  },
): Promise<void> {
  await q.updateTable("Conversion").set(refunded).where("shopId", "=", shopId).where("id", "=", id).execute();
}

/** Marks the items bought (the ones not marked yet). */
export async function markItemsPurchased(q: Queryable, shopId: string, itemIds: readonly string[], at: Date) {
  if (itemIds.length === 0) return;
  await q
    .updateTable("Item")
    .set({ purchasedAt: at })
    .where("shopId", "=", shopId)
    .where("id", "in", [...itemIds])
    .where("purchasedAt", "is", null)
    .execute();
}

// ---- the rollups -----------------------------------------------------------------------------------------

export interface ConversionStatChange {
  shopId: string;
  day: string;
  productId: string;
  source: string;
  currency: string;
  lines: number;
  quantity: number;
  revenueMinor: number;
  refundedMinor: number;
}

/**
 * Adds to the day's product figures (rows made where missing). Changes of the same row (a refund or a
 * cancellation of two lines of one product) are added up first: PostgreSQL refuses a statement whose
 * `ON CONFLICT DO UPDATE` would change a row twice.
 */
export async function addConversionStats(q: Queryable, changes: readonly ConversionStatChange[]): Promise<void> {
  if (changes.length === 0) return;
  const merged = new Map<string, ConversionStatChange>();
  for (const change of changes) {
    const key = JSON.stringify([change.shopId, change.day, change.productId, change.source, change.currency]);
    const seen = merged.get(key);
    merged.set(
      key,
      seen
        ? {
            ...seen,
            lines: seen.lines + change.lines,
            quantity: seen.quantity + change.quantity,
            revenueMinor: seen.revenueMinor + change.revenueMinor,
            refundedMinor: seen.refundedMinor + change.refundedMinor,
          }
        : change,
    );
  }
  await q
    .insertInto("DailyConversionStat")
    .values([...merged.values()])
    .onConflict((conflict) =>
      conflict.columns(["shopId", "day", "productId", "source", "currency"]).doUpdateSet((eb) => ({
        lines: eb("DailyConversionStat.lines", "+", eb.ref("excluded.lines")),
        quantity: eb("DailyConversionStat.quantity", "+", eb.ref("excluded.quantity")),
        revenueMinor: eb("DailyConversionStat.revenueMinor", "+", eb.ref("excluded.revenueMinor")),
        refundedMinor: eb("DailyConversionStat.refundedMinor", "+", eb.ref("excluded.refundedMinor")),
      })),
    )
    .execute();
}

/** Adds to the day's count of orders with a conversion, and of those cancelled. */
export async function addConversionOrders(
  q: Queryable,
  change: { shopId: string; day: string; orders: number; cancelled: number },
): Promise<void> {
  await q
    .insertInto("DailyConversionOrder")
    .values(change)
    .onConflict((conflict) =>
      conflict.columns(["shopId", "day"]).doUpdateSet((eb) => ({
        orders: eb("DailyConversionOrder.orders", "+", eb.ref("excluded.orders")),
        cancelled: eb("DailyConversionOrder.cancelled", "+", eb.ref("excluded.cancelled")),
      })),
    )
    .execute();
}

/** Adds to the day's histogram of whole days from save to order. */
export async function addConversionDelays(
  q: Queryable,
  changes: ReadonlyArray<{ shopId: string; day: string; days: number; lines: number }>,
): Promise<void> {
  if (changes.length === 0) return;
  await q
    .insertInto("DailyConversionDelay")
    .values([...changes])
    .onConflict((conflict) =>
      conflict.columns(["shopId", "day", "days"]).doUpdateSet((eb) => ({
        lines: eb("DailyConversionDelay.lines", "+", eb.ref("excluded.lines")),
      })),
    )
    .execute();
}

// ---- the reports' reads ------------------------------------------------------------------------------------

/** The range's figures by source and currency (days `from` to `to`, inclusive). */
export function sumConversionStatsBySource(q: Queryable, shopId: string, from: string, to: string) {
  return q
    .selectFrom("DailyConversionStat")
    .select(["source", "currency"])
    .select((eb) => [
      eb.fn.sum<number>("lines").as("lines"),
      eb.fn.sum<number>("quantity").as("quantity"),
      eb.fn.sum<number>("revenueMinor").as("revenueMinor"),
      eb.fn.sum<number>("refundedMinor").as("refundedMinor"),
    ])
    .where("shopId", "=", shopId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .groupBy(["source", "currency"])
    .execute();
}

/** The range's figures by day and currency, for the chart. */
export function sumConversionStatsByDay(q: Queryable, shopId: string, from: string, to: string) {
  return q
    .selectFrom("DailyConversionStat")
    .select(["day", "currency"])
    .select((eb) => [
      eb.fn.sum<number>("revenueMinor").as("revenueMinor"),
      eb.fn.sum<number>("refundedMinor").as("refundedMinor"),
    ])
    .where("shopId", "=", shopId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .groupBy(["day", "currency"])
    .execute();
}

/** The range's products by net revenue in a currency (most first, ties by id). */
export function topConvertingProducts(
  q: Queryable,
  shopId: string,
  from: string,
  to: string,
  currency: string,
  limit: number,
) {
  return q
    .selectFrom("DailyConversionStat")
    .select("productId")
    .select((eb) => [
      eb.fn.sum<number>("lines").as("lines"),
      eb.fn.sum<number>("quantity").as("quantity"),
      eb.fn.sum<number>("revenueMinor").as("revenueMinor"),
      eb.fn.sum<number>("refundedMinor").as("refundedMinor"),
    ])
    .where("shopId", "=", shopId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .where("currency", "=", currency)
    .groupBy("productId")
    .orderBy(sql`sum("revenueMinor") - sum("refundedMinor")`, "desc")
    .orderBy("productId")
    .limit(limit)
    .execute();
}

/** The range's orders with a conversion, by day. */
export function findConversionOrders(q: Queryable, shopId: string, from: string, to: string) {
  return q
    .selectFrom("DailyConversionOrder")
    .select(["day", "orders", "cancelled"])
    .where("shopId", "=", shopId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .execute();
}

/** The range's histogram of days from save to order. */
export function sumConversionDelays(q: Queryable, shopId: string, from: string, to: string) {
  return q
    .selectFrom("DailyConversionDelay")
    .select("days")
    .select((eb) => eb.fn.sum<number>("lines").as("lines"))
    .where("shopId", "=", shopId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .groupBy("days")
    .orderBy("days")
    .execute();
}

/** Distinct buyers (customers and guests) with a conversion not cancelled in [from, to). */
export async function countBuyers(q: Queryable, shopId: string, from: Date, to: Date): Promise<number> {
  const row = await q
    .selectFrom((eb) =>
      eb
        .selectFrom("Conversion")
        .select(["customerId", "anonymousId"])
        .where("shopId", "=", shopId)
        .where("orderedAt", ">=", from)
        .where("orderedAt", "<", to)
        .where("cancelledAt", "is", null)
        .groupBy(["customerId", "anonymousId"])
        .as("buyers"),
    )
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** A page of the shop's conversions in [from, to), newest first, after the cursor `(orderedAt, id)`. */
export function pageConversions(
  q: Queryable,
  shopId: string,
  { from, to, after, limit }: { from: Date; to: Date; after: { orderedAt: Date; id: string } | null; limit: number },
) {
  let query = q
    .selectFrom("Conversion")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("orderedAt", ">=", from)
    .where("orderedAt", "<", to);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb("orderedAt", "<", after.orderedAt),
        eb.and([eb("orderedAt", "=", after.orderedAt), eb("id", "<", after.id)]),
      ]),
    );
  }
  return query.orderBy("orderedAt", "desc").orderBy("id", "desc").limit(limit).execute();
}

// ---- privacy ---------------------------------------------------------------------------------------------

/**
 * The customer's conversions (a data request): theirs, and the guest's of the guest lists they merged at login
 * (`anonymousIds`), as a redaction deletes them.
 */
export function findCustomerConversions(
  q: Queryable,
  shopId: string,
  customerId: string,
  anonymousIds: readonly string[],
) {
  return q
    .selectFrom("Conversion")
    .selectAll()
    .where("shopId", "=", shopId)
    .where((eb) =>
      anonymousIds.length === 0
        ? eb("customerId", "=", customerId)
        : eb.or([eb("customerId", "=", customerId), eb("anonymousId", "in", [...anonymousIds])]),
    )
    .orderBy("orderedAt")
    .orderBy("id")
    .execute();
}

/**
 * Deletes the customer's conversions (a redaction; their refunds go with them). The daily rollups keep the
 * figures, which name no customer or order.
 */
export async function deleteCustomerConversions(q: Queryable, shopId: string, customerId: string): Promise<number> {
  const result = await q
    .deleteFrom("Conversion")
    .where("shopId", "=", shopId)
    .where("customerId", "=", customerId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes the guest's conversions (their lists erased with a customer's, or the guest list's retention). */
export async function deleteAnonymousConversions(
  q: Queryable,
  shopId: string,
  anonymousIds: readonly string[],
): Promise<number> {
  if (anonymousIds.length === 0) return 0;
  const result = await q
    .deleteFrom("Conversion")
    .where("shopId", "=", shopId)
    .where("anonymousId", "in", [...anonymousIds])
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

// ---- demand ----------------------------------------------------------------------------------------------

/** The range's conversion lines per product, for these products. */
export async function countConversionLinesOfProducts(
  q: Queryable,
  shopId: string,
  from: string,
  to: string,
  productIds: readonly string[],
): Promise<Map<string, number>> {
  if (productIds.length === 0) return new Map();
  const rows = await q
    .selectFrom("DailyConversionStat")
    .select("productId")
    .select((eb) => eb.fn.sum<number>("lines").as("lines"))
    .where("shopId", "=", shopId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .where("productId", "in", [...productIds])
    .groupBy("productId")
    .execute();
  return new Map(rows.map((row) => [row.productId, Number(row.lines)]));
}

/**
 * Saved products out of stock now, as the alerts' catalogue last read them: per sold-out variant, the shoppers
 * waiting for it (who saved that variant, or the product without one when no variant of it can be bought),
 * counting each shopper once, not bought. Driven by the sold-out variants (few), each reading its product's
 * items from the `(shopId, productId, ownerKey, variantId, purchasedAt)` index alone: items keep their list's
 * owner, and only live lists hold items (a merge empties the guest list it retires;
 * docs/decisions/055-demand-from-the-item-index.md).
 */
export async function findWaitingForRestock(q: Queryable, shopId: string, limit: number) {
  const rows = await q
    .selectFrom("CatalogueVariant as v")
    .innerJoin("Item", (join) => join.on("Item.shopId", "=", shopId).onRef("Item.productId", "=", "v.productId"))
    .select(["v.productId", "v.variantId", "v.title as variantTitle", "v.inventoryQuantity"])
    .select((eb) => eb.fn.count<number>("Item.ownerKey").distinct().as("waiting"))
    .where("v.shopId", "=", shopId)
    .where("v.available", "=", false)
    .where("Item.purchasedAt", "is", null)
    .where((eb) =>
      eb.or([
        eb("Item.variantId", "=", eb.ref("v.variantId")),
        eb.and([
          eb("Item.variantId", "=", ""),
          eb.not(
            eb.exists(
              eb
                .selectFrom("CatalogueVariant as a")
                .select("a.variantId")
                .where("a.shopId", "=", shopId)
                .whereRef("a.productId", "=", "v.productId")
                .where("a.available", "=", true),
            ),
          ),
        ]),
      ]),
    )
    .groupBy(["v.productId", "v.variantId", "v.title", "v.inventoryQuantity"])
    .orderBy(sql`count(distinct ${sql.ref("Item.ownerKey")})`, "desc")
    .orderBy("v.productId")
    .orderBy("v.variantId")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...row, waiting: Number(row.waiting) }));
}
