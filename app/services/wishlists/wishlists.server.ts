/**
 * The shopper's wishlist: their default list and its items (docs/decisions/010-storefront-writes.md,
 * 012-storefront-hot-paths.md). Every change runs in one transaction that (1) finds or creates the list,
 * (2) locks it, (3) changes the item, (4) counts, (5) writes the event; so parallel requests for one owner
 * apply one after another, `count` is the true count at commit, and each change has exactly one event.
 * SQLite transactions hold the write lock from their start; PostgreSQL locks the list row. The analytics
 * rollups are folded in from the events by the outbox relay (services/events/relay.server.ts), not here: a
 * shop's daily row would otherwise be a lock every concurrent change of the shop waits for.
 *
 * A list holds at most MAX_ITEMS_PER_LIST items (500 by default, .env.example). A save checks the count
 * its own transaction computes after the insert, under the list's lock, and undoes itself (`list_full`)
 * when that passes the cap: concurrent saves cannot pass it together, and the save that fits costs no
 * extra query. Removing always works, even from a list above the cap (the cap was lowered).
 *
 * A shop whose settings turn guest lists off (`guestEnabled` false) keeps lists for customers only: every
 * change of an anonymous owner's list is refused (`guest_lists_disabled`), whoever asks; reads still answer.
 */
import { database, transaction, type Tx, type UnitOfWork } from "~/data/database.server";
import {
  deleteItemById,
  deleteItemByKey,
  findItemByKey,
  findListIdOfItem,
  findItemsOfList,
  findSavedKeys,
  insertItem,
  insertItems,
  countItemsOfLists,
  type ItemKey,
  type ItemRow,
} from "~/data/item-rows.server";
import {
  countOwnerLists,
  findDefaultLists,
  findOwnerList,
  findOwnerListByNameKey,
  insertDefaultLists,
  insertNamedList,
  touchListAndCount,
  touchListsBefore,
  type ListRow,
  type OwnerColumn,
} from "~/data/list-rows.server";
import { getEnv } from "~/env.server";
import { DomainError } from "~/lib/domain-error";
import { recordEvent } from "~/services/events/outbox.server";
import { noteCustomerChanges } from "~/services/metafields/customer-metafields.server";
import { requestProductSnapshots } from "~/services/products/snapshots.server";
import { ownerColumns, type Owner } from "~/services/owners/owner";
import type { ShopSettings } from "~/services/shops/settings";
import { shopSettingsOf } from "~/services/shops/shops.server";
import { itemView, type ListWithItems } from "./views";

export interface ItemRef {
  productId: string;
  /** null or absent: the product itself, without a variant. */
  variantId?: string | null;
}

export interface NewItem extends ItemRef {
  handle: string;
  title?: string;
}

/**
 * `at` (default now) dates the change: the item, its event and the rollups; tests set it. `settings`: the
 * shop's settings when the caller has them already (else they are read when the rule needs them).
 */
interface ChangeInput {
  shopId: string;
  owner: Owner;
  /** The owner's list the change is made on; absent: their default list. */
  listId?: string;
  at?: Date;
  settings?: Pick<ShopSettings, "guestEnabled">;
}

export function ownerValue(owner: Owner): { column: OwnerColumn; value: string } {
  return owner.kind === "customer"
    ? { column: "customerId", value: owner.customerId }
    : { column: "anonymousId", value: owner.anonymousId };
}

/**
 * A list holds a product once, with or without a variant (docs/decisions/032-one-item-per-product.md): the
 * key of an item is its product, so a save, toggle or removal naming any variant of a saved product finds it.
 */
const keyOf = (listId: string, item: ItemRef): ItemKey => ({ listId, productId: item.productId });

/** Refuses changes of a guest's list when the shop keeps lists for customers only. */
export function assertGuestWritesAllowed(owner: Owner, settings: Pick<ShopSettings, "guestEnabled">) {
  if (owner.kind === "anonymous" && !settings.guestEnabled) {
    throw new DomainError("guest_lists_disabled", "This shop keeps wishlists for logged-in customers only.");
  }
}

async function checkGuestWrites({ shopId, owner, settings }: ChangeInput) {
  if (owner.kind !== "anonymous") return;
  assertGuestWritesAllowed(owner, settings ?? (await shopSettingsOf(shopId)).settings);
}

