import { useWishlist, WishlistProvider } from "@wishlist-service/sdk/react";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { ListsPage } from "./pages/ListsPage";
import { LoginPage } from "./pages/LoginPage";
import { ProductGrid } from "./pages/ProductGrid";
import { SharedListPage } from "./pages/SharedListPage";
import { Link, usePath } from "./router";
import { describeError, ShopperProvider, useShopper } from "./shopper";
import { fetchCatalogue, type Product } from "./storefront-api";

export function App() {
  return (
    <ShopperProvider>
      <Storefront />
    </ShopperProvider>
  );
}

function Storefront() {
  const shopper = useShopper();
  const [shopName, setShopName] = useState("Storefront");
  const [products, setProducts] = useState<Product[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [status, setStatus] = useState("");

  useEffect(() => {
    fetchCatalogue().then(
      (catalogue) => {
        setShopName(catalogue.shopName);
        setProducts(catalogue.products);
      },
      (error: unknown) => setFailure(describeError(error)),
    );
  }, []);

  if (!shopper.ready) return <p className="loading">Loading…</p>;
  // One provider per shopper: logging in or out starts from the other shopper's list.
  return (
    <WishlistProvider
      key={shopper.customer ? "customer" : "guest"}
      client={shopper.client}
      anonymousId={shopper.customer ? undefined : shopper.anonymousId}
    >
      <Header shopName={shopName} status={status} onLogOut={() => setStatus("You are logged out.")} />
      <main id="main">
        <Page products={products} failure={failure} shopName={shopName} announce={setStatus} />
      </main>
    </WishlistProvider>
  );
}

function Header({ shopName, status, onLogOut }: { shopName: string; status: string; onLogOut: () => void }) {
  const { customer, logOut } = useShopper();
  const { list } = useWishlist();
  const path = usePath();
  const current = (to: string) => (path === to ? "page" : undefined);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to the content
      </a>
      <header className="site-header">
        <Link to="/" className="site-name">
          {shopName}
        </Link>
        <nav aria-label="Main">
          <Link to="/" aria-current={current("/")}>
            Products
          </Link>
          <Link to="/lists" aria-current={current("/lists")}>
            Wishlist (<span data-wishlist-count>{list?.count ?? 0}</span>)
          </Link>
        </nav>
        <span className="site-account">
          {customer ? (
            <>
              Logged in as {customer.firstName} {customer.lastName}{" "}
              <button type="button" className="link-button" onClick={() => void logOut().then(onLogOut)}>
                Log out
              </button>
            </>
          ) : (
            <>
              Browsing as a guest ·{" "}
              <Link to="/login" aria-current={current("/login")}>
                Log in
              </Link>
            </>
          )}
        </span>
      </header>
      <p className="site-status" role="status">
        {status}
      </p>
    </>
  );
}

const TITLES: Record<string, string> = { "/": "Products", "/lists": "Your wishlist", "/login": "Log in" };

function Page({
  products,
  failure,
  shopName,
  announce,
}: {
  products: Product[] | null;
  failure: string | null;
  shopName: string;
  announce: (message: string) => void;
}) {
  const path = usePath();
  const shared = /^\/shared\/([^/]+)$/.exec(path)?.[1];
  const loaded = useRef(false);

  useEffect(() => {
    document.title = `${shared ? "A shared wishlist" : (TITLES[path] ?? "Not found")} · ${shopName}`;
  }, [path, shared, shopName]);
  // After a navigation (not on the first load), the keyboard's and screen reader's focus moves to the new page's heading.
  useLayoutEffect(() => {
    if (loaded.current) document.querySelector<HTMLElement>("main h1")?.focus();
    loaded.current = true;
  }, [path]);

  if (shared) return <SharedListPage token={decodeURIComponent(shared)} />;
  if (path === "/lists") return <ListsPage />;
  if (path === "/login") return <LoginPage announce={announce} />;
  if (path === "/") return <ProductGrid products={products} failure={failure} />;
  return (
    <>
      <h1 tabIndex={-1}>Not found</h1>
      <p>
        No page here. <Link to="/">See the products.</Link>
      </p>
    </>
  );
}
