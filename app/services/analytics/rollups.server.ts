import type { SqlRunner } from "~/sql.server";
import type { Owner } from "~/services/wishlists/owner";

/** UTC calendar day, YYYY-MM-DD: the rollups' key. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function ownerKey(owner: Owner): string {
  return owner.kind === "customer" ? `c:${owner.customerId}` : `a:${owner.anonymousId}`;
}

/** An item.added / item.removed event as the rollups need it. */
export interface ItemChange {
  shopId: string;
  type: "item.added" | "item.removed";
  at: Date;
  productId: string;
  owner: Owner;
}

const PRODUCT_STAT = `INSERT INTO "DailyProductStat" ("shopId", "day", "productId", "adds", "removes") VALUES (?, ?, ?, ?, ?)
  ON CONFLICT ("shopId", "day", "productId") DO UPDATE SET
    "adds" = "DailyProductStat"."adds" + excluded."adds", "removes" = "DailyProductStat"."removes" + excluded."removes"`;
const ACTIVE_OWNER = `INSERT INTO "DailyActiveOwner" ("shopId", "day", "ownerKey") VALUES (?, ?, ?) ON CONFLICT DO NOTHING`;
const SHOP_STAT = `INSERT INTO "DailyShopStat" ("shopId", "day", "adds", "removes", "activeShoppers") VALUES (?, ?, ?, ?, ?)
  ON CONFLICT ("shopId", "day") DO UPDATE SET
    "adds" = "DailyShopStat"."adds" + excluded."adds", "removes" = "DailyShopStat"."removes" + excluded."removes",
    "activeShoppers" = "DailyShopStat"."activeShoppers" + excluded."activeShoppers"`;

interface Counts {
  adds: number;
  removes: number;
}

function bump(map: Map<string, Counts>, key: string, change: ItemChange) {
  const counts = map.get(key) ?? { adds: 0, removes: 0 };
  if (change.type === "item.added") counts.adds++;
  else counts.removes++;
  map.set(key, counts);
}

/**
 * Folds a batch of item changes into the daily rollups (decision 011), in the caller's transaction: the
 * outbox relay calls it in the same transaction that marks those events relayed, so each event is counted
 * exactly once. Changes are summed per row first, so a busy shop's day row is written once per batch.
 * An owner counts once a day: its DailyActiveOwner insert does nothing when it was already active.
 */
export async function applyItemChanges(tx: SqlRunner, changes: ItemChange[]): Promise<void> {
  const products = new Map<string, Counts>();
  const shops = new Map<string, Counts & { newOwners: number }>();
  const owners = new Set<string>();
  for (const change of changes) {
    const day = utcDay(change.at);
    bump(products, JSON.stringify([change.shopId, day, change.productId]), change);
    const shopKey = JSON.stringify([change.shopId, day]);
    if (!shops.has(shopKey)) shops.set(shopKey, { adds: 0, removes: 0, newOwners: 0 });
    bump(shops, shopKey, change);
    owners.add(JSON.stringify([change.shopId, day, ownerKey(change.owner)]));
  }
  for (const key of owners) {
    const [shopId, day, owner] = JSON.parse(key) as [string, string, string];
    if ((await tx.run(ACTIVE_OWNER, [shopId, day, owner])) > 0) shops.get(JSON.stringify([shopId, day]))!.newOwners++;
  }
  for (const [key, { adds, removes }] of products) {
    const [shopId, day, productId] = JSON.parse(key) as [string, string, string];
    await tx.run(PRODUCT_STAT, [shopId, day, productId, adds, removes]);
  }
  for (const [key, { adds, removes, newOwners }] of shops) {
    const [shopId, day] = JSON.parse(key) as [string, string];
    await tx.run(SHOP_STAT, [shopId, day, adds, removes, newOwners]);
  }
}
