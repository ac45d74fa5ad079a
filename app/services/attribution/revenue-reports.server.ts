/**
 * What wishlists earned (docs/decisions/052-attribution.md): the conversions report and the demand report, one
 * home for the figures the admin's Insights and Home pages and the private API's reports show, so that they
 * always agree. Read from the daily conversion rollups, but for two distinct counts (buyers from the
 * conversions; savers from the analytics' active owners and those buyers: a buyer saved what they bought, if
 * before the range, so the rate never exceeds 1), gated as the analytics reports are.
 *
 * Money is summed per currency, exactly (integers of minor units): a shop that changed its currency has
 * figures in each. `currency` names the one with the most revenue in the range (the shop's, in practice), in
 * which the series and the top products are given.
 */
import {
  countBuyers,
  countConversionLinesOfProducts,
  findConversionOrders,
  findWaitingForRestock,
  pageConversions,
  sumConversionDelays,
  sumConversionStatsByDay,
  sumConversionStatsBySource,
  topConvertingProducts,
  type ConversionRow,
} from "~/data/conversion-rows.server";
import { countActiveOwners, countSaversOfProducts, topProductStats } from "~/data/daily-stat-rows.server";
import { database } from "~/data/database.server";
import { findCatalogueTitles } from "~/data/item-rows.server";
import { DomainError } from "~/lib/domain-error";
import { gatedReport } from "~/services/analytics/report-gate.server";
import { utcDay } from "~/services/analytics/rollups.server";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The longest custom range: a year and a day, so that "the last 12 months" fits whatever the leap years. */
export const MAX_RANGE_DAYS = 366;
export const PRESET_RANGES = { "7d": 7, "30d": 30, "90d": 90 } as const;
export type PresetRange = keyof typeof PRESET_RANGES;

/** Where alerts and reminders come from, as a conversion's `source` names them; "" is no followed link. */
export const SOURCES = ["back_in_stock", "price_dropped", "low_stock", "reminder"] as const;

/** A range of UTC days, both ends included. */
export interface DayRange {
  from: string;
  to: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function isDay(value: string): boolean {
  return DAY.test(value) && utcDay(new Date(`${value}T00:00:00Z`)) === value;
}

/**
 * The range a request names: a preset ending today (UTC, today included), or `from` and `to` (days, both
 * included, at most MAX_RANGE_DAYS, not after today). Refused (`invalid`) otherwise.
 */
export function resolveRange(
  { range, from, to }: { range?: PresetRange; from?: string; to?: string },
  now = new Date(),
): DayRange {
  const today = utcDay(now);
  if (from === undefined && to === undefined) {
    const days = PRESET_RANGES[range ?? "30d"];
    return { from: utcDay(new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1) * DAY_MS)), to: today };
  }
  if (range !== undefined) throw invalidRange("range", "Name either a range or from and to, not both.");
  if (from === undefined || to === undefined) {
    throw invalidRange(from === undefined ? "from" : "to", "A custom range needs both from and to.");
  }
  if (!isDay(from) || !isDay(to)) {
    throw invalidRange(isDay(from) ? "to" : "from", "from and to are calendar days, YYYY-MM-DD.");
  }
  if (from > to) throw invalidRange("from", "from is after to.");
  if (to > today) throw invalidRange("to", `to is after today (${today}, UTC).`);
  if (daysOf({ from, to }).length > MAX_RANGE_DAYS) {
    throw invalidRange("from", `A range spans at most ${MAX_RANGE_DAYS} days.`);
  }
  return { from, to };
}

/** A refused range, naming the input member at fault (`issues`), so that the API's 400 names the parameter. */
function invalidRange(field: "range" | "from" | "to", message: string) {
  return new DomainError("invalid", message, { issues: [{ field, message }] });
}

/** The range's days, oldest first. */
export function daysOf({ from, to }: DayRange): string[] {
  const days: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= end && days.length <= MAX_RANGE_DAYS; at += DAY_MS) {
    days.push(utcDay(new Date(at)));
  }
  return days;
}

/** The range as times: from its first day's start to the day after its last (exclusive). */
function timesOf({ from, to }: DayRange) {
  return { start: new Date(`${from}T00:00:00Z`), end: new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS) };
}

/** The median of a histogram of whole days (the mean of the two middle values for an even count). */
export function medianOfHistogram(histogram: ReadonlyArray<{ days: number; lines: number }>): number | null {
  const sorted = histogram.filter((bucket) => bucket.lines > 0).sort((a, b) => a.days - b.days);
  const total = sorted.reduce((sum, bucket) => sum + bucket.lines, 0);
  if (total === 0) return null;
  const at = (rank: number) => {
    let seen = 0;
    for (const bucket of sorted) {
      seen += bucket.lines;
      if (seen >= rank) return bucket.days;
    }
    return sorted.at(-1)!.days;
  };
  return total % 2 === 1 ? at((total + 1) / 2) : (at(total / 2) + at(total / 2 + 1)) / 2;
}

