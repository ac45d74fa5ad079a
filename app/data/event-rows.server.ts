/**
 * Statements on `Event`, the transactional outbox (docs/decisions/010-storefront-writes.md): a change
 * inserts its event through the same `tx`, so there is no change without its event and no event without
 * its change. The relay reads the pending ones in id order and marks them relayed; the maintenance job
 * deletes relayed ones past their retention.
 */
import { engine, type Queryable } from "./database.server";

export interface EventInsert {
  id: string;
  shopId: string;
  type: string;
  /** JSON of the envelope's `data` member. */
  data: string;
  createdAt: Date;
}

export async function insertEvent(q: Queryable, event: EventInsert): Promise<void> {
  await q.insertInto("Event").values(event).execute();
}

/** Up to `limit` events not yet relayed (of every shop), oldest id first. */
export function findPendingEvents(q: Queryable, limit: number): Promise<EventInsert[]> {
  return q
    .selectFrom("Event")
    .select(["id", "shopId", "type", "data", "createdAt"])
    .where("dispatchedAt", "is", null)
    .orderBy("id")
    .limit(limit)
    .execute();
}

/** Those of `ids` no relay has marked yet (its transaction may be on its way). */
export async function findUnrelayedEventIds(q: Queryable, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await q
    .selectFrom("Event")
    .select("id")
    .where("id", "in", ids)
    .where("dispatchedAt", "is", null)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Marks those of `ids` still pending as relayed at `at`, in one statement; returns the ids this call
 * marked (an id another relay marked first is not among them).
 */
export async function markEventsRelayed(q: Queryable, ids: readonly string[], at: Date): Promise<string[]> {
  if (ids.length === 0) return [];
  // PostgreSQL: the rows are locked in id order first, the order waitForEventsRelayed takes them in; an
  // update alone locks them in the order its plan visits them (a bitmap scan: where they lie in the table),
  // and a delivery log waiting on two events of the batch could deadlock with it.
  const rows = await q
    .updateTable("Event")
    .set({ dispatchedAt: at })
    .where("dispatchedAt", "is", null)
    .where(
      "id",
      "in",
      engine() === "postgres"
        ? q
            .selectFrom("Event")
            .select("id")
            .where("dispatchedAt", "is", null)
            .where("id", "in", ids)
            .orderBy("id")
            .forUpdate()
        : ids,
    )
    .returning("id")
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Deletes up to `limit` events (of every shop) relayed before `before`, oldest first; their delivery log
 * goes with them (foreign key, ON DELETE CASCADE). Pending events are never deleted. Returns how many.
 */
export async function deleteRelayedEventsBefore(q: Queryable, before: Date, limit: number): Promise<number> {
  const result = await q
    .deleteFrom("Event")
    .where("id", "in", (eb) =>
      eb
        .selectFrom("Event")
        .select("id")
        .where("dispatchedAt", "is not", null)
        .where("dispatchedAt", "<", before)
        .orderBy("dispatchedAt")
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Waits (PostgreSQL: a shared lock on each event row, in id order) until no relay transaction that is
 * marking these events is still open: the delivery log then sees the owed rows that relay records, and ends
 * them (docs/decisions/025-queue-reconciliation.md). A relay that starts after waits for this transaction
 * instead, and its insert sees the logged outcome. SQLite runs one writer at a time: nothing to wait for.
 */
export async function waitForEventsRelayed(q: Queryable, ids: readonly string[]): Promise<void> {
  if (engine() !== "postgres" || ids.length === 0) return;
  await q.selectFrom("Event").select("id").where("id", "in", ids).orderBy("id").forShare().execute();
}
