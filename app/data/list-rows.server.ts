/**
 * Statements on `List` (docs/decisions/017-data-layer.md): an owner's default list (found, locked,
 * created), share tokens, the merge of a guest list, and the merchant's browsing. Every function takes
 * the handle to run on (`database()` or a transaction's `tx`) and the shop id that scopes it.
 *
 * An owner has at most one default list per shop (`isDefault` true; the unique (shop, owner, isDefault)
 * indexes), and a retired list (a guest list merged at login) is no owner's default any more.
 */
import { sql, type Selectable } from "kysely";
import { newId } from "~/lib/ids";
import { engine, type DB, type Queryable } from "./database.server";

export type ListRow = Selectable<DB["List"]>;

/** The column that names an owner of this kind; the other one is null on that owner's lists. */
export type OwnerColumn = "customerId" | "anonymousId";

const otherColumn = (column: OwnerColumn): OwnerColumn => (column === "customerId" ? "anonymousId" : "customerId");

/**
 * The default lists of these owners (all of one kind: `column`), in id order. With `lock`, each is locked
 * for the transaction (PostgreSQL: FOR UPDATE, in id order so concurrent lockers cannot deadlock; SQLite:
 * the transaction already holds the write lock).
 */
export function findDefaultLists(
  q: Queryable,
  shopId: string,
  column: OwnerColumn,
  owners: readonly string[],
  { lock = false }: { lock?: boolean } = {},
): Promise<ListRow[]> {
  return q
    .selectFrom("List")
    .selectAll()
    .where("shopId", "=", shopId)
    .where(column, "in", owners)
    .where(otherColumn(column), "is", null)
    .where("isDefault", "=", true)
    .where("retiredAt", "is", null)
    .orderBy("id")
    .$if(lock && engine() === "postgres", (query) => query.forUpdate())
    .execute();
}

/**
 * New default lists for these owners (all of one kind: `column`), named "Wishlist", not shared. An owner
 * that already has one, or gets one from a concurrent transaction, is left alone (ON CONFLICT DO NOTHING on
 * the unique (shop, owner, isDefault) index): read the lists again afterwards.
 */
export async function insertDefaultLists(
  q: Queryable,
  shopId: string,
  column: OwnerColumn,
  owners: readonly string[],
  at: Date,
): Promise<void> {
  if (owners.length === 0) return;
  await q
    .insertInto("List")
    .values(
      owners.map((owner) => ({
        id: newId("list"),
        shopId,
        [column]: owner,
        name: "Wishlist",
        nameKey: "wishlist",
        isDefault: true,
        shareEnabled: false,
        createdAt: at,
        updatedAt: at,
      })),
    )
    .onConflict((conflict) => conflict.doNothing())
    .execute();
}

/** Sets `updatedAt` and returns the list's true item count, in one statement (null: no such list). */
export async function touchListAndCount(q: Queryable, shopId: string, listId: string, at: Date) {
  const row = await q
    .updateTable("List")
    .set({ updatedAt: at })
    .where("id", "=", listId)
    .where("shopId", "=", shopId)
    .returning((eb) =>
      eb
        .selectFrom("Item")
        .select((inner) => inner.fn.countAll<number>().as("n"))
        .where("Item.listId", "=", listId)
        .as("n"),
    )
    .executeTakeFirst();
  return row ? Number(row.n) : null;
}

/**
 * Sets `updatedAt` of these lists to `at`, except on those already touched at `at` or later (an import
 * passes its start time with every batch).
 */
export async function touchListsBefore(q: Queryable, shopId: string, listIds: readonly string[], at: Date) {
  if (listIds.length === 0) return;
  await q
    .updateTable("List")
    .set({ updatedAt: at })
    .where("shopId", "=", shopId)
    .where("id", "in", listIds)
    .where("updatedAt", "<", at)
    .execute();
}

