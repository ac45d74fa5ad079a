/**
 * Who is shopping, and which wishlist client speaks for them:
 *  - a guest: the SDK with the shop's public key, from the browser straight to the wishlist service, the guest
 *    named by an anonymous id this browser keeps (localStorage);
 *  - a logged-in customer: the SDK through this storefront's server (server/storefront-server.ts), which adds the
 *    private key and the session's customer, as a platform app proxy would. A public key cannot name a customer.
 * Logging in merges the guest's list into the customer's (the server calls `POST /storefront/identify`).
 */
import { createWishlistClient, isProblem, type WishlistClient } from "@wishlist-service/sdk";
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import type { SessionCustomer } from "../server/storefront-server";

/** The guest's client: the public key and the shop's domain. */
export const guestClient = createWishlistClient({
  baseUrl: import.meta.env.VITE_WISHLIST_URL,
  publicKey: import.meta.env.VITE_WISHLIST_PUBLIC_KEY,
  shop: import.meta.env.VITE_WISHLIST_SHOP,
});
/** The customer's client: this storefront's server, on the page's own origin. */
const customerClient = createWishlistClient({ appProxy: true, baseUrl: "/wishlist" });

const GUEST_ID_KEY = "wishlist-guest-id";

/** The guest's anonymous id: a UUID made once per browser and kept. */
function guestId(): string {
  let id = window.localStorage.getItem(GUEST_ID_KEY);
  if (!id) {
    id = crypto.randomUUID();
    window.localStorage.setItem(GUEST_ID_KEY, id);
  }
  return id;
}

export interface LogInResult {
  customer: SessionCustomer;
  /** What the merge did: items moved from the guest's list, and whether a guest's share link stopped working. */
  merged: { count: number; guestShareLinkEnded: boolean };
}

interface ShopperState {
  /** The logged-in customer, or null for a guest. */
  customer: SessionCustomer | null;
  /** false until the storefront's server has said whether a customer is logged in. */
  ready: boolean;
  anonymousId: string;
  client: WishlistClient;
  logIn(email: string, password: string): Promise<LogInResult>;
  logOut(): Promise<void>;
}

const ShopperContext = createContext<ShopperState | null>(null);

/** The message of an error for the shopper: a problem's detail and its request id, else the error's message. */
export function describeError(error: unknown): string {
  if (isProblem(error)) {
    const text = error.problem.detail ?? error.problem.title;
    return error.requestId ? `${text} (request ${error.requestId})` : text;
  }
  return error instanceof Error ? error.message : String(error);
}

async function postJson<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method: "POST",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({}))) as { detail?: string; title?: string };
    throw new Error(problem.detail ?? problem.title ?? `HTTP ${response.status}`);
  }
  return (response.status === 204 ? undefined : await response.json()) as T;
}

export function ShopperProvider({ children }: { children: ReactNode }) {
  const [customer, setCustomer] = useState<SessionCustomer | null>(null);
  const [ready, setReady] = useState(false);
  const [anonymousId] = useState(guestId);

  useEffect(() => {
    fetch("/session")
      .then((response) => response.json() as Promise<{ customer: SessionCustomer | null }>)
      .then((session) => setCustomer(session.customer))
      .catch(() => setCustomer(null))
      .finally(() => setReady(true));
  }, []);

  const logIn = useCallback(
    async (email: string, password: string) => {
      const result = await postJson<LogInResult>("/session/login", { email, password, anonymousId });
      setCustomer(result.customer);
      return result;
    },
    [anonymousId],
  );
  const logOut = useCallback(async () => {
    await postJson<void>("/session/logout");
    setCustomer(null);
  }, []);

  const state = useMemo<ShopperState>(
    () => ({ customer, ready, anonymousId, client: customer ? customerClient : guestClient, logIn, logOut }),
    [customer, ready, anonymousId, logIn, logOut],
  );
  return <ShopperContext.Provider value={state}>{children}</ShopperContext.Provider>;
}

export function useShopper(): ShopperState {
  const state = useContext(ShopperContext);
  if (!state) throw new Error("useShopper() needs a <ShopperProvider> above it");
  return state;
}

/** The query that names the shopper to the service: the guest's `aid`; nothing for a customer (the server names them). */
export function useShopperQuery(): { aid?: string } {
  const { customer, anonymousId } = useShopper();
  return useMemo(() => (customer ? {} : { aid: anonymousId }), [customer, anonymousId]);
}
