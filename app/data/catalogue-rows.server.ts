/**
 * Statements on `CatalogueVariant` and `ProductRefresh` (docs/decisions/050-wishlist-alerts.md): the shop's
 * catalogue as the alerts last read it, and the saved products due for another reading. Every function takes
 * the handle to run on and the shop id that scopes it, but for the sweeps, which look across shops by design.
 */
import type { Insertable, Selectable } from "kysely";
import type { DB, Queryable } from "./database.server";

export type CatalogueVariantRow = Selectable<DB["CatalogueVariant"]>;
export type CatalogueVariantInsert = Insertable<DB["CatalogueVariant"]>;

/** The stored readings of these products' variants. */
export function findCatalogueVariants(
  q: Queryable,
  shopId: string,
  productIds: readonly string[],
): Promise<CatalogueVariantRow[]> {
  if (productIds.length === 0) return Promise.resolve([]);
  return q
    .selectFrom("CatalogueVariant")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("productId", "in", productIds)
    .orderBy("variantId")
    .execute();
}

/**
 * Replaces the stored reading of one product with this one: its variants' rows are written, and the rows of
 * variants the product no longer has are deleted.
 */
export async function replaceProductReading(
  q: Queryable,
  shopId: string,
  productId: string,
  variants: readonly CatalogueVariantInsert[],
): Promise<void> {
  const ids = variants.map((variant) => variant.variantId);
  let gone = q.deleteFrom("CatalogueVariant").where("shopId", "=", shopId).where("productId", "=", productId);
  if (ids.length > 0) gone = gone.where("variantId", "not in", ids);
  await gone.execute();
  for (let start = 0; start < variants.length; start += 100) {
    await q
      .insertInto("CatalogueVariant")
      .values(variants.slice(start, start + 100).map((variant) => ({ ...variant, shopId, productId })))
      .onConflict((conflict) =>
        conflict.columns(["shopId", "variantId"]).doUpdateSet((eb) => ({
          productId: eb.ref("excluded.productId"),
          inventoryItemId: eb.ref("excluded.inventoryItemId"),
          title: eb.ref("excluded.title"),
          priceMinor: eb.ref("excluded.priceMinor"),
          compareAtMinor: eb.ref("excluded.compareAtMinor"),
          currency: eb.ref("excluded.currency"),
          available: eb.ref("excluded.available"),
          inventoryQuantity: eb.ref("excluded.inventoryQuantity"),
          imageUrl: eb.ref("excluded.imageUrl"),
          readAt: eb.ref("excluded.readAt"),
        })),
      )
      .execute();
  }
}

/** Forgets a product's reading (the product was deleted from the shop). */
export async function deleteProductReading(q: Queryable, shopId: string, productIds: readonly string[]) {
  if (productIds.length === 0) return;
  await q.deleteFrom("CatalogueVariant").where("shopId", "=", shopId).where("productId", "in", productIds).execute();
}

/** The products of these inventory items, as last read (inventory_levels/update names the item only). */
export async function findProductsOfInventoryItems(
  q: Queryable,
  shopId: string,
  inventoryItemIds: readonly string[],
): Promise<string[]> {
  if (inventoryItemIds.length === 0) return [];
  const rows = await q
    .selectFrom("CatalogueVariant")
    .select("productId")
    .distinct()
    .where("shopId", "=", shopId)
    .where("inventoryItemId", "in", inventoryItemIds)
    .execute();
  return rows.map((row) => row.productId);
}

/** Asks for another reading of these products: the request time moves on, never back. */
export async function requestProductRefresh(
  q: Queryable,
  shopId: string,
  productIds: readonly string[],
  at: Date,
): Promise<void> {
  if (productIds.length === 0) return;
  await q
    .insertInto("ProductRefresh")
    .values([...new Set(productIds)].map((productId) => ({ shopId, productId, requestedAt: at })))
    .onConflict((conflict) => conflict.columns(["shopId", "productId"]).doUpdateSet({ requestedAt: at }))
    .execute();
}

