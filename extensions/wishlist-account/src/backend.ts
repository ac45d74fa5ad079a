/**
 * The customer account page's calls to the app's /v1 API, each with a session token the platform signed for
 * the logged-in customer (`Authorization: Bearer <token>`, the `customerAccount` scheme of docs/openapi.json).
 * The customer comes from the token: no call names one. Operations and answers are the document's (types
 * generated from it, api-types/openapi.ts).
 */
import type { components } from "../../../api-types/openapi";

type Schemas = components["schemas"];
export type Item = Schemas["Item"];
export type ListSummary = Schemas["StorefrontListSummary"];
/** A list with its items; a default list not made yet (no save) has none and an `id` of null. */
export type List = ListSummary & { items: Item[] };

/** A refused or failed call: the HTTP status (0 when the app was not reached). */
export class BackendError extends Error {
  constructor(readonly status: number) {
    super(`wishlist API answered ${status}`);
  }
}

export interface Backend {
  /** Every list of the customer with its items: the default list first, then the named ones, oldest first. */
  lists(): Promise<List[]>;
  removeItem(item: Item, listId: string): Promise<void>;
  moveItem(item: Item, toListId: string): Promise<void>;
}

/**
 * The backend at `appUrl`, with a fresh token per call (`getToken` is the platform's `sessionToken.get`, which
 * caches tokens until they are about to expire).
 */
export function createBackend(appUrl: string, getToken: () => Promise<string>): Backend {
  async function call<T>(method: string, path: string, init: { body?: object } = {}) {
    let response: Response;
    try {
      response = await fetch(`${appUrl}/v1/storefront${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${await getToken()}`,
          ...(init.body ? { "Content-Type": "application/json" } : {}),
        },
        body: init.body ? JSON.stringify(init.body) : undefined,
      });
    } catch {
      throw new BackendError(0);
    }
    if (!response.ok) throw new BackendError(response.status);
    return (response.status === 204 ? undefined : await response.json()) as T;
  }

  return {
    async lists() {
      const { data } = await call<Schemas["StorefrontLists"]>("GET", "/wishlists");
      return Promise.all(
        data.map(async (summary) =>
          summary.id === null
            ? { ...summary, items: [] }
            : { ...summary, items: (await call<Schemas["Wishlist"]>("GET", `/wishlists/${summary.id}`)).items },
        ),
      );
    },
    async removeItem(item, listId) {
      // The remove operation takes a JSON body (`{}` will do) with the item named in the query.
      const query = new URLSearchParams({ itemId: item.id, listId });
      await call<void>("DELETE", `/wishlist/items?${query}`, { body: {} });
    },
    async moveItem(item, toListId) {
      await call<Schemas["Item"]>("POST", `/wishlist/items/${item.id}/move`, { body: { listId: toListId } });
    },
  };
}