/**
 * The owner's default list, locked for this transaction (PostgreSQL: row lock; SQLite: the transaction
 * already holds the write lock). With `create`, made when there is none; a concurrent creator makes the
 * insert do nothing (unique (shop, owner, isDefault) index), and the re-read finds its list.
 */
export async function lockDefaultList(tx: Tx, shopId: string, owner: Owner, create: true, at: Date): Promise<ListRow>;
export async function lockDefaultList(
  tx: Tx,
  shopId: string,
  owner: Owner,
  create: false,
  at: Date,
): Promise<ListRow | undefined>;
export async function lockDefaultList(tx: Tx, shopId: string, owner: Owner, create: boolean, at: Date) {
  const { column, value } = ownerValue(owner);
  const [found] = await findDefaultLists(tx, shopId, column, [value], { lock: true });
  if (found || !create) return found;
  await insertDefaultLists(tx, shopId, column, [value], at);
  const [created] = await findDefaultLists(tx, shopId, column, [value], { lock: true });
  if (!created) throw new Error("The default list was neither found nor created.");
  return created;
}

/**
 * The list a change names, locked as `lockDefaultList` locks the default: the owner's list `listId` (not
 * found: another owner's, another shop's, deleted or retired), or their default list when none is named.
 */
export async function lockOwnerList(
  tx: Tx,
  shopId: string,
  owner: Owner,
  listId: string | undefined,
  create: boolean,
  at: Date,
): Promise<ListRow | undefined> {
  if (listId === undefined)
    return create ? lockDefaultList(tx, shopId, owner, true, at) : lockDefaultList(tx, shopId, owner, false, at);
  const list = await findOwnerList(tx, shopId, ownerValue(owner), listId, { lock: true });
  if (!list) throw listNotFound(listId);
  return list;
}

/**
 * The owner's list that holds the item `itemId`, locked (undefined: no such item, or another owner's). The
 * list is read, then locked; a move in between (it locks both lists) sends the search round again.
 */
export async function lockListOfItem(
  tx: Tx,
  shopId: string,
  owner: Owner,
  itemId: string,
): Promise<ListRow | undefined> {
  for (let round = 0; round < 3; round++) {
    const listId = await findListIdOfItem(tx, shopId, itemId);
    if (listId === undefined) return undefined;
    const locked = await findOwnerList(tx, shopId, ownerValue(owner), listId, { lock: true });
    if (!locked) return undefined;
    if ((await findListIdOfItem(tx, shopId, itemId)) === locked.id) return locked;
  }
  return undefined;
}

export function listNotFound(listId: string) {
  return new DomainError("not_found", `This shopper has no list ${listId}.`);
}

/** The most items one list may hold (MAX_ITEMS_PER_LIST). */
export function maxItemsPerList(): number {
  return getEnv().MAX_ITEMS_PER_LIST;
}

function listFull(max: number) {
  return new DomainError(
    "list_full",
    `This wishlist already holds ${max} items, the most a list may hold. Remove an item to save another.`,
    { details: { maxItems: max } },
  );
}

/** Counts the list after the change (touching it), refuses a save past the cap, and writes the event. */
export async function finishChange(
  tx: Tx,
  {
    shopId,
    owner,
    list,
    item,
    type,
    at,
    extra,
  }: Required<Omit<ChangeInput, "settings" | "listId">> & {
    list: ListRow;
    item: ItemRow;
    type: "item.added" | "item.removed";
    /** Members the event carries besides the usual ones (a move names the other list). */
    extra?: object;
  },
) {
  const count = (await touchListAndCount(tx, shopId, list.id, at)) ?? 0;
  // The item was just inserted: past the cap, throwing rolls the insert back (the list is locked, so no
  // concurrent save can have counted the same room).
  const max = maxItemsPerList();
  if (type === "item.added" && count > max) throw listFull(max);
  await recordEvent(tx, {
    shopId,
    type,
    createdAt: at,
    data: { listId: list.id, ...ownerColumns(owner), item: itemView(item), count, ...extra },
  });
  return count;
}

/**
 * Every save is due for a product lookup from now on, titled or not (services/products/snapshots.server.ts):
 * a title the save carries is the shopper's (or the import file's) until the catalogue's replaces it
 * (docs/decisions/029-catalogue-titles.md).
 */
