/**
 * Named lists (docs/decisions/046-named-lists.md): besides the default list every owner keeps, a shopper
 * may create lists with names of their own ("Gifts", "Living room"), rename and delete them, and move,
 * copy, annotate and count the items on them.
 *  - Names are unique per owner compared trimmed, NFC and lower-cased (`nameKey`, unique indexes on
 *    (shop, owner, nameKey)); 1-60 characters.
 *  - Every change of an owner's set of lists (create, rename, delete, move, copy) first locks the owner's
 *    default list, created when missing, so two such changes of one owner apply one after the other and
 *    the cap (`settings.maxListsPerOwner`) and the name checks hold under concurrency. An item change locks
 *    the list it changes, as a save does (wishlists.server.ts).
 *  - Creating a list needs `settings.multipleLists`; the other changes are always allowed, so a shop that
 *    turns named lists off leaves its shoppers able to tidy what they made.
 */
import { database, transaction, type Tx, type UnitOfWork } from "~/data/database.server";
import {
  copyItem,
  findItemByKey,
  findItemOfList,
  findItemsOfList,
  findProductsOfLists,
  moveItem as moveItemRow,
  updateItemDetails,
  type ItemRow,
} from "~/data/item-rows.server";
import {
  countOwnerLists,
  deleteNamedList,
  findOwnerList,
  findOwnerListByNameKey,
  findOwnerLists,
  insertNamedList,
  renameList as renameListRow,
  touchListAndCount,
  type CountedListRow,
  type ListRow,
} from "~/data/list-rows.server";
import { DomainError } from "~/lib/domain-error";
import { recordEvent } from "~/services/events/outbox.server";
import { ownerColumns, type Owner } from "~/services/owners/owner";
import type { ShopSettings } from "~/services/shops/settings";
import { shopSettingsOf } from "~/services/shops/shops.server";
import { itemView, type ListWithItems } from "./views";
import {
  assertGuestWritesAllowed,
  finishChange,
  listNotFound,
  lockDefaultList,
  lockListOfItem,
  ownerValue,
} from "./wishlists.server";

/** The longest list name, in characters (after trimming). */
export const MAX_LIST_NAME = 60;
/** The longest note, in characters. */
export const MAX_NOTE = 280;

/**
 * Never part of a name: control characters, lone surrogates, and format characters (bidi overrides and the
 * like) except the zero-width joiner and non-joiner that Persian words and emoji sequences need. The API
 * refuses a name holding one; an import replaces each with a space (`g` flag: a copy with `new RegExp`).
 */
export const NAME_REFUSED = /[\p{Cc}\p{Cs}\u2028\u2029]|(?![\u200c\u200d])\p{Cf}/u;
/** Never part of a note: the same, line breaks and tabs aside. */
export const NOTE_REFUSED = /(?![\n\t])\p{Cc}|\p{Cs}|[\u2028\u2029]|(?![\u200c\u200d])\p{Cf}/u;

/** A list name as shown (trimmed, NFC) and as compared (`nameKey`: also lower-cased). */
export function listName(raw: string): { name: string; nameKey: string } {
  const name = raw.normalize("NFC").trim();
  return { name, nameKey: name.toLowerCase() };
}

type Settings = Pick<ShopSettings, "guestEnabled" | "multipleLists" | "maxListsPerOwner">;

interface OwnerInput {
  shopId: string;
  owner: Owner;
  /** The shop's settings when the caller has them already. */
  settings?: Settings;
  at?: Date;
}

async function settingsOf(input: OwnerInput): Promise<Settings> {
  return input.settings ?? (await shopSettingsOf(input.shopId)).settings;
}

/** The owner's default list when they have none yet: reading never creates a list. */
function virtualDefault(shopId: string, owner: Owner): CountedListRow {
  const at = new Date(0);
  return {
    id: "",
    shopId,
    ...ownerColumns(owner),
    name: "Wishlist",
    nameKey: "wishlist",
    isDefault: true,
    shareToken: null,
    shareEnabled: false,
    retiredAt: null,
    createdAt: at,
    updatedAt: at,
    count: 0,
  };
}

/**
 * The owner's lists with their item counts: the default first, then the others oldest first. An owner with
 * no list yet gets their default list as it would be, empty (its id "" marks it as not made yet).
 */
export async function listOwnerLists({ shopId, owner }: OwnerInput): Promise<CountedListRow[]> {
  const lists = await findOwnerLists(database(), shopId, ownerValue(owner));
  return lists.length > 0 ? lists : [virtualDefault(shopId, owner)];
}

/** What a list holds, by product: its item ids with their product and variant. */
export interface SavedProduct {
  itemId: string;
  productId: string;
  variantId: string | null;
  handle: string;
}

