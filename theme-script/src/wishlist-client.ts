/**
 * The storefront's calls to the wishlist API through the shop's app proxy (`<proxy>/v1/storefront/...` on the
 * shop's own domain; the platform signs each request and names the logged-in customer). Operations and
 * answers are those of docs/openapi.json, tag Storefront.
 */
import type { components } from "../../api-types/openapi";

type Schemas = components["schemas"];

/**
 * A saved item (generated from the document, api-types/openapi.ts). `available` is false once the product
 * was deleted from the shop (docs/storefront.md); the placeholder shown while a save is on its way has none,
 * nor `purchasedAt` (issue 30: when the shopper bought it, in an order of the shop; null: not bought).
 */
export type Item = Omit<Schemas["Item"], "available" | "purchasedAt"> &
  Partial<Pick<Schemas["Item"], "available" | "purchasedAt">>;

/** A list as the scripts read it: the shopper's own (with `share`), a shared one, or identify's answer. */
export type List = Pick<Schemas["SharedList"], "count"> & {
  /** The shopper's own default list: its id (`lst_...`), null until the first save made it. */
  id?: string | null;
  /** GET /storefront/wishlist of a guest's list: the value for the cart's `_wishlist_list` (null otherwise). */
  cartAttribute?: string | null;
  items: Item[];
  share?: Pick<Schemas["Share"], "enabled">;
  /** identify only: the guest's share link ended at this login. */
  guestShareLinkEnded?: boolean;
};

export type Config = Pick<
  Schemas["StorefrontConfig"],
  "strings" | "guestEnabled" | "shareEnabled" | "sharePath" | "multipleLists" | "maxLists"
>;

/** One of the shopper's lists, with the products it holds (`GET /storefront/wishlists?include=products`). */
export type ListSummary = Schemas["StorefrontListSummary"];

/** A refused or failed call: the HTTP status (0 when the server was not reached) and the seconds to wait on 429. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfter = 0,
  ) {
    super(`wishlist API answered ${status}`);
  }
}

export function createApi(proxy: string, locale: string) {
  async function call<T>(method: string, path: string, body?: object): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${proxy}/v1/storefront${path}`, {
        method,
        headers: { "Accept-Language": locale, ...(body ? { "Content-Type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        // Credentials: fetch's default, same-origin (the shop's own domain, where the proxy is).
      });
    } catch {
      throw new ApiError(0);
    }
    if (!response.ok) throw new ApiError(response.status, Number(response.headers.get("Retry-After")) || 0);
    return (response.status === 204 ? undefined : await response.json()) as T;
  }

  const owner = (aid: string | null) => (aid ? `?aid=${encodeURIComponent(aid)}` : "");
  return {
    /** Any storefront call (`path` under /v1/storefront): the list picker's and the page's own operations. */
    call,
    owner,
    config: () => call<Config>("GET", "/config"),
    list: (aid: string | null) => call<List>("GET", `/wishlist${owner(aid)}`),
    lists: (aid: string | null) =>
      call<{ data: ListSummary[] }>("GET", `/wishlists${owner(aid)}${aid ? "&" : "?"}include=products`),
    add: (
      aid: string | null,
      item: { productId: string; variantId?: string; handle?: string; title?: string; listId?: string },
    ) => call<Item>("POST", `/wishlist/items${owner(aid)}`, item),
    remove: (aid: string | null, itemId: string) =>
      call<void>("DELETE", `/wishlist/items${owner(aid)}${aid ? "&" : "?"}itemId=${encodeURIComponent(itemId)}`, {}),
    identify: (aid: string) => call<List>("POST", "/identify", { anonymousId: aid }),
    share: (aid: string | null) =>
      call<Pick<Schemas["ShareResult"], "url">>("POST", `/wishlist/share${owner(aid)}`, {}),
    unshare: (aid: string | null) => call<void>("DELETE", `/wishlist/share${owner(aid)}`, {}),
    shared: (token: string) => call<List>("GET", `/lists/${encodeURIComponent(token)}`),
  };
}

export type Api = ReturnType<typeof createApi>;