/** Shares the list under `token` (its share link is enabled). Returns whether the list exists. */
export async function enableShareToken(q: Queryable, shopId: string, listId: string, token: string, at: Date) {
  const result = await q
    .updateTable("List")
    .set({ shareToken: token, shareEnabled: true, updatedAt: at })
    .where("id", "=", listId)
    .where("shopId", "=", shopId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Turns the list's share link off: its token is deleted (sharing again makes a new one) and `updatedAt`
 * set, as enabling sets it. Returns whether the list had a token.
 */
export async function removeShareToken(q: Queryable, shopId: string, listId: string, at: Date): Promise<boolean> {
  const result = await q
    .updateTable("List")
    .set({ shareToken: null, shareEnabled: false, updatedAt: at })
    .where("id", "=", listId)
    .where("shopId", "=", shopId)
    .where("shareToken", "is not", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Deletes the tokens that retired guest lists keep for this customer (`retireList` with `{ customerId }`):
 * the guests' old links that opened the customer's list. Returns how many there were.
 */
export async function removeShareTokensOfRetiredLists(
  q: Queryable,
  shopId: string,
  customerId: string,
  at: Date,
): Promise<number> {
  const result = await q
    .updateTable("List")
    .set({ shareToken: null, shareEnabled: false, updatedAt: at })
    .where("shopId", "=", shopId)
    .where("customerId", "=", customerId)
    .where("retiredAt", "is not", null)
    .where("shareToken", "is not", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The list shared under this token in this shop, retired or not; a disabled share finds nothing. */
export function findSharedList(q: Queryable, shopId: string, token: string): Promise<ListRow | undefined> {
  return q
    .selectFrom("List")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("shareToken", "=", token)
    .where("shareEnabled", "=", true)
    .executeTakeFirst();
}

/**
 * Retires a guest list merged into a customer's (it is no owner's default any more). `shareToken`:
 * `"drop"` removes its token (which moves to the customer's list), `{ customerId }` keeps it and names the
 * customer it became, `{ customerId, dropShareToken: true }` names the customer and removes the token. A
 * retired list that names its customer is theirs for a customers/redact, which erases it and its events.
 */
export async function retireList(
  q: Queryable,
  shopId: string,
  listId: string,
  at: Date,
  shareToken: "keep" | "drop" | { customerId: string; dropShareToken?: boolean },
): Promise<void> {
  const drop = shareToken === "drop" || (typeof shareToken === "object" && shareToken.dropShareToken === true);
  // A retired list holds no items: the merge has moved or deleted them, and any left go now (the demand report
  // counts items without reading their lists: docs/decisions/055-demand-from-the-item-index.md).
  await q.deleteFrom("Item").where("listId", "=", listId).where("shopId", "=", shopId).execute();
  await q
    .updateTable("List")
    .set({
      retiredAt: at,
      isDefault: null,
      nameKey: null,
      updatedAt: at,
      ...(drop ? { shareToken: null } : {}),
      ...(typeof shareToken === "object" ? { customerId: shareToken.customerId } : {}),
    })
    .where("id", "=", listId)
    .where("shopId", "=", shopId)
    .execute();
}

/**
 * A page of the shop's lists that are not retired (optionally one customer's), in id order: the first
 * `limit` after `after`, or the last `limit` before `before` (still returned in id order).
 */
export async function findListsPage(
  q: Queryable,
  shopId: string,
  { customerId, after, before, limit }: { customerId?: string; after?: string; before?: string; limit: number },
): Promise<ListRow[]> {
  const rows = await q
    .selectFrom("List")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("retiredAt", "is", null)
    .$if(customerId !== undefined, (query) => query.where("customerId", "=", customerId!))
    .$if(after !== undefined, (query) => query.where("id", ">", after!))
    .$if(before !== undefined, (query) => query.where("id", "<", before!))
    .orderBy("id", before !== undefined ? "desc" : "asc")
    .limit(limit)
    .execute();
  return before !== undefined ? rows.reverse() : rows;
}

/** One list of the shop that is not retired. */
export function findActiveList(q: Queryable, shopId: string, listId: string): Promise<ListRow | undefined> {
  return q
    .selectFrom("List")
    .selectAll()
    .where("id", "=", listId)
    .where("shopId", "=", shopId)
    .where("retiredAt", "is", null)
    .executeTakeFirst();
}

/** What the admin's Lists page sorts by: when a list last changed, or how many items it holds. */
export type ListSortKey = "updatedAt" | "itemCount";

/** A place in a sorted listing: the sort key's value (a timestamp as ISO text, or a count) and the id. */
export interface ListKey {
  value: string | number;
  id: string;
}

export type SortedListRow = ListRow & { itemCount: number };

/**
 * A page of the shop's lists that are not retired, sorted by `sort` in `direction` with the id as the
 * tie-break (so the order is total and a keyset holds across pages), each with its item count:
 *  - `customerIds`: only lists of these customers (an empty array finds none);
 *  - `product`: only lists holding a product whose id is `product.id`, or whose stored title contains
 *    `product.title` (lower-case; compared with the title lower-cased, LIKE with its wildcards escaped);
 *  - `nameKey`: only lists whose name, as compared (`nameKey`: trimmed, NFC, lower-cased), contains it;
 *  - the first `limit` after `after`, or the last `limit` before `before` (still returned in sort order).
 * The item count is a correlated count over Item (indexed by list): nothing to keep in step on writes.
 */
export async function findSortedListsPage(
  q: Queryable,
  shopId: string,
  {
    sort,
    direction,
    customerIds,
    product,
    nameKey,
    after,
    before,
    limit,
  }: {
    sort: ListSortKey;
    direction: "asc" | "desc";
    customerIds?: readonly string[];
    product?: { id: string | null; title: string };
    nameKey?: string;
    after?: ListKey;
    before?: ListKey;
    limit: number;
  },
): Promise<SortedListRow[]> {
  if (customerIds && customerIds.length === 0) return [];
  const lists = q
    .selectFrom("List")
    .selectAll("List")
    .select((eb) =>
      eb
        .selectFrom("Item")
        .select((inner) => inner.fn.countAll<number>().as("n"))
        .whereRef("Item.listId", "=", "List.id")
        .where("Item.shopId", "=", shopId)
        .as("itemCount"),
    )
    .where("List.shopId", "=", shopId)
    .where("List.retiredAt", "is", null)
    .$if(customerIds !== undefined, (query) => query.where("List.customerId", "in", customerIds!))
    .$if(nameKey !== undefined, (query) =>
      query.where(sql<boolean>`${sql.ref("List.nameKey")} like ${containingPattern(nameKey!)} escape '\\'`),
    )
    .$if(product !== undefined, (query) =>
      query.where(({ exists, selectFrom }) =>
        exists(
          selectFrom("Item")
            .select("Item.id")
            .whereRef("Item.listId", "=", "List.id")
            .where("Item.shopId", "=", shopId)
            .where(({ or, eb }) =>
              or([
                ...(product!.id !== null ? [eb("Item.productId", "=", product!.id)] : []),
                sql<boolean>`lower(${sql.ref("Item.titleSnapshot")}) like ${containingPattern(product!.title)} escape '\\'`,
              ]),
            ),
        ),
      ),
    )
    .as("l");
  const backwards = before !== undefined;
  const key = before ?? after;
  // Reading forwards goes on in the sort's direction; reading backwards goes against it, then turns round.
  const readDirection = backwards ? (direction === "asc" ? "desc" : "asc") : direction;
  const past = readDirection === "asc" ? ">" : "<";
  const keyValue = (value: string | number) => (sort === "updatedAt" ? new Date(String(value)) : Number(value));
  const rows = await q
    .selectFrom(lists)
    .selectAll()
    .$if(key !== undefined, (query) =>
      query.where(({ or, and, eb }) =>
        or([
          eb(`l.${sort}`, past, keyValue(key!.value)),
          and([eb(`l.${sort}`, "=", keyValue(key!.value)), eb("l.id", past, key!.id)]),
        ]),
      ),
    )
    .orderBy(`l.${sort}`, readDirection)
    .orderBy("l.id", readDirection)
    .limit(limit)
    .execute();
  const typed = rows.map((row) => ({ ...row, itemCount: Number(row.itemCount) }) as SortedListRow);
  return backwards ? typed.reverse() : typed;
}

/** A LIKE pattern for `text` anywhere, its own `%`, `_` and `\` escaped (with `escape '\'`). */
function containingPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (match) => `\\${match}`)}%`;
}

/** An owner, as the columns of their lists name them. */
export interface OwnerRef {
  column: OwnerColumn;
  value: string;
}

/** A list with its item count. */
export type CountedListRow = ListRow & { count: number };

/**
 * The owner's live lists with their item counts: the default first, then the others oldest first (by id,
 * which is time-ordered).
 */
export async function findOwnerLists(q: Queryable, shopId: string, owner: OwnerRef): Promise<CountedListRow[]> {
  const rows = await q
    .selectFrom("List")
    .selectAll("List")
    .select((eb) =>
      eb
        .selectFrom("Item")
        .select((inner) => inner.fn.countAll<number>().as("n"))
        .whereRef("Item.listId", "=", "List.id")
        .as("count"),
    )
    .where("List.shopId", "=", shopId)
    .where(`List.${owner.column}`, "=", owner.value)
    .where(`List.${otherColumn(owner.column)}`, "is", null)
    .where("List.retiredAt", "is", null)
    .orderBy(sql`case when ${sql.ref("List.isDefault")} then 0 else 1 end`)
    .orderBy("List.id")
    .execute();
  return rows.map((row) => ({ ...row, count: Number(row.count) }));
}

/**
 * How many live lists each of these owners keeps in the shop, in one grouped statement (the admin's Lists
 * page shows it beside each owner of a page); an owner with no live list is absent.
 */
export async function countListsOfOwners(
  q: Queryable,
  shopId: string,
  { customerIds, anonymousIds }: { customerIds: readonly string[]; anonymousIds: readonly string[] },
): Promise<Array<{ customerId: string | null; anonymousId: string | null; count: number }>> {
  const customers = [...new Set(customerIds)];
  const guests = [...new Set(anonymousIds)];
  if (customers.length === 0 && guests.length === 0) return [];
  const rows = await q
    .selectFrom("List")
    .select(["customerId", "anonymousId"])
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("shopId", "=", shopId)
    .where("retiredAt", "is", null)
    .where(({ or, and, eb }) =>
      or([
        ...(customers.length > 0 ? [and([eb("customerId", "in", customers), eb("anonymousId", "is", null)])] : []),
        ...(guests.length > 0 ? [and([eb("anonymousId", "in", guests), eb("customerId", "is", null)])] : []),
      ]),
    )
    .groupBy(["customerId", "anonymousId"])
    .execute();
  return rows.map((row) => ({ customerId: row.customerId, anonymousId: row.anonymousId, count: Number(row.n) }));
}

/**
 * One live list of the owner (undefined: none such in this shop for this owner). With `lock`, locked for
 * the transaction (PostgreSQL: FOR UPDATE; SQLite: the transaction holds the write lock).
 */
export function findOwnerList(
  q: Queryable,
  shopId: string,
  owner: OwnerRef,
  listId: string,
  { lock = false }: { lock?: boolean } = {},
): Promise<ListRow | undefined> {
  return q
    .selectFrom("List")
    .selectAll()
    .where("id", "=", listId)
    .where("shopId", "=", shopId)
    .where(owner.column, "=", owner.value)
    .where(otherColumn(owner.column), "is", null)
    .where("retiredAt", "is", null)
    .$if(lock && engine() === "postgres", (query) => query.forUpdate())
    .executeTakeFirst();
}

/** How many live lists the owner has. */
export async function countOwnerLists(q: Queryable, shopId: string, owner: OwnerRef): Promise<number> {
  const row = await q
    .selectFrom("List")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("shopId", "=", shopId)
    .where(owner.column, "=", owner.value)
    .where(otherColumn(owner.column), "is", null)
    .where("retiredAt", "is", null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The owner's live list whose name compares equal to `nameKey`, if any. */
export function findOwnerListByNameKey(
  q: Queryable,
  shopId: string,
  owner: OwnerRef,
  nameKey: string,
): Promise<ListRow | undefined> {
  return q
    .selectFrom("List")
    .selectAll()
    .where("shopId", "=", shopId)
    .where(owner.column, "=", owner.value)
    .where(otherColumn(owner.column), "is", null)
    .where("nameKey", "=", nameKey)
    .where("retiredAt", "is", null)
    .executeTakeFirst();
}

/**
 * A new list of the owner, not their default and not shared. Undefined when the owner has a live list of
 * that name already (the unique (shop, owner, nameKey) index: a concurrent creator's insert does nothing).
 */
export function insertNamedList(
  q: Queryable,
  shopId: string,
  owner: OwnerRef,
  { name, nameKey }: { name: string; nameKey: string },
  at: Date,
): Promise<ListRow | undefined> {
  return q
    .insertInto("List")
    .values({
      id: newId("list"),
      shopId,
      [owner.column]: owner.value,
      name,
      nameKey,
      isDefault: null,
      shareEnabled: false,
      createdAt: at,
      updatedAt: at,
    })
    .onConflict((conflict) => conflict.doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Renames the list; returns it as it is now. */
export function renameList(
  q: Queryable,
  shopId: string,
  listId: string,
  { name, nameKey }: { name: string; nameKey: string },
  at: Date,
): Promise<ListRow | undefined> {
  return q
    .updateTable("List")
    .set({ name, nameKey, updatedAt: at })
    .where("id", "=", listId)
    .where("shopId", "=", shopId)
    .where("retiredAt", "is", null)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes a list that is not its owner's default (its items go with it). Returns whether it did. */
export async function deleteNamedList(q: Queryable, shopId: string, listId: string): Promise<boolean> {
  await q.deleteFrom("Item").where("shopId", "=", shopId).where("listId", "=", listId).execute();
  const result = await q
    .deleteFrom("List")
    .where("id", "=", listId)
    .where("shopId", "=", shopId)
    .where("isDefault", "is", null)
    .where("retiredAt", "is", null)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Hands a guest's named list to the customer at login: it becomes theirs (the anonymous id cleared), under
 * the name it had. Its share link ends, as the guest's default list's does
 * (docs/decisions/033-guest-share-link-at-login.md).
 */
export async function transferList(q: Queryable, shopId: string, listId: string, customerId: string, at: Date) {
  await q
    .updateTable("List")
    .set({ customerId, anonymousId: null, shareToken: null, shareEnabled: false, updatedAt: at })
    .where("id", "=", listId)
    .where("shopId", "=", shopId)
    .execute();
  // Its items keep their list's owner (docs/decisions/055-demand-from-the-item-index.md).
  await q
    .updateTable("Item")
    .set({ ownerKey: `c:${customerId}` })
    .where("listId", "=", listId)
    .where("shopId", "=", shopId)
    .execute();
}