const newItemRow = (listId: string, item: NewItem & { note?: string; quantity?: number }, addedAt: Date) => ({
  ...keyOf(listId, item),
  variantId: item.variantId ?? "",
  handle: item.handle,
  titleSnapshot: item.title ?? "",
  addedAt,
  productLookupAt: new Date(),
  ...(item.note ? { note: item.note } : {}),
  ...(item.quantity !== undefined && item.quantity !== 1 ? { quantity: item.quantity } : {}),
});

/** The owner's default list with its items (newest first), or null: reading never creates a list. */
export async function readWishlist({ shopId, owner }: { shopId: string; owner: Owner }): Promise<ListWithItems | null> {
  const { column, value } = ownerValue(owner);
  const [list] = await findDefaultLists(database(), shopId, column, [value]);
  if (!list) return null;
  const items = await findItemsOfList(database(), shopId, list.id);
  return { ...list, items, count: items.length };
}

export interface ToggleResult {
  added: boolean;
  /** Items in the list after the change. */
  count: number;
  /** The item saved, or the item removed. */
  itemId: string;
}

/** Saves the product if it is not in the list, removes it (whatever its saved variant) if it is. */
export async function toggleItem(input: ChangeInput & { item: NewItem }, unit?: UnitOfWork<ToggleResult>) {
  await checkGuestWrites(input);
  const { shopId, owner, item, listId, at = new Date() } = input;
  const result = await transaction(async (tx) => {
    const list = (await lockOwnerList(tx, shopId, owner, listId, true, at))!;
    const removed = await deleteItemByKey(tx, shopId, keyOf(list.id, item));
    let result: ToggleResult;
    if (removed) {
      const count = await finishChange(tx, { shopId, owner, list, item: removed, type: "item.removed", at });
      result = { added: false, count, itemId: removed.id };
    } else {
      // The list is locked, so nobody else can have saved this product since the delete found nothing.
      const created = (await insertItem(tx, shopId, newItemRow(list.id, item, at)))!;
      const count = await finishChange(tx, { shopId, owner, list, item: created, type: "item.added", at });
      result = { added: true, count, itemId: created.id };
    }
    await unit?.within?.(tx, result);
    return result;
  });
  if (result.added) void requestProductSnapshots(shopId);
  return result;
}

export interface AddResult {
  item: ItemRow;
  /** false: the item was saved already (kept as it was, its addedAt too; no event). */
  created: boolean;
}

/**
 * Saves the product; a product already saved (with any variant or none) is returned as it is (its variant and
 * addedAt kept, no event).
 */
export async function addItem(input: ChangeInput & { item: NewItem }, unit?: UnitOfWork<AddResult>) {
  await checkGuestWrites(input);
  const { shopId, owner, item, listId, at = new Date() } = input;
  const result = await transaction(async (tx) => {
    const list = (await lockOwnerList(tx, shopId, owner, listId, true, at))!;
    const created = await insertItem(tx, shopId, newItemRow(list.id, item, at));
    let result: AddResult;
    if (created) {
      await finishChange(tx, { shopId, owner, list, item: created, type: "item.added", at });
      result = { item: created, created: true };
    } else {
      result = { item: (await findItemByKey(tx, shopId, keyOf(list.id, item)))!, created: false };
    }
    await unit?.within?.(tx, result);
    return result;
  });
  if (result.created) void requestProductSnapshots(shopId);
  return result;
}

/**
 * Removes one item, by id or by product (whatever its variant), from the list named (default: the owner's
 * default list; an item named by id: the owner's list that holds it). Removing what is not there changes
 * nothing; naming a list the owner does not have is `not_found`.
 */
export async function removeItem(
  input: ChangeInput & { target: { itemId: string } | ItemRef },
  unit?: UnitOfWork<{ removed: boolean }>,
) {
  await checkGuestWrites(input);
  const { shopId, owner, target, at = new Date() } = input;
  return transaction(async (tx) => {
    const list =
      input.listId === undefined && "itemId" in target
        ? await lockListOfItem(tx, shopId, owner, target.itemId)
        : await lockOwnerList(tx, shopId, owner, input.listId, false, at);
    const removed = !list
      ? undefined
      : "itemId" in target
        ? await deleteItemById(tx, shopId, list.id, target.itemId)
        : await deleteItemByKey(tx, shopId, keyOf(list.id, target));
    if (list && removed) await finishChange(tx, { shopId, owner, list, item: removed, type: "item.removed", at });
    const result = { removed: removed !== undefined };
    await unit?.within?.(tx, result);
    return result;
  });
}

