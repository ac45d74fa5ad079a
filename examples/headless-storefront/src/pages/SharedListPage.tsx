import { isProblem, type components } from "@wishlist-service/sdk";
import { useEffect, useState } from "react";
import { ListItems } from "../components/ListItems";
import { describeError, guestClient } from "../shopper";
import { fetchProducts, type Product } from "../storefront-api";

type SharedList = components["schemas"]["SharedList"];

/** A list opened by its share link (`/shared/<token>`): read with the public key, whoever opens it. */
export function SharedListPage({ token }: { token: string }) {
  const [list, setList] = useState<SharedList | null>(null);
  const [products, setProducts] = useState<Map<string, Product> | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    guestClient
      .GET("/storefront/lists/{shareToken}", { params: { path: { shareToken: token } } })
      .then(async ({ data: shared }) => {
        setList(shared);
        setProducts(await fetchProducts(shared.items.map((item) => item.productId)));
      })
      .catch((error: unknown) =>
        setFailure(
          isProblem(error, "not-found")
            ? "This share link does not open a list: its owner may have stopped sharing it."
            : describeError(error),
        ),
      );
  }, [token]);

  if (failure) {
    return (
      <>
        <h1 tabIndex={-1}>A shared wishlist</h1>
        <p role="alert">{failure}</p>
      </>
    );
  }
  if (!list) {
    return (
      <>
        <h1 tabIndex={-1}>A shared wishlist</h1>
        <p>Loading the list…</p>
      </>
    );
  }
  return (
    <>
      <h1 tabIndex={-1}>A shared wishlist: {list.name}</h1>
      <p>{list.count === 1 ? "1 item" : `${list.count} items`}, shared with you. Add them to your cart to buy them.</p>
      <ListItems name={list.name} items={list.items} products={products} />
    </>
  );
}
