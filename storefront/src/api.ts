/**
 * The storefront's calls to the wishlist API through the shop's app proxy (`<proxy>/v1/storefront/...` on the
 * shop's own domain; the platform signs each request and names the logged-in customer). Operations and
 * answers are those of docs/openapi.json, tag Storefront.
 */
export interface Item {
  id: string;
  productId: string;
  variantId: string | null;
  handle: string;
  titleSnapshot: string;
  addedAt: string;
  /** False once the product was deleted from the shop (docs/storefront.md). */
  available?: boolean;
}

export interface List {
  count: number;
  items: Item[];
  share?: { enabled: boolean };
  /** identify only: the guest's share link ended at this login. */
  guestShareLinkEnded?: boolean;
}

export interface Config {
  strings: Record<string, string>;
  guestEnabled: boolean;
  shareEnabled: boolean;
  sharePath: string;
}

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
        credentials: "same-origin",
      });
    } catch {
      throw new ApiError(0);
    }
    if (!response.ok) throw new ApiError(response.status, Number(response.headers.get("Retry-After")) || 0);
    return (response.status === 204 ? undefined : await response.json()) as T;
  }

  const owner = (aid: string | null) => (aid ? `?aid=${encodeURIComponent(aid)}` : "");
  return {
    config: () => call<Config>("GET", "/config"),
    list: (aid: string | null) => call<List>("GET", `/wishlist${owner(aid)}`),
    add: (aid: string | null, item: { productId: string; variantId?: string; handle?: string; title?: string }) =>
      call<Item>("POST", `/wishlist/items${owner(aid)}`, item),
    remove: (aid: string | null, itemId: string) =>
      call<void>("DELETE", `/wishlist/items${owner(aid)}${aid ? "&" : "?"}itemId=${encodeURIComponent(itemId)}`, {}),
    identify: (aid: string) => call<List>("POST", "/identify", { anonymousId: aid }),
    share: (aid: string | null) => call<{ url: string }>("POST", `/wishlist/share${owner(aid)}`, {}),
    unshare: (aid: string | null) => call<void>("DELETE", `/wishlist/share${owner(aid)}`, {}),
    shared: (token: string) => call<List>("GET", `/lists/${encodeURIComponent(token)}`),
  };
}

export type Api = ReturnType<typeof createApi>;