interface Money {
  currency: string;
  grossMinor: number;
  refundedMinor: number;
  netMinor: number;
}

const money = (currency: string, grossMinor: number, refundedMinor: number): Money => ({
  currency,
  grossMinor,
  refundedMinor,
  netMinor: grossMinor - refundedMinor,
});

/** The conversions report of the shop for the range. */
export async function conversionReport(shopId: string, range: DayRange) {
  const { from, to } = range;
  const { start, end } = timesOf(range);
  const [bySource, byDay, orders, delays, buyers, savers] = await gatedReport(shopId, `conversions:${from}:${to}`, () =>
    Promise.all([
      sumConversionStatsBySource(database(), shopId, from, to),
      sumConversionStatsByDay(database(), shopId, from, to),
      findConversionOrders(database(), shopId, from, to),
      sumConversionDelays(database(), shopId, from, to),
      countBuyers(database(), shopId, start, end),
      // The range's active shoppers: who saved, removed or bought from a wishlist in it (decision 054).
      countActiveOwners(database(), shopId, from, to),
    ]),
  );
  const totals = new Map<string, { gross: number; refunded: number }>();
  let lines = 0;
  let quantity = 0;
  for (const row of bySource) {
    const total = totals.get(row.currency) ?? { gross: 0, refunded: 0 };
    total.gross += Number(row.revenueMinor);
    total.refunded += Number(row.refundedMinor);
    totals.set(row.currency, total);
    lines += Number(row.lines);
    quantity += Number(row.quantity);
  }
  const revenue = [...totals]
    .map(([currency, { gross, refunded }]) => money(currency, gross, refunded))
    .sort((a, b) => b.netMinor - a.netMinor || b.grossMinor - a.grossMinor || a.currency.localeCompare(b.currency));
  const currency = revenue[0]?.currency ?? null;

  const sources = ["", ...SOURCES].flatMap((source) =>
    revenue.map(({ currency: code }) => {
      const rows = bySource.filter((row) => row.source === source && row.currency === code);
      return {
        source: source === "" ? ("none" as const) : source,
        ...money(
          code,
          rows.reduce((sum, row) => sum + Number(row.revenueMinor), 0),
          rows.reduce((sum, row) => sum + Number(row.refundedMinor), 0),
        ),
        lines: rows.reduce((sum, row) => sum + Number(row.lines), 0),
      };
    }),
  );

  const ordersByDay = new Map(orders.map((row) => [row.day, row]));
  const revenueByDay = new Map(
    byDay
      .filter((row) => row.currency === currency)
      .map((row) => [row.day, Number(row.revenueMinor) - Number(row.refundedMinor)]),
  );
  const days = daysOf(range).map((day) => ({
    date: day,
    netMinor: revenueByDay.get(day) ?? 0,
    orders: (ordersByDay.get(day)?.orders ?? 0) - (ordersByDay.get(day)?.cancelled ?? 0),
  }));
  const placed = orders.reduce((sum, row) => sum + row.orders, 0);
  const cancelled = orders.reduce((sum, row) => sum + row.cancelled, 0);

  const top = currency ? await topConvertingProducts(database(), shopId, from, to, currency, 10) : [];
  const titles = await findCatalogueTitles(
    database(),
    shopId,
    top.map((row) => row.productId),
  );

  return {
    from,
    to,
    currency,
    revenue,
    orders: { placed, cancelled, net: placed - cancelled },
    lines,
    quantity,
    buyers,
    savers,
    /** Savers who bought / savers; null with no savers. */
    conversionRate: savers === 0 ? null : Math.round((buyers / savers) * 10_000) / 10_000,
    medianDaysToPurchase: medianOfHistogram(delays.map((row) => ({ days: row.days, lines: Number(row.lines) }))),
    bySource: sources,
    days,
    topProducts: top.map((row) => ({
      productId: row.productId,
      handle: titles.get(row.productId)?.handle || null,
      title: titles.get(row.productId)?.titleSnapshot || null,
      lines: Number(row.lines),
      quantity: Number(row.quantity),
      ...money(currency!, Number(row.revenueMinor), Number(row.refundedMinor)),
    })),
  };
}

export type ConversionReport = Awaited<ReturnType<typeof conversionReport>>;

