/**
 * The stand-in's catalogue rules, in one place for its Admin API, its storefront and its product pages: which
 * variants a product has, when one is for sale, the ids the platform gives its inventory, the image each
 * product has, and what a merchant's change to a variant does. The platform keeps price, compare-at price and
 * stock per variant, at one location here, and a product's availability follows its variants'.
 */
import type { StandInProduct, StandInShop, StandInVariant } from "./demo-data";
import { minorUnits } from "./money";

/** The shop's one location, where every inventory item is stocked (`inventory_levels/update` names it). */
export const STAND_IN_LOCATION_ID = "6100000001";

/** A product's variants: those the shop lists, or the one "Default Title" variant a product without options has. */
export function variantsOf(product: StandInProduct): StandInVariant[] {
  return product.variants ?? [{ id: product.id.replace(/^81/, "91"), title: "Default Title", price: product.price }];
}

/**
 * The platform's `availableForSale`: not switched off, and in stock where the stock is tracked (an untracked
 * variant is always for sale; the stand-in has no "continue selling when out of stock" policy).
 */
export function isAvailableForSale(variant: StandInVariant): boolean {
  return variant.available !== false && (variant.inventoryQuantity === undefined || variant.inventoryQuantity > 0);
}

/** A variant's inventory item: its id with 4 for its leading digit (9100000007 -> 4100000007), stable across runs. */
export function inventoryItemIdOf(variantId: string): string {
  return `4${variantId.slice(1)}`;
}

export function findVariant(shop: StandInShop, variantId: string) {
  for (const product of shop.products) {
    const variant = variantsOf(product).find((candidate) => candidate.id === variantId);
    if (variant) return { product, variant };
  }
  return null;
}

export function findInventoryItem(shop: StandInShop, inventoryItemId: string) {
  for (const product of shop.products) {
    const variant = variantsOf(product).find((candidate) => inventoryItemIdOf(candidate.id) === inventoryItemId);
    if (variant) return { product, variant };
  }
  return null;
}

/** Where the stand-in serves a product's image, on any of its origins, as the platform's CDN path reads. */
export const productImagePath = (product: StandInProduct) => `/cdn/shop/files/${product.handle}.svg`;

/** The image itself: a swatch of the product's colour (SVG, 800 x 800). */
export function productImageSvg(product: StandInProduct): string {
  const colour = /^#[0-9a-f]{3,8}$/i.test(product.colour) ? product.colour : "#cccccc";
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 800" width="800" height="800"><rect width="800" height="800" fill="${colour}"/></svg>`;
}

/** The product an image path names, if any. */
export function productOfImage(shop: StandInShop, file: string): StandInProduct | undefined {
  return shop.products.find((candidate) => `${candidate.handle}.svg` === file);
}

/** What a merchant may change on a variant from the product page (or a test, through `updateVariant`). */
export interface VariantChange {
  /** A decimal ("24", "24.5", "24.50"); stored with two places. */
  price?: string;
  /** As `price`; null or "" removes it. */
  compareAtPrice?: string | null;
  /** The location's stock; setting it tracks the variant's inventory. */
  inventoryQuantity?: number;
}

const DECIMAL = /^\d{1,9}(\.\d{1,2})?$/;

/** Why a change cannot be made (the platform's admin would show it beside the field), or null. */
export function refuseChange(change: VariantChange): string | null {
  if (change.price !== undefined && !DECIMAL.test(change.price)) return "The price must be an amount, such as 24.50.";
  if (change.compareAtPrice && !DECIMAL.test(change.compareAtPrice)) {
    return "The compare-at price must be an amount, such as 30.00, or empty.";
  }
  if (
    change.inventoryQuantity !== undefined &&
    (!Number.isSafeInteger(change.inventoryQuantity) || Math.abs(change.inventoryQuantity) > 1_000_000_000)
  ) {
    return "The quantity must be a whole number.";
  }
  return null;
}

/**
 * Applies a change to the shop's catalogue (its Admin API and storefront read the same objects): a product
 * without listed variants gets its "Default Title" variant written out first. Setting the stock tracks it,
 * so the stock alone decides whether the variant is for sale from then on. Throws on a change
 * `refuseChange` refuses or a variant the shop does not have.
 */
export function applyVariantChange(shop: StandInShop, variantId: string, change: VariantChange) {
  const refused = refuseChange(change);
  if (refused) throw new Error(refused);
  const found = findVariant(shop, variantId);
  if (!found) throw new Error(`No variant ${variantId} in ${shop.domain}'s catalogue`);
  const { product } = found;
  product.variants ??= variantsOf(product);
  const variant = product.variants.find((candidate) => candidate.id === variantId)!;
  if (change.price !== undefined) variant.price = Number(change.price).toFixed(2);
  if (change.compareAtPrice !== undefined) {
    if (change.compareAtPrice) variant.compareAtPrice = Number(change.compareAtPrice).toFixed(2);
    else delete variant.compareAtPrice;
  }
  if (change.inventoryQuantity !== undefined) {
    variant.inventoryQuantity = change.inventoryQuantity;
    delete variant.available;
  }
  // The product's own price is its lowest, as the storefront's "from" price reads.
  product.price = Math.min(...product.variants.map((candidate) => Number(candidate.price))).toFixed(2);
  return { product, variant };
}

/** Cents of a decimal price, as the storefront's Ajax API writes money (read as text: stand-in/money.ts). */
export const cents = (price: string) => minorUnits(price);