/** One imported saved item: a customer's, never a guest's (docs/decisions/014-imports-exports.md). */
export interface ImportRow extends NewItem {
  customerId: string;
  addedAt: Date;
  /** The customer's named list the item goes on, as compared (`listName(...).nameKey`); absent: the default list. */
  list?: { name: string; nameKey: string };
  note?: string;
  quantity?: number;
}

/**
 * The list an imported row goes on, as one key: the customer and the list's compared name ("" for the
 * default list). `uncommitted` and the keys `importItems` returns use it.
 */
export function importListKey(row: Pick<ImportRow, "customerId" | "list">): string {
  return `${row.customerId}\u0001${row.list?.nameKey ?? ""}`;
}

const IMPORT_CHUNK = 250;

/**
 * Saves imported items into their customers' lists (created when missing), in the caller's transaction:
 * items already saved are left as they are. The default lists are locked in id order (PostgreSQL), as a
 * storefront change locks its one list, so counts in concurrent events stay true; named lists are found or
 * created under that lock, as a storefront create does (named-lists.server.ts). Imports write no events
 * (docs/decisions/014-imports-exports.md).
 *
 * A row naming a list (`list`) goes on the customer's list of that name when the shop keeps named lists
 * (`multipleLists`), made when missing while the customer keeps fewer than `maxListsPerOwner` lists; else
 * on the default list (nothing is lost), counted in `redirected`.
 * No list passes MAX_ITEMS_PER_LIST: rows for a list that is full are not saved and come back in `full`
 * (the caller reports them as skipped); rows whose item is already saved are never counted as full.
 * `uncommitted` (a dry run's earlier batches, rolled back) counts per list (`importListKey`) the items that
 * would already be in it, so they take up its room as they would in a real run. `uncommittedLists` (a dry
 * run's too) holds per customer the named lists its earlier batches made: they are made again here before
 * anything else, so they count against `maxListsPerOwner` as in a real run; the lists this batch makes are
 * added to it. `uncommittedItems` (a dry run's too) holds the keys its earlier batches inserted
 * (`<importListKey>|productId`): a row that lands on such a list with such a product is already saved, as in a
 * real run, whichever list it named.
 * A row whose product the list holds already (with any variant) is left out: one item per product.
 * Returns the `<importListKey>|productId` keys actually inserted, and those rows.
 */