/** Below this share of its saves turned into purchases, a product counts as "saved often, rarely bought". */
export const RARELY_BOUGHT_RATE = 0.1;
const DEMAND_CANDIDATES = 200;
const RARELY_BOUGHT_ROWS = 20;

/**
 * The demand report: the range's most saved products that were rarely bought, and the saved products out of
 * stock now with how many shoppers wait for each (the restock list; up to `restockLimit` rows).
 */
export async function demandReport(shopId: string, range: DayRange, { restockLimit = 50 } = {}) {
  const { from, to } = range;
  return gatedReport(shopId, `demand:${from}:${to}:${restockLimit}`, async () => {
    // The rarely bought products and the restock list read different tables: side by side.
    const rarelyBought = async () => {
      const saved = await topProductStats(database(), shopId, from, to, DEMAND_CANDIDATES);
      // The savers of the most saved products are read while their purchases are counted: those are usually
      // the rarely bought ones (the savers of any other that makes the list are read after).
      const likely = saved.slice(0, RARELY_BOUGHT_ROWS).map((row) => row.productId);
      const [bought, likelySavers] = await Promise.all([
        countConversionLinesOfProducts(
          database(),
          shopId,
          from,
          to,
          saved.map((row) => row.productId),
        ),
        countSaversOfProducts(database(), shopId, likely),
      ]);
      const rows = saved
        .map((row) => {
          const purchases = bought.get(row.productId) ?? 0;
          return { productId: row.productId, saves: row.adds, purchases, purchaseRate: purchases / row.adds };
        })
        .filter((row) => row.saves > 0 && row.purchaseRate < RARELY_BOUGHT_RATE)
        .slice(0, RARELY_BOUGHT_ROWS);
      const others = rows.map((row) => row.productId).filter((productId) => !likely.includes(productId));
      const savers = new Map([...likelySavers, ...(await countSaversOfProducts(database(), shopId, others))]);
      return rows.map((row) => ({ ...row, savers: savers.get(row.productId) ?? 0 }));
    };
    const [rarely, restock] = await Promise.all([
      rarelyBought(),
      findWaitingForRestock(database(), shopId, restockLimit),
    ]);
    const titles = await findCatalogueTitles(database(), shopId, [
      ...new Set([...rarely.map((row) => row.productId), ...restock.map((row) => row.productId)]),
    ]);
    const named = (productId: string) => ({
      handle: titles.get(productId)?.handle || null,
      title: titles.get(productId)?.titleSnapshot || null,
    });
    return {
      from,
      to,
      rarelyBought: rarely.map((row) => ({
        productId: row.productId,
        ...named(row.productId),
        saves: row.saves,
        purchases: row.purchases,
        purchaseRate: Math.round(row.purchaseRate * 10_000) / 10_000,
        savers: row.savers,
      })),
      restock: restock.map((row) => ({
        productId: row.productId,
        variantId: row.variantId,
        ...named(row.productId),
        variantTitle: row.variantTitle,
        inventoryQuantity: row.inventoryQuantity,
        waiting: row.waiting,
      })),
    };
  });
}

export type DemandReport = Awaited<ReturnType<typeof demandReport>>;

/** A conversion as the API and the exports show it: the order's ids are the merchant's own, for reconciliation. */
export function conversionView(row: ConversionRow) {
  return {
    id: row.id,
    orderId: row.orderId,
    lineItemId: row.lineItemId,
    productId: row.productId,
    variantId: row.variantId === "" ? null : row.variantId,
    buyer: row.customerId
      ? { type: "customer" as const, customerId: row.customerId }
      : { type: "anonymous" as const, customerId: null },
    quantity: row.quantity,
    amount: { currency: row.currency, minor: row.amountMinor },
    presentmentAmount: { currency: row.presentmentCurrency, minor: row.presentmentAmountMinor },
    refunded: {
      quantity: row.refundedQuantity,
      minor: row.refundedMinor,
      presentmentMinor: row.presentmentRefundedMinor,
    },
    savedAt: row.savedAt.toISOString(),
    orderedAt: row.orderedAt.toISOString(),
    daysToPurchase: row.days,
    source: row.source === "" ? null : row.source,
    cancelledAt: row.cancelledAt?.toISOString() ?? null,
  };
}

/** A page of the range's conversions, newest first; `cursor` continues after the last one shown. */
export async function listConversions(
  shopId: string,
  range: DayRange,
  { after, limit }: { after: { orderedAt: Date; id: string } | null; limit: number },
) {
  const { start, end } = timesOf(range);
  const rows = await pageConversions(database(), shopId, { from: start, to: end, after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(conversionView),
    next: rows.length > limit && last ? { orderedAt: last.orderedAt, id: last.id } : null,
  };
}
