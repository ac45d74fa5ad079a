/**
 * The analytics rollups' arithmetic (docs/decisions/011-analytics-rollups.md): item events folded into
 * per-day counts of products and shops, and the owners active each day.
 */
import { addProductStats, addShopStats, insertActiveOwners } from "~/data/daily-stat-rows.server";
import type { Tx } from "~/data/database.server";
import { ownerKey, type Owner } from "~/services/owners/owner";

/** UTC calendar day, YYYY-MM-DD: the rollups' key. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** An item.added / item.removed event as the rollups need it. */
export interface ItemChange {
  shopId: string;
  type: "item.added" | "item.removed";
  at: Date;
  productId: string;
  owner: Owner;
}

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
 * Folds a batch of item changes into the daily rollups, in the caller's transaction: the outbox relay
 * calls it in the same transaction that marks those events relayed, so each event is counted exactly
 * once. Changes are summed per row first, then each table is written in one statement. An owner counts
 * once a day: its DailyActiveOwner insert does nothing when it was already active.
 */
export async function applyItemChanges(tx: Tx, changes: ItemChange[]): Promise<void> {
  if (changes.length === 0) return;
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
  const active = await insertActiveOwners(
    tx,
    [...owners].map((key) => {
      const [shopId, day, owner] = JSON.parse(key) as [string, string, string];
      return { shopId, day, ownerKey: owner };
    }),
  );
  for (const { shopId, day } of active) shops.get(JSON.stringify([shopId, day]))!.newOwners++;
  await addProductStats(
    tx,
    [...products].map(([key, { adds, removes }]) => {
      const [shopId, day, productId] = JSON.parse(key) as [string, string, string];
      return { shopId, day, productId, adds, removes };
    }),
  );
  await addShopStats(
    tx,
    [...shops].map(([key, { adds, removes, newOwners }]) => {
      const [shopId, day] = JSON.parse(key) as [string, string];
      return { shopId, day, adds, removes, activeShoppers: newOwners };
    }),
  );
}

/**
 * Counts these owners active on `day` besides their saves and removals: a purchase of a saved product is
 * wishlist activity too, so a range's savers (the conversion rate's denominator) are its active shoppers,
 * buyers included, one distinct count (docs/decisions/054-distinct-shoppers.md). In the caller's transaction.
 */
export async function markOwnersActive(tx: Tx, shopId: string, day: string, owners: readonly Owner[]) {
  const keys = [...new Set(owners.map(ownerKey))];
  const added = await insertActiveOwners(
    tx,
    keys.map((key) => ({ shopId, day, ownerKey: key })),
  );
  if (added.length > 0) await addShopStats(tx, [{ shopId, day, adds: 0, removes: 0, activeShoppers: added.length }]);
}
