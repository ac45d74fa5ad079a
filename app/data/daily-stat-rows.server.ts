/**
 * Statements on the analytics rollups (docs/decisions/011-analytics-rollups.md): `DailyProductStat` (with its
 * week and month sums, decision 055), `DailyShopStat` and `DailyActiveOwner`, keyed by shop and UTC day (`YYYY-MM-DD`). The relay adds to
 * them in the transaction that marks the events relayed; the analytics reads sum them over a range. Each
 * write takes one statement for all its rows.
 */
import { sql, type SelectQueryBuilder } from "kysely";
import { coverDays, monthOf, weekOf } from "~/lib/day-periods";
import { engine, type DB, type Queryable } from "./database.server";

export interface DayKey {
  shopId: string;
  day: string;
}

/**
 * Records these owners as active on their day, and keeps DailyOwnerReturn in step (in the caller's
 * transaction); returns those that were not yet (the rows inserted).
 * `ownerKey` is `c:<customer id>` or `a:<anonymous id>`.
 */
export async function insertActiveOwners(
  q: Queryable,
  owners: ReadonlyArray<DayKey & { ownerKey: string }>,
): Promise<Array<DayKey & { ownerKey: string }>> {
  if (owners.length === 0) return [];
  const inserted = await q
    .insertInto("DailyActiveOwner")
    .values([...owners])
    .onConflict((conflict) => conflict.doNothing())
    .returning(["shopId", "day", "ownerKey"])
    .execute();
  await recordOwnerReturns(q, inserted);
  return inserted;
}

const DAY_MS = 86_400_000;
/** The longest range counted from DailyOwnerReturn is 366 days: a previous day before `day` - 365 is as good as none. */
const RETURN_HORIZON_DAYS = 365;

const daysBefore = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);

/** Each of an owner's days (ascending) with its previous day, "" when none within the horizon. */
function returnsOf(days: readonly string[]): string[] {
  return days.map((day, index) => {
    const previous = days[index - 1];
    const previousDay = previous !== undefined && previous >= daysBefore(day, RETURN_HORIZON_DAYS) ? previous : "";
    return JSON.stringify([day, previousDay]);
  });
}

/**
 * Keeps DailyOwnerReturn in step with the owner-days just inserted (docs/decisions/054-distinct-shoppers.md):
 * per owner, the (day, previous day) pairs of their days around the new ones, before and after, and the
 * difference added. A day inserted before an owner's later day (events relayed late) moves that later day's
 * previous day too, so the counts stay exact whatever the order.
 */
async function recordOwnerReturns(
  q: Queryable,
  inserted: ReadonlyArray<{ shopId: string; day: string; ownerKey: string }>,
) {
  if (inserted.length === 0) return;
  const byShop = new Map<string, Map<string, Set<string>>>();
  for (const { shopId, day, ownerKey: key } of inserted) {
    const owners = byShop.get(shopId) ?? new Map<string, Set<string>>();
    owners.set(key, (owners.get(key) ?? new Set()).add(day));
    byShop.set(shopId, owners);
  }
  if (engine() === "postgres") {
    // Two transactions adding different days of one owner must not each read the owner's days without the
    // other's (each would count its day as the owner's first): they take the owner's lock in turn, in one
    // order, and the second reads the first's committed day. SQLite runs one writer at a time already.
    const keys = [...byShop].flatMap(([shopId, owners]) => [...owners.keys()].map((key) => `${shopId}:${key}`)).sort();
    await sql`select pg_advisory_xact_lock(hashtextextended(k, 54)) from unnest(${keys}::text[]) as k order by k`.execute(
      q,
    );
  }
  const changes = new Map<string, number>();
  for (const [shopId, owners] of byShop) {
    const earliest = [...owners.values()].flatMap((days) => [...days]).sort()[0]!;
    // Days before this one are never another day's previous day within the horizon.
    const rows = await findOwnerDays(q, shopId, [...owners.keys()], daysBefore(earliest, RETURN_HORIZON_DAYS + 1));
    const daysOf = new Map<string, string[]>();
    for (const row of rows) daysOf.set(row.ownerKey, [...(daysOf.get(row.ownerKey) ?? []), row.day]);
    for (const [key, added] of owners) {
      const after = (daysOf.get(key) ?? []).sort();
      const before = after.filter((day) => !added.has(day));
      const delta = new Map<string, number>();
      for (const pair of returnsOf(after)) delta.set(pair, (delta.get(pair) ?? 0) + 1);
      for (const pair of returnsOf(before)) delta.set(pair, (delta.get(pair) ?? 0) - 1);
      for (const [pair, owners] of delta) {
        if (owners === 0) continue;
        const change = JSON.stringify([shopId, ...(JSON.parse(pair) as [string, string])]);
        changes.set(change, (changes.get(change) ?? 0) + owners);
      }
    }
  }
  await addOwnerReturns(
    q,
    [...changes]
      .filter(([, owners]) => owners !== 0)
      .map(([key, owners]) => {
        const [shopId, day, previousDay] = JSON.parse(key) as [string, string, string];
        return { shopId, day, previousDay, owners };
      }),
  );
}

