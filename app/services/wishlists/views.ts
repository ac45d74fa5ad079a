/**
 * The one place that shows wishlists, lists and items as the API answers and the events carry them (the
 * Item, List, ListSummary, Wishlist and SharedList schemas of docs/openapi.json).
 */
import type { ItemRow } from "~/data/item-rows.server";
import type { ListRow } from "~/data/list-rows.server";
import { toTimestamp } from "~/lib/time";
import { ownerOfColumns, ownerView, type Owner } from "~/services/owners/owner";

/** A list with its items (newest first) and their count. */
export type ListWithItems = ListRow & { items: ItemRow[]; count: number };

export function itemView(item: ItemRow) {
  return {
    id: item.id,
    productId: item.productId,
    variantId: item.variantId === "" ? null : item.variantId,
    handle: item.handle,
    titleSnapshot: item.titleSnapshot,
    addedAt: toTimestamp(item.addedAt),
    available: item.unavailableAt === null,
    note: item.note === "" ? null : item.note,
    quantity: item.quantity,
    purchasedAt: item.purchasedAt === null ? null : toTimestamp(item.purchasedAt),
  };
}

/**
 * An item as the merchant's admin shows it: the catalogue's title apart from a title the save carried (a
 * shopper's or an import file's), which is never presented as the product's (docs/decisions/029-catalogue-titles.md).
 */
export function merchantItemView(item: ItemRow) {
  const fromCatalogue = item.catalogueTitleAt !== null;
  return {
    ...itemView(item),
    /** The catalogue's title; null until the platform has answered for the product. */
    catalogueTitle: fromCatalogue ? item.titleSnapshot || null : null,
    /** The title the save carried, while the catalogue's is not known. */
    savedTitle: fromCatalogue ? null : item.titleSnapshot || null,
    /** The catalogue's handle; null until the platform has answered for the product. */
    catalogueHandle: fromCatalogue ? item.handle || null : null,
    /** The handle the save carried, while the catalogue's is not known: the caller's, like its title. */
    savedHandle: fromCatalogue ? null : item.handle || null,
  };
}

export function listSummaryView(list: ListRow & { count: number }) {
  return {
    id: list.id,
    owner: ownerView(ownerOfColumns(list)),
    name: list.name,
    default: list.isDefault === true,
    count: list.count,
    share: { enabled: list.shareEnabled, token: list.shareToken },
    updatedAt: toTimestamp(list.updatedAt),
  };
}

export function listView(list: ListWithItems) {
  return { ...listSummaryView(list), items: list.items.map(itemView) };
}

/**
 * The shopper's default list; a shopper with none yet (null) gets an empty one whose `id` and `updatedAt`
 * are null, since reading never creates a list.
 */
export function wishlistView(owner: Owner, list: ListWithItems | null) {
  return {
    id: list?.id ?? null,
    owner: ownerView(owner),
    name: list?.name ?? "Wishlist",
    default: true,
    count: list?.count ?? 0,
    items: list ? list.items.map(itemView) : [],
    share: { enabled: list?.shareEnabled ?? false, token: list?.shareToken ?? null },
    updatedAt: toTimestamp(list?.updatedAt),
  };
}

/**
 * A summary of one of the shopper's lists, as the storefront shows it (no owner: it is the caller). Their
 * default list not made yet (`listOwnerLists` gives it the id "") has a null `id` and `updatedAt`.
 */
export function storefrontListSummaryView(list: ListRow & { count: number }) {
  const made = list.id !== "";
  return {
    id: made ? list.id : null,
    name: list.name,
    default: list.isDefault === true,
    count: list.count,
    share: { enabled: list.shareEnabled, token: list.shareToken },
    updatedAt: made ? toTimestamp(list.updatedAt) : null,
  };
}

/** A list opened by its share token: no owner, no share details. */
export function sharedListView(list: ListWithItems) {
  return {
    id: list.id,
    name: list.name,
    default: list.isDefault === true,
    count: list.count,
    items: list.items.map(itemView),
    updatedAt: toTimestamp(list.updatedAt),
  };
}
