/**
 * What the embed's script (wishlist.ts) hands the wishlist page's script (wishlist-page.ts): the page block
 * loads a script of its own so that the renderer weighs nothing on the other pages, and reads the
 * shopper's list, the shop's rules and the announcements through this instead of a second copy of them.
 * Internal to the extension: theme code uses `window.Wishlist` and `wishlist:change`.
 */
import type { Api, Config, Item, ListSummary } from "./wishlist-client";

/** What a heart names: the product, and the variant and title the page shows. */
export interface Target {
  productId?: string;
  handle: string;
  variantId?: string;
  title?: string;
}

export interface PageContext {
  api: Api;
  customer: string | null;
  loginUrl: string;
  locale: string;
  /** The anonymous id of a guest (null for a customer, or a guest who never saved). */
  guestId: () => string | null;
  /** The guest's id, made on the first save (null for a customer). */
  ensureGuestId: () => string | null;
  /** Whether a guest's list outlives this page (the visitor allows preferences storage); true for a customer. */
  storageAllowed: () => boolean;
  /** The shopper's default list. */
  items: () => Item[];
  /** Shops with named lists: every list of the shopper with its products (null otherwise). */
  lists: () => ListSummary[] | null;
  /** A product's id from its handle (the shop's product JSON), and its variant when it has one only. */
  productOf: (handle: string) => Promise<{ id: string; variantId?: string }>;
  /** Reads the lists again, redraws the hearts, and (with `change`) tells listeners. */
  refresh: (change?: { productId: string; handle: string; added: boolean }) => Promise<void>;
  config: () => Config;
  /** The theme's texts the embed carries (the merchant's, in `config().strings`, come first). */
  strings: Record<string, string>;
  /** The shopper's list could not be read at load: the page must not call it empty. */
  loadFailed: boolean;
  /** Whether the shopper's own list has a share link; `shared(value)` records a change. */
  shared: (value?: boolean) => boolean;
  say: (message: string, action?: { href?: string; text: string; run?: () => void }) => void;
  failure: (error: unknown) => void;
  /** Calls `listener` after every change of the list; returns the function that stops it. */
  on: (listener: () => void) => () => void;
}

/** The event the embed's script sends once the list is loaded (also kept as `window.Wishlist._page`). */
export const PAGE_EVENT = "wishlist:page";

/** What the list picker is handed: the same as the page. */
export type PickerContext = PageContext;

/** The event the list picker's script (wishlist-lists.js) sends once loaded, with its `open` function. */
export const PICKER_READY = "wishlist:picker";