/**
 * Adds to the products' counts of their day, and of the day's week and month (rows created at these counts where
 * missing): three statements, as a range's sums read whole months and weeks (decision 055).
 */
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
  await q
    .insertInto("WeeklyProductStat")
    .values(sumByPeriod(stats, weekOf).map(({ period, ...row }) => ({ ...row, week: period })))
    .onConflict((conflict) =>
      conflict.columns(["shopId", "week", "productId"]).doUpdateSet((eb) => ({
        adds: eb("WeeklyProductStat.adds", "+", eb.ref("excluded.adds")),
        removes: eb("WeeklyProductStat.removes", "+", eb.ref("excluded.removes")),
      })),
    )
    .execute();
  await q
    .insertInto("MonthlyProductStat")
    .values(sumByPeriod(stats, monthOf).map(({ period, ...row }) => ({ ...row, month: period })))
    .onConflict((conflict) =>
      conflict.columns(["shopId", "month", "productId"]).doUpdateSet((eb) => ({
        adds: eb("MonthlyProductStat.adds", "+", eb.ref("excluded.adds")),
        removes: eb("MonthlyProductStat.removes", "+", eb.ref("excluded.removes")),
      })),
    )
    .execute();
}

/** The day rows summed by shop, product and the period `periodOf` puts their day in (one row per key: an upsert takes a key once). */
function sumByPeriod(
  stats: ReadonlyArray<DayKey & { productId: string; adds: number; removes: number }>,
  periodOf: (day: string) => string,
) {
  const sums = new Map<string, { shopId: string; period: string; productId: string; adds: number; removes: number }>();
  for (const stat of stats) {
    const period = periodOf(stat.day);
    const key = JSON.stringify([stat.shopId, period, stat.productId]);
    const sum = sums.get(key) ?? { shopId: stat.shopId, period, productId: stat.productId, adds: 0, removes: 0 };
    sum.adds += stat.adds;
    sum.removes += stat.removes;
    sums.set(key, sum);
  }
  return [...sums.values()];
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

/**
 * The shop's most saved products from `from` to `to` (days, inclusive): sums, most adds first, ties by id. Read
 * from the whole months and weeks in the range and its remaining days (`coverDays`): a year is some 11 month rows
 * per product, not 365 day rows (decision 055).
 */
export async function topProductStats(q: Queryable, shopId: string, from: string, to: string, limit: number) {
  const cover = coverDays(from, to);
  type Part = SelectQueryBuilder<
    DB,
    "DailyProductStat" | "WeeklyProductStat" | "MonthlyProductStat",
    { productId: string; adds: number; removes: number }
  >;
  const parts: Part[] = [
    ...cover.days.map(
      (span) =>
        q
          .selectFrom("DailyProductStat")
          .select(["productId", "adds", "removes"])
          .where("shopId", "=", shopId)
          .where("day", ">=", span.from)
          .where("day", "<=", span.to) as Part,
    ),
    ...(cover.weeks.length === 0
      ? []
      : [
          q
            .selectFrom("WeeklyProductStat")
            .select(["productId", "adds", "removes"])
            .where("shopId", "=", shopId)
            .where("week", "in", cover.weeks) as Part,
        ]),
    ...(cover.months.length === 0
      ? []
      : [
          q
            .selectFrom("MonthlyProductStat")
            .select(["productId", "adds", "removes"])
            .where("shopId", "=", shopId)
            .where("month", "in", cover.months) as Part,
        ]),
  ];
  const [first, ...rest] = parts;
  if (!first) return [];
  const rows = await q
    .selectFrom(rest.reduce((union, part) => union.unionAll(part), first).as("p"))
    .select((eb) => [
      "p.productId",
      eb.fn.sum<number>("p.adds").as("adds"),
      eb.fn.sum<number>("p.removes").as("removes"),
    ])
    .groupBy("p.productId")
    .orderBy((eb) => eb.fn.sum("p.adds"), "desc")
    .orderBy("p.productId")
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

/**
 * Distinct owners active from `from` to `to` (inclusive; at most 366 days): those of each day whose previous
 * active day is before `from` (DailyOwnerReturn), so each owner counts once, on their first day in the range.
 */
export async function countActiveOwners(q: Queryable, shopId: string, from: string, to: string): Promise<number> {
  const row = await q
    .selectFrom("DailyOwnerReturn")
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("owners"), sql<number>`0`).as("n"))
    .where("shopId", "=", shopId)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .where("previousDay", "<", from)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The active days from `since` on of these owners of a shop (on the `(shopId, ownerKey, day)` index). */
export function findOwnerDays(q: Queryable, shopId: string, ownerKeys: readonly string[], since: string) {
  return q
    .selectFrom("DailyActiveOwner")
    .select(["ownerKey", "day"])
    .where("shopId", "=", shopId)
    .where("ownerKey", "in", [...ownerKeys])
    .where("day", ">=", since)
    .execute();
}

/** Adds to (or, with negative counts, takes from) the owners of each day by their previous active day. */
export async function addOwnerReturns(
  q: Queryable,
  rows: ReadonlyArray<DayKey & { previousDay: string; owners: number }>,
): Promise<void> {
  if (rows.length === 0) return;
  await q
    .insertInto("DailyOwnerReturn")
    .values([...rows])
    .onConflict((conflict) =>
      conflict
        .columns(["shopId", "day", "previousDay"])
        .doUpdateSet((eb) => ({ owners: eb("DailyOwnerReturn.owners", "+", eb.ref("excluded.owners")) })),
    )
    .execute();
}

/**
 * For the top products: per product, the shoppers holding it now on any of their lists, counted on the
 * `(shopId, productId, ownerKey, …)` index of `Item` alone: shoppers, not lists (one customer with a product on
 * two of their lists is one saver), and no list read, as items keep their list's owner (retired lists hold none;
 * docs/decisions/055-demand-from-the-item-index.md). A read of `Item` for the analytics report; `Item`'s writes
 * are in its own module.
 */
export async function countSaversOfProducts(q: Queryable, shopId: string, productIds: readonly string[]) {
  const savers = new Map<string, number>();
  const unique = [...new Set(productIds)];
  // One index range per product, read in ownerKey order: its distinct owners are counted as they stream (one
  // `IN` over all products had the database sort their 100,000s of items first; decision 055). 100 products a
  // statement keeps within SQLite's limit on a compound select.
  for (let start = 0; start < unique.length; start += 100) {
    const perProduct = unique
      .slice(start, start + 100)
      .map(
        (productId) =>
          sql`select ${productId} as "productId", (select count(*) from (select distinct "ownerKey" from "Item" where "shopId" = ${shopId} and "productId" = ${productId}) as "owners") as "savers"`,
      );
    const { rows } = await sql<{
      productId: string;
      savers: number;
    }>`${sql.join(perProduct, sql` union all `)}`.execute(q);
    for (const row of rows) if (Number(row.savers) > 0) savers.set(row.productId, Number(row.savers));
  }
  return savers;
}
