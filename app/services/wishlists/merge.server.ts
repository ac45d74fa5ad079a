import { insertEvent } from "~/services/events/outbox.server";
import { listFromRow } from "./rows";
import { listItems, lockDefaultList, maxItemsPerList, transaction } from "./wishlists.server";

/**
 * Guest merge at login (spec 3, `identify`): the guest list's items join the customer's default list.
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
export async function mergeGuestList({
  shopId,
  customerId,
  anonymousId,
}: {
  shopId: string;
  customerId: string;
  anonymousId: string;
}) {
  return transaction(async (tx) => {
    const customerList = (await lockDefaultList(tx, shopId, { kind: "customer", customerId }, true))!;
    // Locked after the customer's list, in the same order as every other merge (no deadlock).
    const guestRow = await tx.get<Record<string, unknown>>(
      `SELECT * FROM "List" WHERE "shopId" = ? AND "anonymousId" = ? AND "customerId" IS NULL ` +
        `AND "isDefault" = TRUE AND "retiredAt" IS NULL${tx.engine === "postgres" ? " FOR UPDATE" : ""}`,
      [shopId, anonymousId],
    );
    if (!guestRow) return { listId: customerList.id, mergedCount: 0, merged: false };
    const guest = listFromRow(guestRow);

    const [guestItems, customerItems] = [await listItems(tx, guest.id), await listItems(tx, customerList.id)];
    const owned = new Map(customerItems.map((item) => [`${item.productId}:${item.variantId}`, item]));
    const room = Math.max(0, maxItemsPerList() - customerItems.length);
    const toMove: typeof guestItems = [];
    for (const item of guestItems) {
      const existing = owned.get(`${item.productId}:${item.variantId}`);
      if (!existing) toMove.push(item);
      else if (item.addedAt < existing.addedAt) {
        await tx.run(`UPDATE "Item" SET "addedAt" = ? WHERE "id" = ?`, [item.addedAt, existing.id]);
      }
    }
    // Earliest saved first (then by id, for a stable choice); what does not fit is deleted with the guest list.
    toMove.sort((a, b) => a.addedAt.getTime() - b.addedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const moved = toMove.slice(0, room);
    for (const item of moved) {
      await tx.run(`UPDATE "Item" SET "listId" = ? WHERE "id" = ?`, [customerList.id, item.id]);
    }
    const mergedCount = moved.length;
    const now = new Date();
    await tx.run(`DELETE FROM "Item" WHERE "listId" = ?`, [guest.id]);
    const guestShared = guest.shareToken !== null && guest.shareEnabled;
    // The retired guest list names the customer it became when its token stays on it (see above).
    const pointsToCustomer = guestShared && customerList.shareToken !== null;
    await tx.run(
      `UPDATE "List" SET "retiredAt" = ?, "isDefault" = NULL, "updatedAt" = ?` +
        `${guestShared && !pointsToCustomer ? `, "shareToken" = NULL` : ""}` +
        `${pointsToCustomer ? `, "customerId" = ?` : ""} WHERE "id" = ?`,
      pointsToCustomer ? [now, now, customerId, guest.id] : [now, now, guest.id],
    );
    if (guestShared && !pointsToCustomer) {
      // The token is unique: it leaves the guest list (above) before it joins the customer's.
      await tx.run(`UPDATE "List" SET "shareToken" = ?, "shareEnabled" = TRUE, "updatedAt" = ? WHERE "id" = ?`, [
        guest.shareToken,
        now,
        customerList.id,
      ]);
    } else {
      await tx.run(`UPDATE "List" SET "updatedAt" = ? WHERE "id" = ?`, [now, customerList.id]);
    }
    await insertEvent(tx, { shopId, type: "list.merged", data: { listId: customerList.id, customerId, mergedCount } });
    return { listId: customerList.id, mergedCount, merged: true };
  });
}
