/**
 * The analytics reports (docs/decisions/011-analytics-rollups.md; GET /v1/analytics/* in
 * docs/openapi.json), read from the daily rollups.
 */
import {
  countActiveOwners,
  countSaversOfProducts,
  findShopStats,
  topProductStats,
} from "~/data/daily-stat-rows.server";
import { database } from "~/data/database.server";
import { findCatalogueTitles } from "~/data/item-rows.server";
import { z } from "zod";
import { gatedReport } from "./report-gate.server";
import { utcDay } from "./rollups.server";

export const RANGES = { "7d": 7, "30d": 30, "90d": 90 } as const;
export type Range = keyof typeof RANGES;
/** A range as a request names it (the `range` query parameter of GET /v1/analytics/*). */
export const rangeSchema = z.enum(["7d", "30d", "90d"]);

/** The UTC days of a range ending today (inclusive), oldest first. */
export function rangeDays(range: Range, now = new Date()): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: RANGES[range] }, (_, index) =>
    utcDay(new Date(today - (RANGES[range] - 1 - index) * 86_400_000)),
  );
}

/**
 * Most saved products in the range, from the daily product rollups; for those products only, the current
 * savers (distinct shoppers holding the product now, on any of their lists) and the latest handle and title.
 */
export async function topProducts({
  shopId,
  range,
  now = new Date(),
  limit = 10,
}: {
  shopId: string;
  range: Range;
  now?: Date;
  limit?: number;
}) {
  const days = rangeDays(range, now);
  const [from, to] = [days[0]!, days.at(-1)!];
  return gatedReport(shopId, `top-products:${from}:${to}:${limit}`, async () => {
    const rows = await topProductStats(database(), shopId, from, to, limit);
    const productIds = rows.map((row) => row.productId);
    const [savers, named] = await Promise.all([
      countSaversOfProducts(database(), shopId, productIds),
      findCatalogueTitles(database(), shopId, productIds),
    ]);
    return {
      from,
      to,
      products: rows.map((row) => ({
        productId: row.productId,
        // Only the catalogue's title and handle: what a shopper sent is not the product's (decision 029).
        handle: named.get(row.productId)?.handle || null,
        title: named.get(row.productId)?.titleSnapshot || null,
        saves: row.adds,
        removes: row.removes,
        savers: savers.get(row.productId) ?? 0,
      })),
    };
  });
}

/** A zero-filled daily series of saves, removals and active shoppers, with totals for the range. */
export async function activity({ shopId, range, now = new Date() }: { shopId: string; range: Range; now?: Date }) {
  const days = rangeDays(range, now);
  const [from, to] = [days[0]!, days.at(-1)!];
  const [stats, shoppers] = await gatedReport(shopId, `activity:${from}:${to}`, () =>
    Promise.all([findShopStats(database(), shopId, from, to), countActiveOwners(database(), shopId, from, to)]),
  );
  const byDay = new Map(stats.map((stat) => [stat.day, stat]));
  const series = days.map((day) => ({
    date: day,
    adds: byDay.get(day)?.adds ?? 0,
    removes: byDay.get(day)?.removes ?? 0,
    activeShoppers: byDay.get(day)?.activeShoppers ?? 0,
  }));
  return {
    from,
    to,
    days: series,
    totals: {
      adds: series.reduce((sum, day) => sum + day.adds, 0),
      removes: series.reduce((sum, day) => sum + day.removes, 0),
      activeShoppers: shoppers,
    },
  };
}
