/**
 * The sort orders of the admin's Lists page, as its address names them (`sort=updated-desc`), shared by
 * the page (its sort menu and column headings) and its loader (app/admin/lists-page.server.ts).
 */
import type { ListSortKey } from "~/data/list-rows.server";

export const LIST_SORTS = {
  "updated-desc": { key: "updatedAt", direction: "desc" },
  "updated-asc": { key: "updatedAt", direction: "asc" },
  "items-desc": { key: "itemCount", direction: "desc" },
  "items-asc": { key: "itemCount", direction: "asc" },
} as const satisfies Record<string, { key: ListSortKey; direction: "asc" | "desc" }>;

export type ListSort = keyof typeof LIST_SORTS;

/** Newest update first: the lists a merchant most likely wants to look at. */
export const DEFAULT_LIST_SORT: ListSort = "updated-desc";
