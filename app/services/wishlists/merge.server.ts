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
import {
  countItemsOfLists,
  deleteItemsOfList,
  findItemsOfList,
  moveItems,
  updateMergedItem,
} from "~/data/item-rows.server";
import {
  countOwnerLists,
  findDefaultLists,
  findOwnerList,
  findOwnerListByNameKey,
  findOwnerLists,
  retireList,
  touchListsBefore,
  transferList,
} from "~/data/list-rows.server";
import { shopSettingsOf } from "~/services/shops/shops.server";
import { recordEvent } from "~/services/events/outbox.server";
import { lockDefaultList, maxItemsPerList } from "./wishlists.server";
import type { ListWithItems } from "./views";

export interface MergeResult {
  /** The customer's default list after the merge, with its items. */
  list: ListWithItems;
  /** Items moved from the guest's default list. */
  mergedCount: number;
  /** false: there was no guest list to merge (a repeat). */
  merged: boolean;
  /** true: a guest list had a share link, which the merge turned off. */
  guestShareLinkEnded: boolean;
  /** What became of each guest list: merged into a list of the customer's, or moved across whole. */
  lists: MergedList[];
}

export interface MergedList {
  /** The guest's list. */
  fromListId: string;
  /** The customer's list it became or joined. */
  listId: string;
  name: string;
  /** "merged": its items joined the customer's list of that name; "moved": it became the customer's. */
  outcome: "merged" | "moved";
  /** Items that joined the customer's list (all of them for a list moved across). */
  mergedCount: number;
  /** Items not carried over: the customer's list had no room for them. */
  skippedCount: number;
}

type Tx = Parameters<Parameters<typeof transaction>[0]>[0];

/**
 * Moves the guest list's items into the customer's list (overlap: the customer's item stays, with the
 * guest's date when earlier, the guest's variant when it had none, the guest's note when it had none),
 * earliest saved first while there is room; returns how many moved and how many did not fit.
 */
async function mergeItems(tx: Tx, shopId: string, guestListId: string, customerListId: string) {
  const guestItems = await findItemsOfList(tx, shopId, guestListId);
  const customerItems = await findItemsOfList(tx, shopId, customerListId);
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
      ...(existing.note === "" && item.note !== "" ? { note: item.note } : {}),
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
    customerListId,
  );
  await deleteItemsOfList(tx, shopId, guestListId);
  return { mergedCount: moved.length, skippedCount: toMove.length - moved.length };
}

export async function mergeGuestList(
  { shopId, customerId, anonymousId }: { shopId: string; customerId: string; anonymousId: string },
  unit?: UnitOfWork<MergeResult>,
): Promise<MergeResult> {
  const { settings } = await shopSettingsOf(shopId);
  return transaction(async (tx) => {
    const now = new Date();
    const customer = { kind: "customer" as const, customerId };
    const customerList = await lockDefaultList(tx, shopId, customer, true, now);
    // Locked after the customer's list, in the same order as every other merge (no deadlock).
    const [guest] = await findDefaultLists(tx, shopId, "anonymousId", [anonymousId], { lock: true });
    const guestLists = guest
      ? (await findOwnerLists(tx, shopId, { column: "anonymousId", value: anonymousId })).filter(
          (list) => list.id !== guest.id,
        )
      : [];
    let result: MergeResult;
    if (!guest) {
      const items = await findItemsOfList(tx, shopId, customerList.id);
      result = {
        list: { ...customerList, items, count: items.length },
        mergedCount: 0,
        merged: false,
        guestShareLinkEnded: false,
        lists: [],
      };
    } else {
      const lists: MergedList[] = [];
      const { mergedCount, skippedCount } = await mergeItems(tx, shopId, guest.id, customerList.id);
      lists.push({
        fromListId: guest.id,
        listId: customerList.id,
        name: customerList.name,
        outcome: "merged",
        mergedCount,
        skippedCount,
      });
      let guestShareLinkEnded = guest.shareToken !== null && guest.shareEnabled;
      // The guest list names the customer it became (a customers/redact erases it and the events of its guest
      // days), and its share link ends (docs/decisions/033-guest-share-link-at-login.md).
      await retireList(tx, shopId, guest.id, now, { customerId, dropShareToken: true });
      const touched = new Set([customerList.id]);
      // The guest's named lists, oldest first: into the customer's list of the same name, else across whole
      // while the customer has room for another list, else into the customer's default list.
      const customerRef = { column: "customerId" as const, value: customerId };
      let listCount = await countOwnerLists(tx, shopId, customerRef);
      for (const named of guestLists) {
        const stillThere = await findOwnerList(tx, shopId, { column: "anonymousId", value: anonymousId }, named.id, {
          lock: true,
        });
        if (!stillThere) continue; // the guest deleted it while the lists were read
        guestShareLinkEnded ||= named.shareToken !== null && named.shareEnabled;
        const same = named.nameKey ? await findOwnerListByNameKey(tx, shopId, customerRef, named.nameKey) : undefined;
        if (!same && listCount < settings.maxListsPerOwner) {
          await transferList(tx, shopId, named.id, customerId, now);
          listCount++;
          // Counted under the lock: a save to the guest list may have come since the lists were read.
          const carried = (await countItemsOfLists(tx, shopId, [named.id])).get(named.id) ?? 0;
          lists.push({
            fromListId: named.id,
            listId: named.id,
            name: named.name,
            outcome: "moved",
            mergedCount: carried,
            skippedCount: 0,
          });
          continue;
        }
        // The customer's list of that name is locked before its items are read: a save to it meanwhile would
        // otherwise collide with a moved item, or pass the item cap.
        const into = same
          ? ((await findOwnerList(tx, shopId, customerRef, same.id, { lock: true })) ?? customerList)
          : customerList;
        const counts = await mergeItems(tx, shopId, named.id, into.id);
        await retireList(tx, shopId, named.id, now, { customerId, dropShareToken: true });
        touched.add(into.id);
        lists.push({ fromListId: named.id, listId: into.id, name: into.name, outcome: "merged", ...counts });
      }
      await touchListsBefore(tx, shopId, [...touched], now);
      for (const entry of lists) {
        await recordEvent(tx, {
          shopId,
          type: "list.merged",
          createdAt: now,
          data: {
            listId: entry.listId,
            customerId,
            mergedCount: entry.mergedCount,
            fromListId: entry.fromListId,
          },
        });
      }
      const list = { ...customerList, updatedAt: now };
      const items = await findItemsOfList(tx, shopId, customerList.id);
      result = {
        list: { ...list, items, count: items.length },
        mergedCount,
        merged: true,
        guestShareLinkEnded,
        lists,
      };
    }
    await unit?.within?.(tx, result);
    return result;
  });
}
