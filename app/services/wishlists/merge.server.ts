/**
 * Guest merge at login (`POST /storefront/identify` in docs/openapi.json): the guest list's items join
 * the customer's default list.
 *  - union by product, whatever the variant (docs/decisions/032-one-item-per-product.md): on overlap the
 *    customer's item is kept, with the guest's date if that is earlier and the guest's variant if it had
 *    none;
 *  - the customer's list never passes MAX_ITEMS_PER_LIST: all of the customer's items stay, and the guest's
 *    other items move earliest `addedAt` first while there is room; the rest are not carried over (they go
 *    with the retired guest list). A customer's list already at or above the cap takes none;
 *  - `mergedCount` counts items actually moved;
 *  - the guest list is emptied and retired (no longer the anonymous id's default), so the anonymous id
 *    reads an empty list afterwards and can never reach the customer's;
 *  - one list.merged event, in the same transaction; a repeat finds no guest list, merges nothing, emits
 *    nothing, and still answers with the customer's list;
 *  - a share link the guest had sent stops working: it was made for the guest's list as it was, and the
 *    customer's list holds more than the guest chose to share (docs/decisions/033-guest-share-link-at-login.md).
 *    The token is deleted with the guest list (never taken over by the customer's list), so the link answers
 *    as an unknown one; `guestShareLinkEnded` says so, for the storefront to tell the shopper. The customer's
 *    own link, if any, is the customer's choice and stays.
 */
import { transaction, type UnitOfWork } from "~/data/database.server";
import { deleteItemsOfList, findItemsOfList, moveItems, updateMergedItem } from "~/data/item-rows.server";
import { findDefaultLists, retireList, touchListsBefore } from "~/data/list-rows.server";
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
  /** true: the guest list had a share link, which the merge turned off. */
  guestShareLinkEnded: boolean;
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
      result = {
        list: { ...customerList, items, count: items.length },
        mergedCount: 0,
        merged: false,
        guestShareLinkEnded: false,
      };
    } else {
      const guestItems = await findItemsOfList(tx, shopId, guest.id);
      const customerItems = await findItemsOfList(tx, shopId, customerList.id);
      const owned = new Map(customerItems.map((item) => [item.productId, item]));
      const room = Math.max(0, maxItemsPerList() - customerItems.length);
      const toMove: typeof guestItems = [];
      for (const item of guestItems) {
        const existing = owned.get(item.productId);
        if (!existing) {
          toMove.push(item);
          continue;
        }
        const changes = {
          ...(item.addedAt < existing.addedAt ? { addedAt: item.addedAt } : {}),
          ...(existing.variantId === "" && item.variantId !== "" ? { variantId: item.variantId } : {}),
        };
        if (Object.keys(changes).length > 0) await updateMergedItem(tx, shopId, existing.id, changes);
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
      const guestShareLinkEnded = guest.shareToken !== null && guest.shareEnabled;
      // The guest list names the customer it became (a customers/redact erases it and the events of its guest
      // days), and its share link ends (docs/decisions/033-guest-share-link-at-login.md).
      await retireList(tx, shopId, guest.id, now, { customerId, dropShareToken: true });
      await touchListsBefore(tx, shopId, [customerList.id], now);
      const list = { ...customerList, updatedAt: now };
      await recordEvent(tx, {
        shopId,
        type: "list.merged",
        createdAt: now,
        data: { listId: customerList.id, customerId, mergedCount },
      });
      const items = await findItemsOfList(tx, shopId, customerList.id);
      result = { list: { ...list, items, count: items.length }, mergedCount, merged: true, guestShareLinkEnded };
    }
    await unit?.within?.(tx, result);
    return result;
  });
}
