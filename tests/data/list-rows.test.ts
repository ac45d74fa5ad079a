import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database, engine, transaction } from "~/data/database.server";
import { insertItem } from "~/data/item-rows.server";
import {
  enableShareToken,
  findActiveList,
  findDefaultLists,
  findListsPage,
  findSharedList,
  insertDefaultLists,
  removeShareToken,
  removeShareTokensOfRetiredLists,
  retireList,
  touchListAndCount,
  touchListsBefore,
} from "~/data/list-rows.server";
import { createShop } from "../factories";

/** Statements on List, on both engines: default lists per owner, share tokens, retirement, pages, shop scoping. */
const at = new Date("2026-02-03T04:05:06.789Z");
const item = (listId: string, productId: string) => ({
  listId,
  productId,
  variantId: "",
  handle: `p-${productId}`,
  titleSnapshot: "",
  addedAt: at,
});

describe(`list rows (${engine()})`, () => {
  it("creates one default list per owner, leaves existing ones alone, and round-trips its timestamps", async () => {
    const shop = await createShop();
    const aid = randomUUID();
    await insertDefaultLists(database(), shop.id, "anonymousId", [aid], at);
    await insertDefaultLists(database(), shop.id, "anonymousId", [aid], new Date());
    const [list, ...more] = await findDefaultLists(database(), shop.id, "anonymousId", [aid]);
    expect(more).toEqual([]);
    expect(list).toMatchObject({ anonymousId: aid, customerId: null, name: "Wishlist", isDefault: true });
    expect(list!.shareEnabled).toBe(false);
    expect(list!.createdAt.toISOString()).toBe(at.toISOString());
    expect(list!.updatedAt).toEqual(at);
    expect(list!.retiredAt).toBeNull();
  });

  it("keeps customers and guests apart, and finds many customers' lists in id order", async () => {
    const shop = await createShop();
    await insertDefaultLists(database(), shop.id, "customerId", ["1", "2", "3"], at);
    await insertDefaultLists(database(), shop.id, "anonymousId", ["1"], at);
    const customers = await findDefaultLists(database(), shop.id, "customerId", ["1", "3", "9"]);
    expect(customers.map((list) => list.customerId).sort()).toEqual(["1", "3"]);
    expect(customers.map((list) => list.id)).toEqual(customers.map((list) => list.id).sort());
    expect((await findDefaultLists(database(), shop.id, "anonymousId", ["1"])).map((l) => l.anonymousId)).toEqual([
      "1",
    ]);
  });

  it("makes one list from concurrent first inserts of one owner", async () => {
    const shop = await createShop();
    await Promise.all(
      Array.from({ length: 8 }, () => insertDefaultLists(database(), shop.id, "customerId", ["42"], new Date())),
    );
    expect(await findDefaultLists(database(), shop.id, "customerId", ["42"])).toHaveLength(1);
  });

  it("finds and changes nothing of another shop", async () => {
    const shop = await createShop();
    const other = await createShop();
    await insertDefaultLists(database(), shop.id, "customerId", ["7"], at);
    const [list] = await findDefaultLists(database(), shop.id, "customerId", ["7"]);
    expect(await findDefaultLists(database(), other.id, "customerId", ["7"])).toEqual([]);
    expect(await findActiveList(database(), other.id, list!.id)).toBeUndefined();
    expect(await touchListAndCount(database(), other.id, list!.id, new Date())).toBeNull();
    expect(await enableShareToken(database(), other.id, list!.id, `t-${randomUUID()}`, new Date())).toBe(false);
    await retireList(database(), other.id, list!.id, new Date(), "drop");
    await touchListsBefore(database(), other.id, [list!.id], new Date());
    expect(await findActiveList(database(), shop.id, list!.id)).toEqual(list);
    expect(await findListsPage(database(), other.id, { limit: 10 })).toEqual([]);
  });

  it("touches a list and counts its items in one statement", async () => {
    const shop = await createShop();
    await insertDefaultLists(database(), shop.id, "customerId", ["8"], at);
    const [list] = await findDefaultLists(database(), shop.id, "customerId", ["8"]);
    await insertItem(database(), shop.id, item(list!.id, "1"));
    await insertItem(database(), shop.id, item(list!.id, "2"));
    const later = new Date("2026-02-03T04:05:07.001Z");
    expect(await touchListAndCount(database(), shop.id, list!.id, later)).toBe(2);
    expect((await findActiveList(database(), shop.id, list!.id))!.updatedAt).toEqual(later);
  });

  it("touches lists only when they were last touched before the time given", async () => {
    const shop = await createShop();
    await insertDefaultLists(database(), shop.id, "customerId", ["1", "2"], at);
    const lists = await findDefaultLists(database(), shop.id, "customerId", ["1", "2"]);
    const later = new Date(at.getTime() + 1_000);
    await touchListsBefore(database(), shop.id, [lists[0]!.id], later);
    await touchListsBefore(database(), shop.id, [lists[0]!.id, lists[1]!.id], at);
    const after = await findDefaultLists(database(), shop.id, "customerId", ["1", "2"]);
    expect(after.map((list) => list.updatedAt.toISOString())).toEqual([later.toISOString(), at.toISOString()]);
    await touchListsBefore(database(), shop.id, [], later);
  });

  it("shares a list under a unique token and finds it by token only while sharing is enabled", async () => {
    const shop = await createShop();
    await insertDefaultLists(database(), shop.id, "customerId", ["1", "2"], at);
    const [first, second] = await findDefaultLists(database(), shop.id, "customerId", ["1", "2"]);
    const token = `t-${randomUUID()}`;
    expect(await enableShareToken(database(), shop.id, first!.id, token, at)).toBe(true);
    expect(await findSharedList(database(), shop.id, token)).toMatchObject({ id: first!.id, shareEnabled: true });
    const other = await createShop();
    expect(await findSharedList(database(), other.id, token)).toBeUndefined();
    await expect(enableShareToken(database(), shop.id, second!.id, token, at)).rejects.toThrow();
    await database().updateTable("List").set({ shareEnabled: false }).where("id", "=", first!.id).execute();
    expect(await findSharedList(database(), shop.id, token)).toBeUndefined();
  });

  it("retires a list: no longer a default, its token dropped, kept, or pointing at the customer", async () => {
    const shop = await createShop();
    const guests = [randomUUID(), randomUUID(), randomUUID()];
    await insertDefaultLists(database(), shop.id, "anonymousId", guests, at);
    const lists = await findDefaultLists(database(), shop.id, "anonymousId", guests);
    const tokens = lists.map(() => `t-${randomUUID()}`);
    for (const [index, list] of lists.entries()) {
      await enableShareToken(database(), shop.id, list.id, tokens[index]!, at);
    }
    const when = new Date("2026-05-06T07:08:09.012Z");
    await retireList(database(), shop.id, lists[0]!.id, when, "drop");
    await retireList(database(), shop.id, lists[1]!.id, when, "keep");
    await retireList(database(), shop.id, lists[2]!.id, when, { customerId: "77" });
    expect(await findDefaultLists(database(), shop.id, "anonymousId", guests)).toEqual([]);
    const rows = await database().selectFrom("List").selectAll().where("shopId", "=", shop.id).orderBy("id").execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(lists[0]!.id)).toMatchObject({ shareToken: null, isDefault: null, retiredAt: when });
    expect(byId.get(lists[1]!.id)).toMatchObject({ shareToken: tokens[1], customerId: null, retiredAt: when });
    expect(byId.get(lists[2]!.id)).toMatchObject({ shareToken: tokens[2], customerId: "77", updatedAt: when });
    expect(await findActiveList(database(), shop.id, lists[1]!.id)).toBeUndefined();
    // A retired list frees its owner's default: a new one can be made.
    await insertDefaultLists(database(), shop.id, "anonymousId", [guests[0]!], when);
    expect(await findDefaultLists(database(), shop.id, "anonymousId", [guests[0]!])).toHaveLength(1);
  });

  it("removes a list's token (only its own, only in its shop) and the tokens retired lists keep for a customer", async () => {
    const shop = await createShop();
    const other = await createShop();
    await insertDefaultLists(database(), shop.id, "customerId", ["77", "78"], at);
    await insertDefaultLists(database(), other.id, "customerId", ["77"], at);
    const guests = [randomUUID(), randomUUID(), randomUUID()];
    await insertDefaultLists(database(), shop.id, "anonymousId", guests, at);
    await insertDefaultLists(database(), other.id, "anonymousId", [guests[0]!], at);
    const [customer, neighbour] = await findDefaultLists(database(), shop.id, "customerId", ["77", "78"]);
    const [foreignCustomer] = await findDefaultLists(database(), other.id, "customerId", ["77"]);
    const guestLists = await findDefaultLists(database(), shop.id, "anonymousId", guests);
    const [foreignGuest] = await findDefaultLists(database(), other.id, "anonymousId", [guests[0]!]);
    const all = [customer!, neighbour!, foreignCustomer!, ...guestLists, foreignGuest!];
    const tokens = new Map(all.map((list) => [list.id, `t-${randomUUID()}`]));
    for (const list of all) await enableShareToken(database(), list.shopId, list.id, tokens.get(list.id)!, at);
    // Two guest lists now lead to customer 77, one to 78; the other shop's to its own customer 77.
    await retireList(database(), shop.id, guestLists[0]!.id, at, { customerId: "77" });
    await retireList(database(), shop.id, guestLists[1]!.id, at, { customerId: "77" });
    await retireList(database(), shop.id, guestLists[2]!.id, at, { customerId: "78" });
    await retireList(database(), other.id, foreignGuest!.id, at, { customerId: "77" });

    const when = new Date("2026-05-06T07:08:09.012Z");
    expect(await removeShareToken(database(), other.id, customer!.id, when)).toBe(false);
    expect(await removeShareToken(database(), shop.id, customer!.id, when)).toBe(true);
    expect(await removeShareToken(database(), shop.id, customer!.id, when)).toBe(false);
    expect(await removeShareTokensOfRetiredLists(database(), shop.id, "77", when)).toBe(2);
    expect(await removeShareTokensOfRetiredLists(database(), shop.id, "77", when)).toBe(0);

    const rows = new Map(
      (await database().selectFrom("List").selectAll().execute()).map((row) => [row.id, row] as const),
    );
    for (const list of [customer!, guestLists[0]!, guestLists[1]!]) {
      expect(rows.get(list.id)).toMatchObject({ shareToken: null, shareEnabled: false, updatedAt: when });
    }
    // Another customer's links, the other shop's, and the guest link that leads to customer 78 stay.
    for (const list of [neighbour!, foreignCustomer!, guestLists[2]!, foreignGuest!]) {
      expect(rows.get(list.id)).toMatchObject({ shareToken: tokens.get(list.id), shareEnabled: true });
    }
  });

  it("pages the shop's lists in id order, without retired ones, optionally one customer's", async () => {
    const shop = await createShop();
    await insertDefaultLists(database(), shop.id, "customerId", ["1", "2", "3"], at);
    const aid = randomUUID();
    await insertDefaultLists(database(), shop.id, "anonymousId", [aid], at);
    const [guest] = await findDefaultLists(database(), shop.id, "anonymousId", [aid]);
    await retireList(database(), shop.id, guest!.id, at, "keep");
    const first = await findListsPage(database(), shop.id, { limit: 2 });
    const rest = await findListsPage(database(), shop.id, { after: first.at(-1)!.id, limit: 10 });
    expect([...first, ...rest].map((list) => list.customerId)).toHaveLength(3);
    expect([...first, ...rest].map((list) => list.id)).toEqual([...first, ...rest].map((list) => list.id).sort());
    expect((await findListsPage(database(), shop.id, { customerId: "2", limit: 10 })).map((l) => l.customerId)).toEqual(
      ["2"],
    );
    // Backwards: the last ones before an id, still in id order.
    const all = [...first, ...rest].map((list) => list.id);
    expect((await findListsPage(database(), shop.id, { before: all[2]!, limit: 1 })).map((l) => l.id)).toEqual([
      all[1],
    ]);
    expect((await findListsPage(database(), shop.id, { before: all[2]!, limit: 10 })).map((l) => l.id)).toEqual(
      all.slice(0, 2),
    );
  });

  it("locks a default list for a transaction: concurrent read-modify-writes apply one after another", async () => {
    const shop = await createShop();
    await insertDefaultLists(database(), shop.id, "customerId", ["5"], at);
    await Promise.all(
      Array.from({ length: 10 }, () =>
        transaction(async (tx) => {
          const [list] = await findDefaultLists(tx, shop.id, "customerId", ["5"], { lock: true });
          const next = String(Number(list!.name === "Wishlist" ? 0 : list!.name) + 1);
          await tx.updateTable("List").set({ name: next }).where("id", "=", list!.id).execute();
        }),
      ),
    );
    const [list] = await findDefaultLists(database(), shop.id, "customerId", ["5"]);
    expect(list!.name).toBe("10");
  });
});