/**
 * The owner's lists, each with the products it holds (`GET /storefront/wishlists?include=products`): what the
 * storefront needs to fill every heart and tick the list picker, in two queries whatever the number of lists.
 */
export async function listOwnerListsWithProducts(
  input: OwnerInput,
): Promise<Array<CountedListRow & { products: SavedProduct[] }>> {
  const lists = await listOwnerLists(input);
  const made = lists.filter((list) => list.id !== "").map((list) => list.id);
  const rows = await findProductsOfLists(database(), input.shopId, made);
  const byList = new Map<string, SavedProduct[]>();
  for (const row of rows) {
    const products = byList.get(row.listId) ?? [];
    products.push({ itemId: row.id, productId: row.productId, variantId: row.variantId || null, handle: row.handle });
    byList.set(row.listId, products);
  }
  return lists.map((list) => ({ ...list, products: byList.get(list.id) ?? [] }));
}

/** One of the owner's lists with its items (newest first). */
export async function readOwnerList({
  shopId,
  owner,
  listId,
}: OwnerInput & { listId: string }): Promise<ListWithItems> {
  const db = database();
  const list = await findOwnerList(db, shopId, ownerValue(owner), listId);
  if (!list) throw listNotFound(listId);
  const items = await findItemsOfList(db, shopId, list.id);
  return { ...list, items, count: items.length };
}

function nameTaken(name: string) {
  return new DomainError("list_name_taken", `This shopper has a list named "${name}" already.`, {
    issues: [{ field: "name", message: "a list of this name exists (names are compared ignoring case)" }],
  });
}

/**
 * Creates a named list (emits list.created). Refused when the shop keeps one list per shopper, when the
 * owner keeps the most lists allowed, or when the name is taken.
 */
export async function createList(
  input: OwnerInput & { name: string },
  unit?: UnitOfWork<CountedListRow>,
): Promise<CountedListRow> {
  const settings = await settingsOf(input);
  assertGuestWritesAllowed(input.owner, settings);
  if (!settings.multipleLists) {
    throw new DomainError("multiple_lists_disabled", "This shop keeps one wishlist per shopper.");
  }
  const { shopId, owner, at = new Date() } = input;
  const { name, nameKey } = listName(input.name);
  return transaction(async (tx) => {
    await lockDefaultList(tx, shopId, owner, true, at);
    const ref = ownerValue(owner);
    if (await findOwnerListByNameKey(tx, shopId, ref, nameKey)) throw nameTaken(name);
    const max = settings.maxListsPerOwner;
    if ((await countOwnerLists(tx, shopId, ref)) >= max) {
      throw new DomainError("too_many_lists", `This shopper keeps ${max} lists, the most this shop allows.`, {
        details: { maxLists: max },
      });
    }
    const created = await insertNamedList(tx, shopId, ref, { name, nameKey }, at);
    if (!created) throw nameTaken(name);
    await recordEvent(tx, {
      shopId,
      type: "list.created",
      createdAt: at,
      data: { listId: created.id, ...ownerColumns(owner), name },
    });
    const result = { ...created, count: 0 };
    await unit?.within?.(tx, result);
    return result;
  });
}

/** The owner's list `listId`, locked after their default list (the owner's lock for changes of their lists). */
async function lockForListChange(tx: Tx, shopId: string, owner: Owner, listId: string, at: Date): Promise<ListRow> {
  const defaultList = await lockDefaultList(tx, shopId, owner, false, at);
  if (!defaultList) throw listNotFound(listId); // an owner without a default list has no list at all
  if (defaultList.id === listId) return defaultList;
  const list = await findOwnerList(tx, shopId, ownerValue(owner), listId, { lock: true });
  if (!list) throw listNotFound(listId);
  return list;
}

/** Renames one of the owner's lists, the default one included. No event: the contract has none for it. */
export async function renameList(input: OwnerInput & { listId: string; name: string }): Promise<CountedListRow> {
  assertGuestWritesAllowed(input.owner, await settingsOf(input));
  const { shopId, owner, listId, at = new Date() } = input;
  const { name, nameKey } = listName(input.name);
  return transaction(async (tx) => {
    const list = await lockForListChange(tx, shopId, owner, listId, at);
    const same = await findOwnerListByNameKey(tx, shopId, ownerValue(owner), nameKey);
    if (same && same.id !== list.id) throw nameTaken(name);
    const renamed = (await renameListRow(tx, shopId, list.id, { name, nameKey }, at))!;
    const count = (await touchListAndCount(tx, shopId, list.id, at)) ?? 0;
    return { ...renamed, count };
  });
}

