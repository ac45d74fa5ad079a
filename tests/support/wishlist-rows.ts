import { database } from "~/data/database.server";

/** Assertions on wishlist rows and their events, read with the data layer's handle (no service involved). */
export function eventsOf(shopId: string, type?: string) {
  return database()
    .selectFrom("Event")
    .selectAll()
    .where("shopId", "=", shopId)
    .$if(type !== undefined, (query) => query.where("type", "=", type!))
    .orderBy("id")
    .execute();
}

export async function countEvents(shopId: string, type?: string): Promise<number> {
  return (await eventsOf(shopId, type)).length;
}

/** Items of the shop, or of one customer's default list. */
export function itemsOf(shopId: string, customerId?: string) {
  return database()
    .selectFrom("Item")
    .innerJoin("List", "List.id", "Item.listId")
    .selectAll("Item")
    .where("Item.shopId", "=", shopId)
    .$if(customerId !== undefined, (query) =>
      query.where("List.customerId", "=", customerId!).where("List.isDefault", "=", true),
    )
    .orderBy("Item.id")
    .execute();
}

export async function countItems(shopId: string, customerId?: string): Promise<number> {
  return (await itemsOf(shopId, customerId)).length;
}

export function listsOf(shopId: string) {
  return database().selectFrom("List").selectAll().where("shopId", "=", shopId).orderBy("id").execute();
}

export async function countLists(shopId: string): Promise<number> {
  return (await listsOf(shopId)).length;
}
