/**
 * Reading the shop's catalogue for the alerts (docs/decisions/050-wishlist-alerts.md): each saved product's
 * variants with their price, compare-at price, availability and stock, from the Admin API in batches of the
 * platform's `nodes(ids:)` limit. Prices arrive as decimal strings in the shop's currency and are kept in
 * minor units, with the currency's own number of digits.
 */
import type { CatalogueVariantInsert } from "~/data/catalogue-rows.server";
import type { AdminCaller } from "~/services/platform/admin-api.server";
import type { AdminData } from "~/services/platform/admin-operations";
import { toMinorUnits } from "~/lib/money";

const PRODUCT_STATES = `#graphql
  query WishlistProductStates($ids: [ID!]!) {
    shop { currencyCode }
    nodes(ids: $ids) {
      ... on Product {
        id title handle status
        featuredMedia { preview { image { url } } }
        variants(first: 100) { nodes { id title price compareAtPrice availableForSale inventoryQuantity inventoryItem { id } } }
      }
    }
  }`;

/** A product as one reading found it: null when the platform knows no such product (deleted). */
export interface ProductReading {
  productId: string;
  title: string;
  handle: string;
  variants: Array<Omit<CatalogueVariantInsert, "shopId" | "productId" | "readAt">>;
}

const gidOf = (type: string) => (id: string) => `gid://shopify/${type}/${id}`;
const idOf = (gid: string | null | undefined) => /^gid:\/\/shopify\/\w+\/(\d+)$/.exec(gid ?? "")?.[1];
export const productGid = gidOf("Product");

type Node = NonNullable<AdminData<typeof PRODUCT_STATES>["nodes"][number]>;

/**
 * Reads these products (at most NODES_PER_QUERY) in one query. A product the platform does not know is
 * answered null; the caller's errors (throttling, the platform down, the shop not connected) are thrown.
 */
export async function readProducts(
  caller: AdminCaller,
  productIds: readonly string[],
): Promise<Map<string, ProductReading | null>> {
  const data = await caller.ask("product states", PRODUCT_STATES, { ids: productIds.map(productGid) });
  const currency = data.shop.currencyCode;
  const readings = new Map<string, ProductReading | null>(productIds.map((id) => [id, null]));
  for (const node of data.nodes as Array<Node | null>) {
    if (!node || !("variants" in node)) continue;
    const productId = idOf(node.id);
    if (!productId || !readings.has(productId)) continue;
    const imageUrl = node.featuredMedia?.preview?.image?.url ?? null;
    const variants: ProductReading["variants"] = [];
    for (const variant of node.variants.nodes) {
      const variantId = idOf(variant.id);
      const priceMinor = toMinorUnits(variant.price, currency);
      if (!variantId || priceMinor === null) continue;
      variants.push({
        variantId,
        inventoryItemId: idOf(variant.inventoryItem?.id) ?? null,
        title: variant.title,
        priceMinor,
        compareAtMinor: toMinorUnits(variant.compareAtPrice, currency),
        currency,
        // A draft or archived product cannot be bought, whatever its variants say.
        available: node.status === "ACTIVE" && variant.availableForSale,
        inventoryQuantity: variant.inventoryQuantity ?? null,
        imageUrl: typeof imageUrl === "string" ? imageUrl : null,
      });
    }
    readings.set(productId, { productId, title: node.title, handle: node.handle, variants });
  }
  return readings;
}