/** Deletes one of the owner's named lists and its items (emits list.deleted); the default list stays. */
export async function deleteList(input: OwnerInput & { listId: string }): Promise<void> {
  assertGuestWritesAllowed(input.owner, await settingsOf(input));
  const { shopId, owner, listId, at = new Date() } = input;
  await transaction(async (tx) => {
    const list = await lockForListChange(tx, shopId, owner, listId, at);
    if (list.isDefault) {
      throw new DomainError("default_list", "The default list cannot be deleted: empty it or rename it instead.");
    }
    const count = (await touchListAndCount(tx, shopId, list.id, at)) ?? 0;
    await deleteNamedList(tx, shopId, list.id);
    await recordEvent(tx, {
      shopId,
      type: "list.deleted",
      createdAt: at,
      data: { listId: list.id, ...ownerColumns(owner), name: list.name, count },
    });
  });
}

/** The owner's item `itemId` and its list, the list locked (not found: another owner's item, or none). */
async function lockItemOfOwner(tx: Tx, shopId: string, owner: Owner, itemId: string) {
  const list = await lockListOfItem(tx, shopId, owner, itemId);
  const item = list && (await findItemOfList(tx, shopId, list.id, itemId));
  if (!list || !item) throw new DomainError("not_found", `This shopper has no item ${itemId}.`);
  return { list, item };
}

export interface ItemDetails {
  note?: string | null;
  quantity?: number;
}

/**
 * Sets an item's note and quantity (emits item.updated naming what changed; a change to the same values
 * changes nothing and emits nothing), on whichever of the owner's lists the item sits.
 */
export async function updateItem(
  input: OwnerInput & { itemId: string; changes: ItemDetails },
  unit?: UnitOfWork<ItemRow>,
): Promise<ItemRow> {
  assertGuestWritesAllowed(input.owner, await settingsOf(input));
  const { shopId, owner, itemId, at = new Date() } = input;
  return transaction(async (tx) => {
    const { list, item } = await lockItemOfOwner(tx, shopId, owner, itemId);
    const changes: { note?: string; quantity?: number } = {};
    if (input.changes.note !== undefined && (input.changes.note ?? "") !== item.note) {
      changes.note = input.changes.note ?? "";
    }
    if (input.changes.quantity !== undefined && input.changes.quantity !== item.quantity) {
      changes.quantity = input.changes.quantity;
    }
    let result = item;
    const changed = Object.keys(changes) as Array<"note" | "quantity">;
    if (changed.length > 0) {
      result = (await updateItemDetails(tx, shopId, item.id, changes))!;
      await touchListAndCount(tx, shopId, list.id, at);
      await recordEvent(tx, {
        shopId,
        type: "item.updated",
        createdAt: at,
        data: { listId: list.id, ...ownerColumns(owner), item: itemView(result), changed },
      });
    }
    await unit?.within?.(tx, result);
    return result;
  });
}

function itemInList(existing: ItemRow) {
  return new DomainError("item_in_list", "That list holds this product already.", {
    details: { itemId: existing.id },
  });
}

/**
 * Moves (or, with `copy`, copies) an item to another list of the same owner. A move emits item.removed on
 * the list it leaves and item.added on the one it joins, each naming the other list (no new save for the
 * analytics); a copy emits item.added. The list joined must have room and must not hold the product.
 */
export async function moveItem(
  input: OwnerInput & { itemId: string; toListId: string; copy: boolean },
  unit?: UnitOfWork<ItemRow>,
): Promise<ItemRow> {
  assertGuestWritesAllowed(input.owner, await settingsOf(input));
  const { shopId, owner, itemId, toListId, copy, at = new Date() } = input;
  return transaction(async (tx) => {
    const target = await lockForListChange(tx, shopId, owner, toListId, at);
    const { list: source, item } = await lockItemOfOwner(tx, shopId, owner, itemId);
    const existing = await findItemByKey(tx, shopId, { listId: target.id, productId: item.productId });
    if (existing) throw itemInList(existing);
    let result: ItemRow;
    if (copy) {
      result = (await copyItem(tx, item, target.id))!;
      await finishChange(tx, { shopId, owner, list: target, item: result, type: "item.added", at });
    } else {
      result = (await moveItemRow(tx, shopId, item.id, target.id))!;
      await finishChange(tx, {
        shopId,
        owner,
        list: source,
        item,
        type: "item.removed",
        at,
        extra: { movedToListId: target.id },
      });
      await finishChange(tx, {
        shopId,
        owner,
        list: target,
        item: result,
        type: "item.added",
        at,
        extra: { movedFromListId: source.id },
      });
    }
    await unit?.within?.(tx, result);
    return result;
  });
}
