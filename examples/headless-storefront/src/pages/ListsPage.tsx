import type { components } from "@wishlist-service/sdk";
import { useWishlist } from "@wishlist-service/sdk/react";
import { useCallback, useEffect, useState } from "react";
import { ListItems } from "../components/ListItems";
import { Link } from "../router";
import { describeError, useShopper, useShopperQuery } from "../shopper";
import { fetchProducts, type Product } from "../storefront-api";

/** What this page shows of a list (the default list's answer and a named list's differ in other members). */
type Wishlist = Pick<components["schemas"]["Wishlist"], "id" | "name" | "default" | "count" | "items" | "share">;

/**
 * The shopper's lists and their items: the default list (the one the hearts save to, from the SDK's provider) and
 * any named ones, each with "Add to cart", "Add all to cart", "Remove" and a share link.
 */
export function ListsPage() {
  const { client } = useShopper();
  const query = useShopperQuery();
  const wishlist = useWishlist();
  const [named, setNamed] = useState<Wishlist[]>([]);
  const [products, setProducts] = useState<Map<string, Product> | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  const loadNamed = useCallback(async () => {
    // The SDK answers successes only (it throws a WishlistApiError otherwise): `data` is the answer's body.
    const { data: summaries } = await client.GET("/storefront/wishlists", { params: { query } });
    const lists = await Promise.all(
      summaries.data
        .filter((summary) => !summary.default && summary.id !== null)
        .map(async (summary) => {
          const { data } = await client.GET("/storefront/wishlists/{listId}", {
            params: { path: { listId: summary.id! }, query },
          });
          return data;
        }),
    );
    setNamed(lists);
  }, [client, query]);
  useEffect(() => {
    loadNamed().catch((error: unknown) => setFailure(describeError(error)));
  }, [loadNamed]);

  const lists: Wishlist[] = [...(wishlist.list ? [wishlist.list] : []), ...named];
  // The products of every list, read again when the lists' products change.
  const productIds = [...new Set(lists.flatMap((list) => list.items.map((item) => item.productId)))].sort().join(",");
  useEffect(() => {
    fetchProducts(productIds ? productIds.split(",") : [])
      .then(setProducts)
      .catch((error: unknown) => setFailure(`The products could not be loaded: ${describeError(error)}`));
  }, [productIds]);

  async function remove(itemId: string) {
    await client.DELETE("/storefront/wishlist/items", { params: { query: { ...query, itemId } }, body: {} });
    await Promise.all([wishlist.refresh(), loadNamed()]);
  }

  // A guest's cart carries the value the service gives for the `_wishlist_list` attribute, so the order it becomes
  // is matched to the guest's saves; a customer's order names the customer.
  const cartAttribute = wishlist.list?.cartAttribute;
  const cartAttributes = cartAttribute ? [{ key: "_wishlist_list", value: cartAttribute }] : [];

  return (
    <>
      <h1 tabIndex={-1}>Your wishlist</h1>
      {failure && <p role="alert">{failure}</p>}
      {wishlist.error ? <p role="alert">Your wishlist was not changed: {describeError(wishlist.error)}</p> : null}
      {wishlist.list === null ? (
        <p>Loading your wishlist…</p>
      ) : (
        lists.map((list) => (
          <section key={list.id ?? "default"} className="list" aria-labelledby={`list-${list.id ?? "default"}`}>
            <h2 id={`list-${list.id ?? "default"}`}>
              {list.name} <span className="list__count">({list.count === 1 ? "1 item" : `${list.count} items`})</span>
            </h2>
            <ListItems
              name={list.name}
              items={list.items}
              products={products}
              cartAttributes={cartAttributes}
              onRemove={(item) => remove(item.id)}
            >
              {list.id !== null && list.count > 0 && <ShareLink list={list} />}
            </ListItems>
          </section>
        ))
      )}
    </>
  );
}

/** A list's share link on this storefront (`/shared/<token>`), made on demand. */
function ShareLink({ list }: { list: Wishlist }) {
  const { client } = useShopper();
  const query = useShopperQuery();
  const [token, setToken] = useState(list.share.enabled ? list.share.token : null);
  const [failure, setFailure] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const link = token ? `${window.location.origin}/shared/${token}` : null;

  async function share() {
    setFailure(null);
    try {
      const { data: shared } = list.default
        ? await client.POST("/storefront/wishlist/share", { params: { query } })
        : await client.POST("/storefront/wishlists/{listId}/share", { params: { path: { listId: list.id! }, query } });
      setToken(shared.token);
    } catch (error) {
      setFailure(`Not shared: ${describeError(error)}`);
    }
  }

  async function copy() {
    await navigator.clipboard.writeText(link!).then(
      () => setCopied(true),
      () => setFailure("The browser did not let the page copy: select the link and copy it."),
    );
  }

  const inputId = `share-${list.id}`;
  return (
    <div className="share">
      {failure && <p role="alert">{failure}</p>}
      {link ? (
        <>
          <label htmlFor={inputId}>Share link</label>
          <input
            id={inputId}
            className="share__link"
            readOnly
            value={link}
            onFocus={(event) => event.target.select()}
          />
          <button type="button" className="button button--secondary" onClick={() => void copy()}>
            {copied ? "Copied" : "Copy link"}
          </button>
          <Link to={new URL(link).pathname}>Open the shared list</Link>
        </>
      ) : (
        <button
          type="button"
          className="button button--secondary"
          aria-label={`Share: ${list.name}`}
          onClick={() => void share()}
        >
          Share
        </button>
      )}
    </div>
  );
}
