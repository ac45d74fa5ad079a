/**
 * Statements on `Event`, the transactional outbox (docs/decisions/010-storefront-writes.md): a change
 * inserts its event through the same `tx`, so there is no change without its event and no event without
 * its change.
 */
import type { Queryable } from "./database.server";

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
