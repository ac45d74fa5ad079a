/**
 * What the embed's script (wishlist.ts) hands the wishlist page's script (wishlist-page.ts): the page block
 * loads a script of its own so that the renderer weighs nothing on the other pages, and reads the
 * shopper's list, the shop's rules and the announcements through this instead of a second copy of them.
 * Internal to the extension: theme code uses `window.Wishlist` and `wishlist:change`.
 */
import type { Api, Config, Item } from "./wishlist-client";

export interface PageContext {
  api: Api;
  customer: string | null;
  loginUrl: string;
  locale: string;
  /** The anonymous id of a guest (null for a customer, or a guest who never saved). */
  guestId: () => string | null;
  items: () => Item[];
  config: () => Config;
  /** The theme's texts the embed carries (the merchant's, in `config().strings`, come first). */
  strings: Record<string, string>;
  /** The shopper's list could not be read at load: the page must not call it empty. */
  loadFailed: boolean;
  /** Whether the shopper's own list has a share link; `shared(value)` records a change. */
  shared: (value?: boolean) => boolean;
  say: (message: string) => void;
  failure: (error: unknown) => void;
  /** Calls `listener` after every change of the list; returns the function that stops it. */
  on: (listener: () => void) => () => void;
}

/** The event the embed's script sends once the list is loaded (also kept as `window.Wishlist._page`). */
export const PAGE_EVENT = "wishlist:page";
