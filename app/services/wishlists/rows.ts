import type { Item, List } from "~/generated/prisma-sqlite/client";
import { parseTimestamp, parseTimestampOrNull } from "~/sql.server";

/**
 * Rows read with direct SQL (decision 012), turned into the same shapes Prisma returns, so serializers
 * and callers cannot tell the two paths apart. SQLite gives booleans as 0/1 and timestamps as text.
 */
type Row = Record<string, unknown>;

const bool = (value: unknown) => value === true || value === 1 || value === 1n;

export function listFromRow(row: Row): List {
  return {
    id: row.id as string,
    shopId: row.shopId as string,
    customerId: (row.customerId as string | null) ?? null,
    anonymousId: (row.anonymousId as string | null) ?? null,
    name: row.name as string,
    isDefault: row.isDefault === null || row.isDefault === undefined ? null : bool(row.isDefault),
    shareToken: (row.shareToken as string | null) ?? null,
    shareEnabled: bool(row.shareEnabled),
    retiredAt: parseTimestampOrNull(row.retiredAt),
    createdAt: parseTimestamp(row.createdAt),
    updatedAt: parseTimestamp(row.updatedAt),
  };
}

export function itemFromRow(row: Row): Item {
  return {
    id: row.id as string,
    listId: row.listId as string,
    shopId: row.shopId as string,
    productId: row.productId as string,
    variantId: row.variantId as string,
    handle: row.handle as string,
    titleSnapshot: row.titleSnapshot as string,
    addedAt: parseTimestamp(row.addedAt),
  };
}
