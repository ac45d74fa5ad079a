import { useWishlist } from "@wishlist-service/sdk/react";
import { useEffect } from "react";
import { Heart } from "../components/Heart";
import { describeError } from "../shopper";
import { formatMoney, type Product } from "../storefront-api";

/** The grid of the shop's products, each with its heart. */
export function ProductGrid({ products, failure }: { products: Product[] | null; failure: string | null }) {
  const { loading, error } = useWishlist();
  const ready = products !== null && !loading;

  // The moment the grid shows the products and whether each is saved: what the page-load benchmark measures
  // (scripts/bench/headless-example.ts).
  useEffect(() => {
    if (ready && performance.getEntriesByName("grid-ready").length === 0) performance.mark("grid-ready");
  }, [ready]);

  return (
    <>
      <h1 tabIndex={-1}>Products</h1>
      {failure && <p role="alert">The products could not be loaded: {failure}</p>}
      {error ? <p role="alert">Your wishlist was not changed: {describeError(error)}</p> : null}
      {products === null ? (
        <p>Loading the products…</p>
      ) : (
        <ul className="grid" aria-busy={!ready}>
          {products.map((product) => (
            <li key={product.id} className="card">
              {product.featuredImage && (
                <img
                  className="card__image"
                  src={product.featuredImage.url}
                  width={product.featuredImage.width}
                  height={product.featuredImage.height}
                  alt=""
                />
              )}
              <h2 className="card__title">{product.title}</h2>
              <p className="card__price">
                {formatMoney(product.priceRange.minVariantPrice)}
                {!product.availableForSale && <span className="badge">Sold out</span>}
              </p>
              <Heart product={product} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
