import { useWishlist } from "@wishlist-service/sdk/react";
import { productIdOf, type Product } from "../storefront-api";

/**
 * A heart that saves the product to the shopper's wishlist, or removes it: the SDK's `toggle` shows the change at
 * once and rolls it back if the service refuses it (the page shows `error`). `aria-pressed` says whether it is saved.
 */
export function Heart({ product }: { product: Product }) {
  const { has, toggle } = useWishlist();
  const productId = productIdOf(product.id);
  const saved = has(productId);
  return (
    <button
      type="button"
      className="heart"
      aria-pressed={saved}
      aria-label={`Save ${product.title}`}
      onClick={() => void toggle({ productId, handle: product.handle, title: product.title })}
    >
      <svg aria-hidden="true" viewBox="0 0 24 24" width="22" height="22">
        <path d="M12 21s-7.5-4.6-9.6-9.2C1 8.6 3 5 6.5 5c2 0 3.4 1.1 4.3 2.4l1.2 1.6 1.2-1.6C14.1 6.1 15.5 5 17.5 5 21 5 23 8.6 21.6 11.8 19.5 16.4 12 21 12 21z" />
      </svg>
    </button>
  );
}
