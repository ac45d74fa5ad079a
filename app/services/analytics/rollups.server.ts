import type { Prisma } from "~/db.server";
import type { Owner } from "~/services/wishlists/owner";

/** UTC calendar day, YYYY-MM-DD: the rollups' key. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * Keeps the daily rollups in step with item.added / item.removed, inside the change's transaction
 * (decision 011). The active-owner row is inserted with ON CONFLICT DO NOTHING (same SQL on SQLite and
 * PostgreSQL); its row count says whether this owner is new today.
 */
export async function recordItemChange(
  tx: Prisma.TransactionClient,
  {
    shopId,
    owner,
    productId,
    type,
    at,
  }: { shopId: string; owner: Owner; productId: string; type: "item.added" | "item.removed"; at: Date },
) {
  const day = utcDay(at);
  const adds = type === "item.added" ? 1 : 0;
  const removes = 1 - adds;
  await tx.dailyProductStat.upsert({
    where: { shopId_day_productId: { shopId, day, productId } },
    create: { shopId, day, productId, adds, removes },
    update: { adds: { increment: adds }, removes: { increment: removes } },
  });
  const ownerKey = owner.kind === "customer" ? `c:${owner.customerId}` : `a:${owner.anonymousId}`;
  const newToday =
    await tx.$executeRaw`INSERT INTO "DailyActiveOwner" ("shopId", "day", "ownerKey") VALUES (${shopId}, ${day}, ${ownerKey}) ON CONFLICT DO NOTHING`;
  await tx.dailyShopStat.upsert({
    where: { shopId_day: { shopId, day } },
    create: { shopId, day, adds, removes, activeShoppers: newToday },
    update: { adds: { increment: adds }, removes: { increment: removes }, activeShoppers: { increment: newToday } },
  });
}