/** The shop's products due for a reading, longest waiting first. */
export function findDueRefreshes(q: Queryable, shopId: string, { limit }: { limit: number }) {
  return q
    .selectFrom("ProductRefresh")
    .select(["productId", "requestedAt"])
    .where("shopId", "=", shopId)
    .orderBy("requestedAt")
    .orderBy("productId")
    .limit(limit)
    .execute();
}

/**
 * Ends the refresh of a product read at `readAt` or later: a request made after the reading began (another
 * change came meanwhile) stays, so the product is read again.
 */
export async function finishRefresh(q: Queryable, shopId: string, productId: string, readStartedAt: Date) {
  await q
    .deleteFrom("ProductRefresh")
    .where("shopId", "=", shopId)
    .where("productId", "=", productId)
    .where("requestedAt", "<=", readStartedAt)
    .execute();
}

/** Puts off the shop's waiting readings until `until` (the platform cannot be asked for the shop now). */
export async function postponeRefreshes(q: Queryable, shopId: string, { until }: { until: Date }): Promise<number> {
  const result = await q
    .updateTable("ProductRefresh")
    .set({ requestedAt: until })
    .where("shopId", "=", shopId)
    .where("requestedAt", "<", until)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Installed shops with products due for a reading since `before` (the sweep; across shops by design). */
export async function findShopsWithDueRefreshes(
  q: Queryable,
  { before, limit }: { before: Date; limit: number },
): Promise<string[]> {
  const rows = await q
    .selectFrom("Shop")
    .select("Shop.id")
    .where("Shop.uninstalledAt", "is", null)
    .where("Shop.id", "in", (eb) =>
      eb.selectFrom("ProductRefresh").select("ProductRefresh.shopId").where("ProductRefresh.requestedAt", "<=", before),
    )
    .orderBy("Shop.id")
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Products read before `before` that someone still has saved, across shops (the reconciliation for
 * webhooks the platform never delivered): at most `limit`, read longest ago first.
 */
export async function findStaleReadings(
  q: Queryable,
  { before, limit }: { before: Date; limit: number },
): Promise<Array<{ shopId: string; productId: string }>> {
  return q
    .selectFrom("CatalogueVariant")
    .innerJoin("Shop", "Shop.id", "CatalogueVariant.shopId")
    .select(["CatalogueVariant.shopId", "CatalogueVariant.productId"])
    .distinct()
    .where("CatalogueVariant.readAt", "<", before)
    .where("Shop.uninstalledAt", "is", null)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom("Item")
          .select("Item.id")
          .whereRef("Item.shopId", "=", "CatalogueVariant.shopId")
          .whereRef("Item.productId", "=", "CatalogueVariant.productId"),
      ),
    )
    .limit(limit)
    .execute();
}

/** Readings of products nobody has saved any more: kept no longer than a day after their last reading. */
export async function deleteUnsavedReadings(q: Queryable, { before }: { before: Date }): Promise<number> {
  const result = await q
    .deleteFrom("CatalogueVariant")
    .where("readAt", "<", before)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("Item")
            .select("Item.id")
            .whereRef("Item.shopId", "=", "CatalogueVariant.shopId")
            .whereRef("Item.productId", "=", "CatalogueVariant.productId"),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Up to `limit` products of the shop's catalogue as last read, the most recently read first, each with one
 * variant (an available one if it has any): sample products for the alert emails' preview and test.
 */
export async function findSampleCatalogueVariants(
  q: Queryable,
  shopId: string,
  limit: number,
): Promise<CatalogueVariantRow[]> {
  // A bounded read on the shop's rows: a few variants per product is plenty to find `limit` products.
  const rows = await q
    .selectFrom("CatalogueVariant")
    .selectAll()
    .where("shopId", "=", shopId)
    .orderBy("readAt", "desc")
    .orderBy("variantId")
    .limit(limit * 20)
    .execute();
  const chosen = new Map<string, CatalogueVariantRow>();
  for (const row of rows) {
    const held = chosen.get(row.productId);
    if (!held) {
      if (chosen.size < limit) chosen.set(row.productId, row);
    } else if (!held.available && row.available) chosen.set(row.productId, row);
  }
  return [...chosen.values()];
}
