/**
 * The transactional outbox (docs/decisions/010-storefront-writes.md): every change writes its event in
 * the same transaction, so there is no change without its event and no event without its change, whether
 * or not Redis is up. The webhook relay reads undispatched events from here.
 */
import type { Queryable } from "~/data/database.server";
import { insertEvent as insertEventRow } from "~/data/event-rows.server";
import { newId } from "~/lib/ids";

export type EventType =
  | "item.added"
  | "item.removed"
  | "item.updated"
  | "list.created"
  | "list.deleted"
  | "list.merged"
  | "list.shared"
  | "ping"
  | "alert.back_in_stock"
  | "alert.price_dropped"
  | "alert.low_stock"
  | "reminder.due"
  | "plan.allowance_reached";

interface NewEvent {
  shopId: string;
  type: EventType;
  data: object;
  createdAt?: Date;
}

/** Writes the event through `tx`, the transaction of the change it reports; returns its id. */
export async function recordEvent(tx: Queryable, { shopId, type, data, createdAt = new Date() }: NewEvent) {
  const id = newId("event");
  await insertEventRow(tx, { id, shopId, type, data: JSON.stringify(data), createdAt });
  return id;
}
