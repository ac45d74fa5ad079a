/**
 * The admin's Lists page (docs/admin.md, docs/decisions/031-list-owners-from-the-platform.md): the shop's
 * lists, default and named (docs/decisions/046-named-lists.md), filtered by customer (an id, or a name or
 * email the platform searches for), by product (an id or a stored title) and by list name, sorted by last
 * update or item count, a page at a time, each owner named as the shop knows them, with how many lists they
 * keep. The address carries the whole state (`customer`, `product`, `name`, `sort`, `cursor`), so a page can
 * be reloaded, shared or gone back to.
 */
import { z } from "zod";
import { formFailure } from "~/admin/forms.server";
import { DEFAULT_LIST_SORT, LIST_SORTS, type ListSort } from "~/admin/list-sorts";
import { database } from "~/data/database.server";
import {
  countListsOfOwners,
  findSortedListsPage,
  type ListKey,
  type ListSortKey,
  type SortedListRow,
} from "~/data/list-rows.server";
import { decodeCursor, encodeCursor } from "~/lib/cursor.server";
import { canonicalPlatformId } from "~/lib/ids";
import { toTimestamp } from "~/lib/time";
import { platformIdSchema } from "~/lib/validation";
import {
  findCustomerContacts,
  platformDidNotAnswer,
  SEARCH_LIMIT,
  searchCustomerIds,
  type CustomerContact,
} from "~/services/owners/customer-directory.server";
import { ownerKey, ownerOfColumns } from "~/services/owners/owner";
import { listName } from "~/services/wishlists/named-lists.server";

export const LISTS_PAGE_SIZE = 25;

const MAX_SEARCH_LENGTH = 200;
const searchText = z.string().max(MAX_SEARCH_LENGTH, `must be at most ${MAX_SEARCH_LENGTH} characters`);
/** Text the merchant typed: the spaces around it are not part of it (a pasted id often carries some). */
const typedText = (search: URLSearchParams, name: string) => (search.get(name) ?? "").trim();

export interface OwnerView {
  type: "customer" | "anonymous";
  customerId: string | null;
  /** The customer's name and email as the platform gave them now; null when it did not (or a guest). */
  contact: CustomerContact | null;
  /** How many lists the owner keeps in the shop (their default and named ones), this one included. */
  listCount: number;
}

export interface ListRowView {
  id: string;
  name: string;
  /** The owner's default list (the one the storefront's heart saves to), whatever its name now. */
  default: boolean;
  owner: OwnerView;
  count: number;
  shared: boolean;
  updatedAt: string | null;
}

export interface ListsPageData {
  filters: { customer: string; product: string; name: string; sort: ListSort };
  fieldErrors: { customer?: string; product?: string; name?: string };
  /** The customer search could not run (the platform did not answer): no lists are shown. */
  searchUnavailable: boolean;
  /** More customers matched the search than the page filters by (SEARCH_LIMIT). */
  searchTruncated: boolean;
  /** How many customers a search filters by at most (SEARCH_LIMIT), for the page to say. */
  searchLimit: number;
  /** Names and emails could not be read: owners are shown by id. */
  contactsUnavailable: boolean;
  cursorError: boolean;
  page: { lists: ListRowView[]; previousCursor: string | null; nextCursor: string | null; first: boolean } | null;
}

/** Where a page starts: the first page without a cursor; null for a cursor this listing did not issue. */
function readPosition(scope: string, cursor: string | null): { after?: ListKey; before?: ListKey } | null {
  if (!cursor) return {};
  try {
    const { a, b, id } = decodeCursor(scope, cursor);
    if (typeof id !== "string") return null;
    if (typeof a === "string" || typeof a === "number") return { after: { value: a, id } };
    if (typeof b === "string" || typeof b === "number") return { before: { value: b, id } };
    return null;
  } catch {
    return null;
  }
}

const keyOf = (row: SortedListRow, sort: ListSortKey) =>
  sort === "itemCount" ? row.itemCount : (toTimestamp(row.updatedAt) ?? "");

