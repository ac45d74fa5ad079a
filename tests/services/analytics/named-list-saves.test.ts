/**
 * Analytics count saves on every list (issue 28, item 8; docs/decisions/046-named-lists.md): a save on a
 * named list is a save like one on the default list, a copy to another list is one too, and a move between
 * two lists of one owner is neither a save nor a removal. The rollups are folded in by the real outbox relay
 * (as the worker runs it) and read back through the reports the admin's Analytics page and /v1 show.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { activity, topProducts } from "~/services/analytics/reports.server";
import type { Owner } from "~/services/owners/owner";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createList, moveItem } from "~/services/wishlists/named-lists.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { createShop } from "../../factories";
import { drainOutbox, pendingEvents } from "../../support/webhook-rows";

const item = (productId: string) => ({ productId, handle: `p-${productId}` });

async function productStats(shopId: string) {
  const rows = await database()
    .selectFrom("DailyProductStat")
    .select(["productId", "adds", "removes"])
    .where("shopId", "=", shopId)
    .orderBy("productId")
    .execute();
  return rows.map((row) => ({ productId: row.productId, adds: row.adds, removes: row.removes }));
}

describe("analytics over named lists", () => {
  it("counts saves on named lists and copies, and no save or removal for a move between one owner's lists", async () => {
    const shop = await createShop();
    await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true } });
    const customer: Owner = { kind: "customer", customerId: "7001" };
    const guest: Owner = { kind: "anonymous", anonymousId: randomUUID() };
    const shopId = shop.id;

    // GIVEN saves on the default list and on named lists of a customer and of a guest
    await toggleItem({ shopId, owner: customer, item: item("1") }); // default list: save 1
    const gifts = await createList({ shopId, owner: customer, name: "Gifts" });
    await toggleItem({ shopId, owner: customer, listId: gifts.id, item: item("1") }); // save 2 (same product, other list)
    const onGifts = await toggleItem({ shopId, owner: customer, listId: gifts.id, item: item("2") }); // save 3
    const room = await createList({ shopId, owner: customer, name: "Living room" });
    const onRoom = await toggleItem({ shopId, owner: customer, listId: room.id, item: item("3") }); // save 4
    const guestList = await createList({ shopId, owner: guest, name: "Ideas" });
    await toggleItem({ shopId, owner: guest, listId: guestList.id, item: item("1") }); // save 5
    // a copy to the default list is a save on it (save 6); a move from one list to another is not
    const defaultListId = (
      await database()
        .selectFrom("List")
        .select("id")
        .where("shopId", "=", shopId)
        .where("customerId", "=", "7001")
        .where("isDefault", "=", true)
        .executeTakeFirstOrThrow()
    ).id;
    await moveItem({ shopId, owner: customer, itemId: onGifts.itemId, toListId: defaultListId, copy: true });
    await moveItem({ shopId, owner: customer, itemId: onRoom.itemId, toListId: gifts.id, copy: false });
    // and a removal from a named list is a removal
    await toggleItem({ shopId, owner: customer, listId: gifts.id, item: item("2") });

    // WHEN the relay folds the events in (the worker's job)
    await drainOutbox();
    expect(await pendingEvents(shopId)).toBe(0);

    // THEN every save counts, whichever list it was on; the move counts as nothing
    expect(await productStats(shopId)).toEqual([
      { productId: "1", adds: 3, removes: 0 },
      { productId: "2", adds: 2, removes: 1 },
      { productId: "3", adds: 1, removes: 0 },
    ]);
    const { totals } = await activity({ shopId, range: "7d" });
    expect(totals).toEqual({ adds: 6, removes: 1, activeShoppers: 2 });
    // and the current savers are the shoppers holding each product now, on any list: product 1 on the
    // customer's default list and Gifts (one shopper) and on the guest's Ideas; product 2 on the default list
    // (its copy); product 3 on Gifts, where it was moved.
    const { products } = await topProducts({ shopId, range: "7d" });
    expect(products.map(({ productId, saves, removes, savers }) => ({ productId, saves, removes, savers }))).toEqual([
      { productId: "1", saves: 3, removes: 0, savers: 2 },
      { productId: "2", saves: 2, removes: 1, savers: 1 },
      { productId: "3", saves: 1, removes: 0, savers: 1 },
    ]);
  });
});