export async function importItems<R extends ImportRow>(
  tx: Tx,
  {
    shopId,
    rows: given,
    at = new Date(),
    uncommitted,
    uncommittedLists,
    uncommittedItems,
    settings = { multipleLists: false, maxListsPerOwner: 1 },
  }: {
    shopId: string;
    rows: R[];
    at?: Date;
    uncommitted?: ReadonlyMap<string, number>;
    uncommittedLists?: Map<string, Array<{ name: string; nameKey: string }>>;
    uncommittedItems?: ReadonlySet<string>;
    settings?: Pick<ShopSettings, "multipleLists" | "maxListsPerOwner">;
  },
): Promise<{ inserted: string[]; full: R[]; redirected: number }> {
  const customers = [...new Set(given.map((row) => row.customerId))];
  const defaults = new Map<string, ListRow>();
  for (const list of await findDefaultLists(tx, shopId, "customerId", customers, { lock: true })) {
    defaults.set(list.customerId!, list);
  }
  const missing = customers.filter((customerId) => !defaults.has(customerId));
  if (missing.length > 0) {
    await insertDefaultLists(tx, shopId, "customerId", missing, at);
    for (const list of await findDefaultLists(tx, shopId, "customerId", missing, { lock: true })) {
      defaults.set(list.customerId!, list);
    }
  }
  for (const customerId of customers) {
    for (const list of uncommittedLists?.get(customerId) ?? []) {
      await insertNamedList(tx, shopId, { column: "customerId", value: customerId }, list, at);
    }
  }
  // Each row's list: the default one unless it names another (its own name counts as the default's).
  const lists = new Map<string, string>();
  for (const [customerId, list] of defaults) lists.set(importListKey({ customerId }), list.id);
  let redirected = 0;
  const listCounts = new Map<string, number>();
  const rows: R[] = [];
  // A row on the list it lands on; one a dry run's earlier batch inserted there is already saved.
  const take = (row: R) => {
    if (!uncommittedItems?.has(`${importListKey(row)}|${row.productId}`)) rows.push(row);
  };
  for (const row of given) {
    const named = row.list && row.list.nameKey !== defaults.get(row.customerId)!.nameKey ? row.list : undefined;
    if (!named) {
      take(row.list ? { ...row, list: undefined } : row);
      continue;
    }
    const key = importListKey({ customerId: row.customerId, list: named });
    if (!lists.has(key) && settings.multipleLists) {
      const owner = { column: "customerId" as const, value: row.customerId };
      const found = await findOwnerListByNameKey(tx, shopId, owner, named.nameKey);
      if (found) lists.set(key, found.id);
      else {
        const count = listCounts.get(row.customerId) ?? (await countOwnerLists(tx, shopId, owner));
        if (count < settings.maxListsPerOwner) {
          const created = await insertNamedList(tx, shopId, owner, named, at);
          if (created) {
            lists.set(key, created.id);
            uncommittedLists?.set(row.customerId, [...(uncommittedLists.get(row.customerId) ?? []), named]);
          }
          listCounts.set(row.customerId, count + 1);
        } else listCounts.set(row.customerId, count);
      }
    }
    if (lists.has(key)) take(row);
    else {
      redirected += 1;
      take({ ...row, list: undefined });
    }
  }
  const listOf = (row: R) => lists.get(importListKey(row))!;

  const ownerOf = new Map([...lists].map(([key, listId]) => [listId, key]));
  const counted = await countItemsOfLists(tx, shopId, [...lists.values()]);
  const counts = new Map<string, number>();
  for (const [key, listId] of lists) {
    counts.set(listId, (counted.get(listId) ?? 0) + (uncommitted?.get(key) ?? 0));
  }
  const max = maxItemsPerList();

  const inserted: string[] = [];
  const full: R[] = [];
  const touched = new Set<string>();
  const flat = (key: ItemKey) => `${key.listId}|${key.productId}`;
  for (let index = 0; index < rows.length; index += IMPORT_CHUNK) {
    let pending = rows.slice(index, index + IMPORT_CHUNK);
    let atCap: R[] = [];
    // Each round inserts, per list, only as many rows as it has room for. Rows that found their item already
    // saved leave room unused, so the rows held back get another round; the rest are for full lists.
    while (pending.length > 0) {
      const room = new Map<string, number>();
      const take: R[] = [];
      const held: R[] = [];
      for (const row of pending) {
        const listId = listOf(row);
        const left = room.get(listId) ?? max - counts.get(listId)!;
        if (left > 0) {
          take.push(row);
          room.set(listId, left - 1);
        } else {
          held.push(row);
          room.set(listId, left);
        }
      }
      if (take.length === 0) {
        atCap = held;
        break;
      }
      const created = await insertItems(
        tx,
        shopId,
        take.map((row) => newItemRow(listOf(row), row, row.addedAt)),
      );
      for (const key of created) {
        touched.add(key.listId);
        counts.set(key.listId, counts.get(key.listId)! + 1);
        inserted.push(`${ownerOf.get(key.listId)}|${key.productId}`);
      }
      pending = held;
    }
    if (atCap.length > 0) {
      // A row held back for a full list may still name an item already saved: that one is unchanged, not full.
      const keys = atCap.map((row) => keyOf(listOf(row), row));
      const saved = new Set((await findSavedKeys(tx, shopId, keys)).map(flat));
      full.push(...atCap.filter((_, position) => !saved.has(flat(keys[position]!))));
    }
  }
  // Lists already touched at `at` are not written again: an import passes its start time for every batch.
  await touchListsBefore(tx, shopId, [...touched], at);
  // Imported rows emit no events: their customers' metafields are marked here (the sweep queues the sync).
  const touchedCustomers = new Set([...touched].map((listId) => ownerOf.get(listId)!.split("\u0001")[0]!));
  await noteCustomerChanges(tx, new Map([[shopId, [...touchedCustomers]]]));
  return { inserted, full, redirected };
}
