/**
 * React bindings: a provider that holds the shopper's default list, and a hook with optimistic toggles. A toggle
 * shows at once and is rolled back (with `error` set) when the API refuses it or cannot be reached.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import type { WishlistClient } from "./client";
import type { paths } from "../../api-types/openapi";

/** The shopper's default list, as `GET /storefront/wishlist` answers it. */
export type Wishlist = paths["/storefront/wishlist"]["get"]["responses"][200]["content"]["application/json"];
export type WishlistItem = Wishlist["items"][number];

/** What a heart button saves: the product, and optionally its variant and title. */
export interface ProductRef {
  productId: string;
  handle: string;
  variantId?: string | null;
  title?: string;
}

export interface WishlistState {
  /** The shopper's default list; null until it has loaded. */
  list: Wishlist | null;
  loading: boolean;
  /** The last failure: the load, or a toggle that was rolled back. Cleared by the next success. */
  error: unknown;
  /** Whether the list holds the product (toggles in flight included). */
  has(productId: string): boolean;
  /** Saves the product, or removes it when the list holds it. Resolves once the API has answered. */
  toggle(product: ProductRef): Promise<void>;
  /** Reads the list again. */
  refresh(): Promise<void>;
}

const WishlistContext = createContext<WishlistState | null>(null);

export interface WishlistProviderProps {
  /** A client made with the public key (a headless storefront) or the app proxy (theme code). */
  client: WishlistClient;
  /** The guest's anonymous id (a UUID you keep, e.g. in localStorage); ignored for a logged-in customer. */
  anonymousId?: string;
  children?: ReactNode;
}

/** The list as the toggle will leave it, shown before the API answers. */
function optimistic(list: Wishlist | null, product: ProductRef, add: boolean): Wishlist | null {
  if (!list) return list;
  const items = add
    ? [
        {
          id: `pending_${product.productId}`,
          productId: product.productId,
          variantId: product.variantId ?? null,
          handle: product.handle,
          titleSnapshot: product.title ?? "",
          addedAt: new Date().toISOString(),
          available: true,
          note: null,
          quantity: 1,
          purchasedAt: null,
        },
        ...list.items,
      ]
    : list.items.filter((item) => item.productId !== product.productId);
  return { ...list, items, count: items.length };
}

export function WishlistProvider({ client, anonymousId, children }: WishlistProviderProps) {
  const [list, setList] = useState<Wishlist | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const current = useRef<Wishlist | null>(null);
  const pending = useRef(new Set<string>());
  const query = useMemo(() => (anonymousId ? { aid: anonymousId } : {}), [anonymousId]);
  const show = useCallback((next: Wishlist | null) => {
    current.current = next;
    setList(next);
  }, []);

  const refresh = useCallback(async () => {
    setLoading(true);
    try {
      const { data } = await client.GET("/storefront/wishlist", { params: { query } });
      show((data as Wishlist | undefined) ?? null);
      setError(null);
    } catch (failure) {
      setError(failure);
    } finally {
      setLoading(false);
    }
  }, [client, query, show]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const toggle = useCallback(
    async (product: ProductRef) => {
      // One toggle of a product at a time: a second click while the API has not answered the first does nothing.
      if (pending.current.has(product.productId)) return;
      pending.current.add(product.productId);
      const before = current.current;
      const add = !before?.items.some((item) => item.productId === product.productId);
      show(optimistic(before, product, add));
      try {
        await client.POST("/storefront/wishlist/toggle", {
          params: { query },
          body: {
            productId: product.productId,
            handle: product.handle,
            ...(product.variantId ? { variantId: product.variantId } : {}),
            ...(product.title ? { title: product.title } : {}),
          },
        });
      } catch (failure) {
        // Rolled back: this product as it was before the toggle (other toggles since then kept).
        const now = current.current;
        const original = before?.items.find((item) => item.productId === product.productId);
        if (now) {
          const items = now.items.filter((item) => item.productId !== product.productId);
          if (original) items.unshift(original);
          show({ ...now, items, count: items.length });
        }
        setError(failure);
        return;
      } finally {
        // The product can be toggled again as soon as the API has answered, not only once the list is read again.
        pending.current.delete(product.productId);
      }
      setError(null);
      // The list as the API keeps it (item ids, titles, availability), unless another toggle is still in flight:
      // its optimistic state would be overwritten by a list read before it was applied.
      if (pending.current.size > 0) return;
      try {
        const { data } = await client.GET("/storefront/wishlist", { params: { query } });
        if (pending.current.size === 0 && data) show(data as Wishlist);
      } catch {
        // The toggle is applied and shown; the next read brings the API's details.
      }
    },
    [client, query, show],
  );

  const state = useMemo<WishlistState>(
    () => ({
      list,
      loading,
      error,
      has: (productId) => list?.items.some((item) => item.productId === productId) ?? false,
      toggle,
      refresh,
    }),
    [list, loading, error, toggle, refresh],
  );
  return <WishlistContext.Provider value={state}>{children}</WishlistContext.Provider>;
}

/** The shopper's list and its actions; inside a `WishlistProvider`. */
export function useWishlist(): WishlistState {
  const state = useContext(WishlistContext);
  if (!state) throw new Error("useWishlist() needs a <WishlistProvider> above it");
  return state;
}
