import { getEnv } from "~/env.server";
import { writeEvent } from "~/services/events/outbox.server";
import { inTransaction, lockDefaultList } from "./wishlists.server";

/**
 * Guest merge at login (spec 3, `identify`): the guest list's items join the customer's default list.
 *  - union by product+variant; on overlap the earlier `addedAt` wins (the customer's item is kept, with
 *    the guest's date if that is earlier);
 *  - `mergedCount` counts items actually moved;
 *  - the guest list is emptied and retired (no longer the anonymous id's default), so the anonymous id
 *    reads an empty list afterwards and can never reach the customer's;
 *  - one list.merged event, in the same transaction; a repeat finds no guest list, merges nothing, emits
 *    nothing, and still answers with the customer's list.
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
  return inTransaction(async (tx) => {
    const guest = await tx.list.findFirst({
      where: { shopId, anonymousId, customerId: null, isDefault: true, retiredAt: null },
    });
    const customerList = (await lockDefaultList(tx, shopId, { kind: "customer", customerId }, true))!;
    if (!guest) return { listId: customerList.id, mergedCount: 0, merged: false };

    if (getEnv().DATABASE_ENGINE === "postgres") {
      await tx.$executeRawUnsafe(`SELECT 1 FROM "List" WHERE "id" = $1 FOR UPDATE`, guest.id);
    }
    const [guestItems, customerItems] = await Promise.all([
      tx.item.findMany({ where: { listId: guest.id } }),
      tx.item.findMany({ where: { listId: customerList.id } }),
    ]);
    const owned = new Map(customerItems.map((item) => [`${item.productId}:${item.variantId}`, item]));
    let mergedCount = 0;
    for (const item of guestItems) {
      const existing = owned.get(`${item.productId}:${item.variantId}`);
      if (!existing) {
        await tx.item.update({ where: { id: item.id }, data: { listId: customerList.id } });
        mergedCount++;
      } else if (item.addedAt < existing.addedAt) {
        await tx.item.update({ where: { id: existing.id }, data: { addedAt: item.addedAt } });
      }
    }
    await tx.item.deleteMany({ where: { listId: guest.id } });
    await tx.list.update({ where: { id: guest.id }, data: { retiredAt: new Date(), isDefault: null } });
    await tx.list.update({ where: { id: customerList.id }, data: { updatedAt: new Date() } });
    await writeEvent(tx, { shopId, type: "list.merged", data: { listId: customerList.id, customerId, mergedCount } });
    return { listId: customerList.id, mergedCount, merged: true };
  });
}
