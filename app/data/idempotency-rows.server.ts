/**
 * Statements on `IdempotencyRecord`: one row per Idempotency-Key and scope (docs/openapi.json), reserved
 * "in_flight" by the request that runs and completed with its response (docs/decisions/017-data-layer.md).
 * The unique (shop, credential, key) index decides which of several concurrent requests runs.
 */
import { randomUUID } from "node:crypto";
import type { Selectable } from "kysely";
import type { DB, Queryable } from "./database.server";

export type IdempotencyRecordRow = Selectable<DB["IdempotencyRecord"]>;

export interface IdempotencyScope {
  shopId: string;
  /** The scope within the shop (a private key's id, or the shopper of a shared credential). */
  credentialId: string;
  key: string;
}

/** Reserves the key (state "in_flight"); a unique violation when the scope holds a record already. */
export async function insertIdempotencyRecord(
  q: Queryable,
  scope: IdempotencyScope,
  requestHash: string,
  at: Date,
  expiresAt: Date,
): Promise<string> {
  const id = randomUUID();
  await q
    .insertInto("IdempotencyRecord")
    .values({ id, ...scope, requestHash, state: "in_flight", createdAt: at, expiresAt })
    .execute();
  return id;
}

export function findIdempotencyRecord(
  q: Queryable,
  scope: IdempotencyScope,
): Promise<IdempotencyRecordRow | undefined> {
  return q
    .selectFrom("IdempotencyRecord")
    .selectAll()
    .where("shopId", "=", scope.shopId)
    .where("credentialId", "=", scope.credentialId)
    .where("key", "=", scope.key)
    .executeTakeFirst();
}

/** The stored response of a completed record. */
export interface IdempotencyResponseColumns {
  responseStatus: number;
  /** JSON object of the replayed headers. */
  responseHeaders: string;
  /** Sealed (encrypted) body. */
  responseBody: string;
}

/**
 * Completes the shop's record with its response, if it is still in flight; returns whether this call
 * completed it (a record completed already, or deleted, is left alone).
 */
export async function completeIdempotencyRecord(
  q: Queryable,
  shopId: string,
  recordId: string,
  response: IdempotencyResponseColumns,
): Promise<boolean> {
  const result = await q
    .updateTable("IdempotencyRecord")
    .set({ state: "completed", ...response })
    .where("shopId", "=", shopId)
    .where("id", "=", recordId)
    .where("state", "=", "in_flight")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes the shop's record if it is still in flight (a completed one keeps its response). */
export async function deleteInFlightIdempotencyRecord(q: Queryable, shopId: string, recordId: string): Promise<void> {
  await q
    .deleteFrom("IdempotencyRecord")
    .where("shopId", "=", shopId)
    .where("id", "=", recordId)
    .where("state", "=", "in_flight")
    .execute();
}

/** Deletes the shop's record; with `expiredBy`, only if it expired by then (a newer reservation stays). */
export async function deleteIdempotencyRecord(
  q: Queryable,
  shopId: string,
  recordId: string,
  expiredBy?: Date,
): Promise<void> {
  await q
    .deleteFrom("IdempotencyRecord")
    .where("shopId", "=", shopId)
    .where("id", "=", recordId)
    .$if(expiredBy !== undefined, (query) => query.where("expiresAt", "<=", expiredBy!))
    .execute();
}

/** Housekeeping across shops: drops the records expired by `now`; returns how many. */
export async function deleteExpiredIdempotencyRecords(q: Queryable, now: Date): Promise<number> {
  const result = await q.deleteFrom("IdempotencyRecord").where("expiresAt", "<=", now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
