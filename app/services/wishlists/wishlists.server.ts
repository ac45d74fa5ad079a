import { prisma, type Prisma } from "~/db.server";
import { getEnv } from "~/env.server";
import type { Item, List } from "~/generated/prisma-sqlite/client";
import { newId } from "~/lib/ids";
import { recordItemChange } from "~/services/analytics/rollups.server";
import { writeEvent } from "~/services/events/outbox.server";
import { ownerEventFields, ownerWhere, type Owner } from "./owner";
import { serializeItem } from "./serialize";

/**
 * Storefront wishlist operations on an owner's default list. Every change runs in one transaction that
 * (1) finds or creates the list, (2) locks it, (3) changes the item, (4) counts, (5) writes the event;
 * so parallel requests for one owner apply one after another, `count` is the true count at commit, and
 * each change has exactly one event (docs/decisions/010-storefront-writes.md).
 */
export interface ItemRef {
  productId: string;
  /** null or absent: the product itself, without a variant. */
  variantId?: string | null;
}

export interface NewItem extends ItemRef {
  handle: string;
  title?: string;
}

type Tx = Prisma.TransactionClient;

const MAX_ATTEMPTS = 5;

/**
 * Retried: unique violations (two requests creating the same list or item), write conflicts, and SQLite's
 * busy errors (a deferred transaction that read, then found another connection had written: it may not
 * upgrade to a writer and must start again).
 */
function isRetryable(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === "P2002" || code === "P2034" || code === "SQLITE_BUSY" || code === "SQLITE_BUSY_SNAPSHOT";
}

/**
 * In one process the SQLite driver adapter already runs transactions one at a time; another process
 * writing the same file (the worker) can still make a transaction fail busy, hence the retry with jitter.
 */
export async function inTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await prisma.$transaction(work, { maxWait: 10_000, timeout: 10_000 });
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt * Math.random()));
    }
  }
}

function defaultListWhere(shopId: string, owner: Owner) {
  return { shopId, ...ownerWhere(owner), isDefault: true, retiredAt: null };
}

/**
 * The owner's default list, locked for this transaction (PostgreSQL: row lock; SQLite: writers are
 * serialised by the database). Created when `create` is set and there is none.
 */
export async function lockDefaultList(tx: Tx, shopId: string, owner: Owner, create: boolean): Promise<List | null> {
  const list = await tx.list.findFirst({ where: defaultListWhere(shopId, owner) });
  if (list) {
    if (getEnv().DATABASE_ENGINE === "postgres") {
      await tx.$executeRawUnsafe(`SELECT 1 FROM "List" WHERE "id" = $1 FOR UPDATE`, list.id);
    }
    return list;
  }
  if (!create) return null;
  // A concurrent creator makes this insert fail on the unique (shop, owner, isDefault) index: retried.
  return tx.list.create({ data: { id: newId("list"), shopId, ...ownerWhere(owner), isDefault: true } });
}

async function finishChange(
  tx: Tx,
  {
    shopId,
    owner,
    list,
    item,
    type,
    at,
  }: { shopId: string; owner: Owner; list: List; item: Item; type: "item.added" | "item.removed"; at: Date },
) {
  const count = await tx.item.count({ where: { listId: list.id } });
  await tx.list.update({ where: { id: list.id }, data: { updatedAt: at } });
  await writeEvent(tx, {
    shopId,
    type,
    createdAt: at,
    data: { listId: list.id, ...ownerEventFields(owner), item: serializeItem(item), count },
  });
  await recordItemChange(tx, { shopId, owner, productId: item.productId, type, at });
  return count;
}

function itemKey(listId: string, ref: ItemRef) {
  return { listId_productId_variantId: { listId, productId: ref.productId, variantId: ref.variantId ?? "" } };
}

/** The owner's default list with its items (newest first), or null: reading never creates a list. */
export async function readWishlist({ shopId, owner }: { shopId: string; owner: Owner }) {
  const list = await prisma.list.findFirst({
    where: defaultListWhere(shopId, owner),
    include: { items: { orderBy: [{ addedAt: "desc" }, { id: "desc" }] } },
  });
  return list ? { ...list, count: list.items.length } : null;
}

/** Saves the item if it is not in the list, removes it if it is. */
/** `at` (default now) dates the change: the item, its event and the rollups; tests set it. */
interface ChangeInput {
  shopId: string;
  owner: Owner;
  at?: Date;
}

export async function toggleItem({ shopId, owner, item, at = new Date() }: ChangeInput & { item: NewItem }) {
  return inTransaction(async (tx) => {
    const list = (await lockDefaultList(tx, shopId, owner, true))!;
    const existing = await tx.item.findUnique({ where: itemKey(list.id, item) });
    if (existing) {
      await tx.item.delete({ where: { id: existing.id } });
      const count = await finishChange(tx, { shopId, owner, list, item: existing, type: "item.removed", at });
      return { added: false, count, itemId: existing.id };
    }
    const created = await tx.item.create({ data: newItemData(shopId, list.id, item, at) });
    const count = await finishChange(tx, { shopId, owner, list, item: created, type: "item.added", at });
    return { added: true, count, itemId: created.id };
  });
}

/** Saves the item; an item already saved is returned as it is (its addedAt kept, no event). */
export async function addItem({ shopId, owner, item, at = new Date() }: ChangeInput & { item: NewItem }) {
  return inTransaction(async (tx) => {
    const list = (await lockDefaultList(tx, shopId, owner, true))!;
    const existing = await tx.item.findUnique({ where: itemKey(list.id, item) });
    if (existing) return { item: existing, created: false };
    const created = await tx.item.create({ data: newItemData(shopId, list.id, item, at) });
    await finishChange(tx, { shopId, owner, list, item: created, type: "item.added", at });
    return { item: created, created: true };
  });
}

/** Removes one item, by id or by product+variant. Removing what is not there changes nothing. */
export async function removeItem({
  shopId,
  owner,
  target,
  at = new Date(),
}: ChangeInput & { target: { itemId: string } | ItemRef }) {
  return inTransaction(async (tx) => {
    const list = await lockDefaultList(tx, shopId, owner, false);
    if (!list) return { removed: false };
    const existing =
      "itemId" in target
        ? await tx.item.findFirst({ where: { id: target.itemId, listId: list.id } })
        : await tx.item.findUnique({ where: itemKey(list.id, target) });
    if (!existing) return { removed: false };
    await tx.item.delete({ where: { id: existing.id } });
    await finishChange(tx, { shopId, owner, list, item: existing, type: "item.removed", at });
    return { removed: true };
  });
}

function newItemData(shopId: string, listId: string, item: NewItem, addedAt: Date) {
  return {
    id: newId("item"),
    listId,
    shopId,
    productId: item.productId,
    variantId: item.variantId ?? "",
    handle: item.handle,
    titleSnapshot: item.title ?? "",
    addedAt,
  };
}