export async function loadListsPage({
  shopId,
  shopDomain,
  search,
}: {
  shopId: string;
  shopDomain: string;
  search: URLSearchParams;
}): Promise<ListsPageData> {
  const customer = typedText(search, "customer");
  const product = typedText(search, "product");
  const name = typedText(search, "name");
  const sortName = search.get("sort") ?? "";
  // An order the page does not offer (an edited address) shows the default one.
  const sort: ListSort = Object.hasOwn(LIST_SORTS, sortName) ? (sortName as ListSort) : DEFAULT_LIST_SORT;
  const data: ListsPageData = {
    filters: { customer, product, name, sort },
    fieldErrors: {},
    searchUnavailable: false,
    searchTruncated: false,
    searchLimit: SEARCH_LIMIT,
    contactsUnavailable: false,
    cursorError: false,
    page: null,
  };

  const byId = /^\d+$/.test(customer);
  const checked = z
    .object({
      // Digits are a customer id, in the API's canonical form; anything else is a name or an email.
      customer: byId ? platformIdSchema : searchText,
      product: searchText,
      name: searchText,
    })
    .safeParse({ customer, product, name });
  if (!checked.success) {
    const { fieldErrors } = formFailure(checked.error);
    if (fieldErrors.customer)
      data.fieldErrors.customer = `${byId ? "Customer ID" : "Customer search"} ${fieldErrors.customer}`;
    if (fieldErrors.product) data.fieldErrors.product = `Product ${fieldErrors.product}`;
    if (fieldErrors.name) data.fieldErrors.name = `List name ${fieldErrors.name}`;
    return data;
  }

  let customerIds: string[] | undefined;
  if (byId) customerIds = [checked.data.customer];
  else if (customer !== "") {
    try {
      const found = await searchCustomerIds({ shopDomain, text: customer });
      customerIds = found.customerIds;
      data.searchTruncated = found.more;
    } catch (error) {
      if (!platformDidNotAnswer(error)) throw error;
      data.searchUnavailable = true;
      return data;
    }
  }

  // A cursor is signed for this shop, filter and order: it cannot be edited, nor used with another one.
  const scope = `admin-lists:${shopId}:${JSON.stringify([customer, product, sort, name])}`;
  const position = readPosition(scope, search.get("cursor"));
  if (!position) {
    data.cursorError = true;
    return data;
  }
  const { key, direction } = LIST_SORTS[sort];
  const rows = await findSortedListsPage(database(), shopId, {
    sort: key,
    direction,
    customerIds,
    product:
      product === "" ? undefined : { id: canonicalPlatformId(product), title: product.toLocaleLowerCase("en-US") },
    // Compared as the names are (decision 046): NFC and lower-cased as the stored key is.
    nameKey: name === "" ? undefined : listName(name).nameKey,
    ...position,
    limit: LISTS_PAGE_SIZE + 1,
  });

  // The extra row is last when reading forwards (a next page) and first when reading backwards (a previous one).
  const backwards = position.before !== undefined;
  const more = rows.length > LISTS_PAGE_SIZE;
  const pageRows = backwards ? rows.slice(more ? 1 : 0) : rows.slice(0, LISTS_PAGE_SIZE);
  const hasPrevious = backwards ? more : position.after !== undefined;
  const hasNext = backwards ? true : more;
  const cursorAt = (row: SortedListRow | undefined, side: "a" | "b") =>
    row ? encodeCursor(scope, { [side]: keyOf(row, key), id: row.id }) : null;

  const owners = pageRows.map(ownerOfColumns);
  const customerIdsOnPage = owners.flatMap((owner) => (owner.kind === "customer" ? [owner.customerId] : []));
  const [{ contacts, unavailable }, listCounts] = await Promise.all([
    findCustomerContacts({ shopId, shopDomain, customerIds: customerIdsOnPage }),
    // One grouped statement for the page's owners, however many lists each keeps.
    countListsOfOwners(database(), shopId, {
      customerIds: customerIdsOnPage,
      anonymousIds: owners.flatMap((owner) => (owner.kind === "anonymous" ? [owner.anonymousId] : [])),
    }),
  ]);
  const listCountOf = new Map(listCounts.map((row) => [ownerKey(ownerOfColumns(row)), row.count]));
  data.contactsUnavailable = unavailable;
  data.page = {
    lists: pageRows.map((row, index) => {
      const owner = owners[index]!;
      const customerId = owner.kind === "customer" ? owner.customerId : null;
      return {
        id: row.id,
        name: row.name,
        default: row.isDefault === true,
        owner: {
          type: owner.kind === "customer" ? "customer" : "anonymous",
          customerId,
          contact: customerId ? (contacts.get(customerId) ?? null) : null,
          // At least this list: a list deleted since the page's statement is not counted.
          listCount: Math.max(listCountOf.get(ownerKey(owner)) ?? 0, 1),
        },
        count: row.itemCount,
        shared: row.shareEnabled,
        updatedAt: toTimestamp(row.updatedAt),
      };
    }),
    previousCursor: hasPrevious ? cursorAt(pageRows[0], "b") : null,
    nextCursor: hasNext ? cursorAt(pageRows.at(-1), "a") : null,
    first: Object.keys(position).length === 0,
  };
  return data;
}

/** The owner of one list as the detail page shows it: named when the platform answers. */
export async function loadListOwner({
  shopId,
  shopDomain,
  customerId,
}: {
  shopId: string;
  shopDomain: string;
  customerId: string | null;
}): Promise<{ contact: CustomerContact | null; contactsUnavailable: boolean }> {
  if (customerId === null) return { contact: null, contactsUnavailable: false };
  const { contacts, unavailable } = await findCustomerContacts({ shopId, shopDomain, customerIds: [customerId] });
  return { contact: contacts.get(customerId) ?? null, contactsUnavailable: unavailable };
}
