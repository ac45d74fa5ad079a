/**
 * How long the outbox keeps relayed events (EVENT_RETENTION_DAYS, docs/webhooks.md): the maintenance job
 * deletes older ones, and their delivery log with them.
 */
import { transaction } from "~/data/database.server";
import { deleteRelayedEventsBefore } from "~/data/event-rows.server";

const CHUNK = 1_000;

/**
 * Deletes events relayed before `relayedBefore`, a chunk per transaction so the web process's writes are
 * never held up for long; their webhook delivery log goes with them (foreign key, ON DELETE CASCADE).
 * Pending events are never deleted, however old. Returns how many events were deleted.
 */
export async function purgeRelayedEvents({ relayedBefore }: { relayedBefore: Date }): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await transaction((tx) => deleteRelayedEventsBefore(tx, relayedBefore, CHUNK));
    total += deleted;
    if (deleted < CHUNK) return total;
  }
}
