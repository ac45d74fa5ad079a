/**
 * Add to cart from the customer account page. The account lives on the platform's customer account domain, not
 * the shop's storefront, so the Ajax Cart API (`/cart/add.js`, which needs the storefront's cart cookie) is out
 * of reach. The storefront's cart permalink puts the saved variant in the quantity saved into the customer's
 * cart on the shop's own domain: `https://<shop>/cart/<variant id>:<quantity>[,<variant id>:<quantity>...]`.
 * An item saved without a variant has no line to add: it links to its product page, where the customer picks
 * one (docs/customer-account.md).
 */
import type { Item } from "./backend";

/** The storefront's own address: `https://<primary domain>` without a trailing slash. */
export type StorefrontUrl = string;

const cartable = (item: Item) => item.available && item.variantId !== null;

/** Where Add to cart (or the product page) takes the customer for one item; null when it is gone from the shop. */
export function itemLink(storefront: StorefrontUrl, item: Item): { href: string; addsToCart: boolean } | null {
  if (!item.available) return null;
  if (cartable(item)) return { href: `${storefront}/cart/${item.variantId}:${item.quantity}`, addsToCart: true };
  return { href: `${storefront}/products/${encodeURIComponent(item.handle)}`, addsToCart: false };
}

/** One permalink for every item of a list that has a variant and is still sold; null when none has. */
export function listCartLink(storefront: StorefrontUrl, items: readonly Item[]): string | null {
  const lines = items.filter(cartable).map((item) => `${item.variantId}:${item.quantity}`);
  return lines.length > 0 ? `${storefront}/cart/${lines.join(",")}` : null;
}
