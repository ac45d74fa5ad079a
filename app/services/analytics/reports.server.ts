import { prisma } from "~/db.server";
import { Prisma } from "~/generated/prisma-sqlite/client";
import { utcDay } from "./rollups.server";

export const RANGES = { "7d": 7, "30d": 30, "90d": 90 } as const;
export type Range = keyof typeof RANGES;

/** The UTC days of a range ending today (inclusive), oldest first. */
export function rangeDays(range: Range, now = new Date()): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: RANGES[range] }, (_, index) =>
    utcDay(new Date(today - (RANGES[range] - 1 - index) * 86_400_000)),
  );
}

/**
 * Most saved products in the range, from the daily product rollups; for those products only, the current
 * savers (distinct lists holding the product now) and the latest handle and title.
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
  const rows = await prisma.dailyProductStat.groupBy({
    by: ["productId"],
    where: { shopId, day: { gte: days[0]!, lte: days.at(-1)! } },
    _sum: { adds: true, removes: true },
    orderBy: [{ _sum: { adds: "desc" } }, { productId: "asc" }],
    take: limit,
  });
  const productIds = rows.map((row) => row.productId);
  if (productIds.length === 0) return { from: days[0]!, to: days.at(-1)!, products: [] };
  const [savers, latest] = await Promise.all([
    prisma.$queryRaw<Array<{ productId: string; savers: number | bigint }>>`
      SELECT "productId", COUNT(DISTINCT "listId") AS "savers" FROM "Item"
      WHERE "shopId" = ${shopId} AND "productId" IN (${Prisma.join(productIds)})
      GROUP BY "productId"`,
    prisma.item.findMany({
      where: { shopId, productId: { in: productIds } },
      distinct: ["productId"],
      orderBy: [{ productId: "asc" }, { addedAt: "desc" }],
      select: { productId: true, handle: true, titleSnapshot: true },
    }),
  ]);
  const saversBy = new Map(savers.map((row) => [row.productId, Number(row.savers)]));
  const latestBy = new Map(latest.map((row) => [row.productId, row]));
  return {
    from: days[0]!,
    to: days.at(-1)!,
    products: rows.map((row) => ({
      productId: row.productId,
      handle: latestBy.get(row.productId)?.handle ?? null,
      title: latestBy.get(row.productId)?.titleSnapshot || null,
      saves: row._sum.adds ?? 0,
      removes: row._sum.removes ?? 0,
      savers: saversBy.get(row.productId) ?? 0,
    })),
  };
}

/** A zero-filled daily series of saves, removals and active shoppers, with totals for the range. */
export async function activity({ shopId, range, now = new Date() }: { shopId: string; range: Range; now?: Date }) {
  const days = rangeDays(range, now);
  const where = { shopId, day: { gte: days[0]!, lte: days.at(-1)! } };
  const [stats, distinct] = await Promise.all([
    prisma.dailyShopStat.findMany({ where }),
    prisma.$queryRaw<Array<{ shoppers: number | bigint }>>`
      SELECT COUNT(DISTINCT "ownerKey") AS "shoppers" FROM "DailyActiveOwner"
      WHERE "shopId" = ${shopId} AND "day" >= ${days[0]!} AND "day" <= ${days.at(-1)!}`,
  ]);
  const byDay = new Map(stats.map((stat) => [stat.day, stat]));
  const series = days.map((day) => ({
    date: day,
    adds: byDay.get(day)?.adds ?? 0,
    removes: byDay.get(day)?.removes ?? 0,
    activeShoppers: byDay.get(day)?.activeShoppers ?? 0,
  }));
  return {
    from: days[0]!,
    to: days.at(-1)!,
    days: series,
    totals: {
      adds: series.reduce((sum, day) => sum + day.adds, 0),
      removes: series.reduce((sum, day) => sum + day.removes, 0),
      activeShoppers: Number(distinct[0]?.shoppers ?? 0),
    },
  };
}
