/**
 * Guest merge at login (`POST /storefront/identify` in docs/openapi.json): the guest list's items join
 * the customer's default list.
 *  - union by product+variant; on overlap the earlier `addedAt` wins (the customer's item is kept, with
 *    the guest's date if that is earlier);
 *  - the customer's list never passes MAX_ITEMS_PER_LIST: all of the customer's items stay, and the guest's
 *    other items move earliest `addedAt` first while there is room; the rest are not carried over (they go
 *    with the retired guest list). A customer's list already at or above the cap takes none;
 *  - `mergedCount` counts items actually moved;
 *  - the guest list is emptied and retired (no longer the anonymous id's default), so the anonymous id
 *    reads an empty list afterwards and can never reach the customer's;
 *  - one list.merged event, in the same transaction; a repeat finds no guest list, merges nothing, emits
 *    nothing, and still answers with the customer's list;
 *  - a share link the guest had sent keeps working and opens the merged list: when the customer's list has
 *    no token of its own it takes the guest's (no list.shared event: nothing new was shared); when it has one,
 *    the customer's token stays and the retired guest list keeps its token with `customerId` set to the
 *    customer, which `readSharedList` follows to that customer's current list. So both tokens open the merged
 *    list, without a table of aliases.
 */
import { transaction, type UnitOfWork } from "~/data/database.server";
import { deleteItemsOfList, findItemsOfList, moveItems, setItemAddedAt } from "~/data/item-rows.server";
import { enableShareToken, findDefaultLists, retireList, touchListsBefore } from "~/data/list-rows.server";
import { recordEvent } from "~/services/events/outbox.server";
import { lockDefaultList, maxItemsPerList } from "./wishlists.server";
import type { ListWithItems } from "./views";

export interface MergeResult {
  /** The customer's default list after the merge, with its items. */
  list: ListWithItems;
  /** Items moved from the guest list. */
  mergedCount: number;
  /** false: there was no guest list to merge (a repeat). */
  merged: boolean;
}

export async function mergeGuestList(
  { shopId, customerId, anonymousId }: { shopId: string; customerId: string; anonymousId: string },
  unit?: UnitOfWork<MergeResult>,
): Promise<MergeResult> {
  return transaction(async (tx) => {
    const now = new Date();
    const customerList = await lockDefaultList(tx, shopId, { kind: "customer", customerId }, true, now);
    // Locked after the customer's list, in the same order as every other merge (no deadlock).
    const [guest] = await findDefaultLists(tx, shopId, "anonymousId", [anonymousId], { lock: true });
    let result: MergeResult;
    if (!guest) {
      const items = await findItemsOfList(tx, shopId, customerList.id);
      result = { list: { ...customerList, items, count: items.length }, mergedCount: 0, merged: false };
    } else {
      const guestItems = await findItemsOfList(tx, shopId, guest.id);
      const customerItems = await findItemsOfList(tx, shopId, customerList.id);
      const owned = new Map(customerItems.map((item) => [`${item.productId}:${item.variantId}`, item]));
      const room = Math.max(0, maxItemsPerList() - customerItems.length);
      const toMove: typeof guestItems = [];
      for (const item of guestItems) {
        const existing = owned.get(`${item.productId}:${item.variantId}`);
        if (!existing) toMove.push(item);
        else if (item.addedAt < existing.addedAt) await setItemAddedAt(tx, shopId, existing.id, item.addedAt);
      }
      // Earliest saved first (then by id, for a stable choice); what does not fit is deleted with the guest list.
      toMove.sort((a, b) => a.addedAt.getTime() - b.addedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const moved = toMove.slice(0, room);
      await moveItems(
        tx,
        shopId,
        moved.map((item) => item.id),
        customerList.id,
      );
      const mergedCount = moved.length;
      await deleteItemsOfList(tx, shopId, guest.id);
      const guestShared = guest.shareToken !== null && guest.shareEnabled;
      // The retired guest list names the customer it became when its token stays on it (see above).
      const pointsToCustomer = guestShared && customerList.shareToken !== null;
      await retireList(tx, shopId, guest.id, now, pointsToCustomer ? { customerId } : guestShared ? "drop" : "keep");
      let list = { ...customerList, updatedAt: now };
      if (guestShared && !pointsToCustomer) {
        // The token is unique: it leaves the guest list (above) before it joins the customer's.
        await enableShareToken(tx, shopId, customerList.id, guest.shareToken!, now);
        list = { ...list, shareToken: guest.shareToken, shareEnabled: true };
      } else {
        await touchListsBefore(tx, shopId, [customerList.id], now);
      }
      await recordEvent(tx, {
        shopId,
        type: "list.merged",
        createdAt: now,
        data: { listId: customerList.id, customerId, mergedCount },
      });
      const items = await findItemsOfList(tx, shopId, customerList.id);
      result = { list: { ...list, items, count: items.length }, mergedCount, merged: true };
    }
    await unit?.within?.(tx, result);
    return result;
  });
}
