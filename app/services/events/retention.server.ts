import { sql } from "~/db.server";

const CHUNK = 1_000;

/**
 * Deletes events relayed before `relayedBefore`, a chunk per transaction so the web process's writes are
 * never held up for long; their webhook delivery log goes with them (foreign key, ON DELETE CASCADE).
 * Pending events are never deleted, however old. Returns how many events were deleted.
 */
export async function purgeRelayedEvents({ relayedBefore }: { relayedBefore: Date }): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await sql().transaction((tx) =>
      tx.run(
        `DELETE FROM "Event" WHERE "id" IN (SELECT "id" FROM "Event" WHERE "dispatchedAt" IS NOT NULL ` +
          `AND "dispatchedAt" < ? ORDER BY "dispatchedAt" LIMIT ${CHUNK})`,
        [relayedBefore],
      ),
    );
    total += deleted;
    if (deleted < CHUNK) return total;
  }
}
