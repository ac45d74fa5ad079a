/**
 * Merchant-side list browsing (`GET /lists`, `GET /lists/{id}` in docs/openapi.json). Retired lists (guest
 * lists merged into a customer's) are not shown. Keyset pagination on the time-ordered id gives a stable
 * order.
 */
import { database } from "~/data/database.server";
import { countItemsOfLists, findItemsOfList } from "~/data/item-rows.server";
import {
  findActiveList,
  findListsPage,
  findOwnerLists,
  type CountedListRow,
  type ListRow,
} from "~/data/list-rows.server";
import { DomainError } from "~/lib/domain-error";
import { ownerOfColumns } from "~/services/owners/owner";
import type { ListWithItems } from "./views";
import { ownerValue } from "./wishlists.server";

/**
 * Up to `limit + 1` lists with their counts, in id order: after `after` (the extra one, last, tells the
 * caller there is a next page), or before `before` (the extra one, first, tells there is a previous page).
 */
export async function browseLists({
  shopId,
  customerId,
  after,
  before,
  limit,
}: {
  shopId: string;
  customerId?: string;
  after?: string;
  before?: string;
  limit: number;
}) {
  const lists = await findListsPage(database(), shopId, { customerId, after, before, limit: limit + 1 });
  const counts = await countItemsOfLists(
    database(),
    shopId,
    lists.map((list) => list.id),
  );
  return lists.map((list) => ({ ...list, count: counts.get(list.id) ?? 0 }));
}

/** One list of this shop with its items (newest first). */
export async function getListWithItems({ shopId, listId }: { shopId: string; listId: string }): Promise<ListWithItems> {
  const list = await findActiveList(database(), shopId, listId);
  if (!list) throw new DomainError("not_found", `No list ${listId} in this shop.`);
  const items = await findItemsOfList(database(), shopId, list.id);
  return { ...list, items, count: items.length };
}

/**
 * Every live list of the owner of `list` (a customer or a guest), `list` among them, with their item counts:
 * the default first, then the others oldest first. One statement, scoped to the shop: the same customer id
 * in another shop is another shop's shopper.
 */
export function getListsOfOwner({ shopId, list }: { shopId: string; list: ListRow }): Promise<CountedListRow[]> {
  return findOwnerLists(database(), shopId, ownerValue(ownerOfColumns(list)));
}
