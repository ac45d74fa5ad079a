import type { Prisma } from "~/db.server";
import { newId } from "~/lib/ids";
import type { SqlRunner } from "~/sql.server";

/**
 * The transactional outbox (docs/decisions/010-storefront-writes.md): every change writes its event in
 * the same transaction, so there is no change without its event and no event without its change, whether
 * or not Redis is up. The webhook relay reads undispatched events from here.
 */
export type EventType = "item.added" | "item.removed" | "list.merged" | "list.shared" | "ping";

interface NewEvent {
  shopId: string;
  type: EventType;
  data: object;
  createdAt?: Date;
}

/** In a Prisma transaction. */
export async function writeEvent(
  tx: Prisma.TransactionClient,
  { shopId, type, data, createdAt = new Date() }: NewEvent,
) {
  return tx.event.create({ data: { id: newId("event"), shopId, type, data: JSON.stringify(data), createdAt } });
}

/** In a direct-SQL transaction (the storefront's hot paths, decision 012). */
export async function insertEvent(tx: SqlRunner, { shopId, type, data, createdAt = new Date() }: NewEvent) {
  const id = newId("event");
  await tx.run(`INSERT INTO "Event" ("id", "shopId", "type", "data", "createdAt") VALUES (?, ?, ?, ?, ?)`, [
    id,
    shopId,
    type,
    JSON.stringify(data),
    createdAt,
  ]);
  return id;
}
