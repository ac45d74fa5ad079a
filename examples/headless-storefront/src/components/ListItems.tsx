import type { components } from "@wishlist-service/sdk";
import { useState, type ReactNode } from "react";
import { describeError } from "../shopper";
import { createCheckout, formatMoney, productIdOf, type Product, type ProductVariant } from "../storefront-api";

type Item = components["schemas"]["Item"];

/**
 * The variant of a saved item that a cart gets: the one saved, else the product's first for sale; null when none
 * can be bought (sold out, or the shop no longer has the product).
 */
function variantFor(item: Item, product: Product | undefined): ProductVariant | null {
  if (!product) return null;
  const saved = item.variantId
    ? product.variants.nodes.find((variant) => productIdOf(variant.id) === item.variantId)
    : undefined;
  const variant = saved ?? product.variants.nodes.find((candidate) => candidate.availableForSale);
  return variant?.availableForSale ? variant : null;
}

/**
 * A list's items with their products from the Storefront API, "Add to cart" for one and "Add all to cart", and
 * "Remove" where the shopper may change the list. Adding makes a cart with the Storefront API and sends the shopper
 * to its checkout URL, with `cartAttributes` on the cart (a guest's `_wishlist_list`, which matches the order to
 * the guest's saves).
 */
export function ListItems({
  name,
  items,
  products,
  cartAttributes = [],
  onRemove,
  children,
}: {
  name: string;
  items: Item[];
  products: Map<string, Product> | null;
  cartAttributes?: Array<{ key: string; value: string }>;
  onRemove?: (item: Item) => Promise<void>;
  /** More actions on the list, beside "Add all to cart". */
  children?: ReactNode;
}) {
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function checkout(chosen: Item[]) {
    const lines = chosen.flatMap((item) => {
      const variant = variantFor(item, products?.get(item.productId));
      return variant ? [{ variantId: variant.id, quantity: item.quantity }] : [];
    });
    setBusy(true);
    setFailure(null);
    try {
      const { checkoutUrl } = await createCheckout(lines, cartAttributes);
      window.location.assign(checkoutUrl);
    } catch (error) {
      setFailure(`The cart could not be made: ${describeError(error)}`);
      setBusy(false);
    }
  }

  async function remove(item: Item) {
    setFailure(null);
    try {
      await onRemove?.(item);
    } catch (error) {
      setFailure(`Not removed: ${describeError(error)}`);
    }
  }

  if (items.length === 0) return <p>Nothing saved here yet: tap a heart on the products page.</p>;
  const buyable = items.filter((item) => variantFor(item, products?.get(item.productId)));
  return (
    <>
      {failure && <p role="alert">{failure}</p>}
      <ul className="items">
        {items.map((item) => {
          const product = products?.get(item.productId);
          const variant = variantFor(item, product);
          const title = product?.title ?? item.titleSnapshot ?? item.handle;
          return (
            <li key={item.id} className="item">
              {product?.featuredImage && (
                <img className="item__image" src={product.featuredImage.url} width={64} height={64} alt="" />
              )}
              <div className="item__text">
                <h3 className="item__title">{title}</h3>
                <p className="item__price">
                  {variant
                    ? formatMoney(variant.price)
                    : products === null
                      ? "…"
                      : product
                        ? "Sold out"
                        : "No longer available"}
                  {item.quantity > 1 ? ` · ${item.quantity} wanted` : ""}
                </p>
              </div>
              <button
                type="button"
                className="button"
                disabled={!variant || busy}
                aria-label={`Add to cart: ${title}`}
                onClick={() => void checkout([item])}
              >
                Add to cart
              </button>
              {onRemove && (
                <button
                  type="button"
                  className="button button--secondary"
                  aria-label={`Remove: ${title}`}
                  onClick={() => void remove(item)}
                >
                  Remove
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <div className="list-actions">
        <button
          type="button"
          className="button"
          disabled={buyable.length === 0 || busy}
          aria-label={`Add all to cart: ${name}`}
          onClick={() => void checkout(buyable)}
        >
          Add all to cart
        </button>
        {children}
      </div>
    </>
  );
}
