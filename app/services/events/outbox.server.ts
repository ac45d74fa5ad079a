import type { Prisma } from "~/db.server";
import { newId } from "~/lib/ids";

/**
 * The transactional outbox (docs/decisions/010-storefront-writes.md): every change writes its event in
 * the same transaction, so there is no change without its event and no event without its change, whether
 * or not Redis is up. The webhook relay reads undispatched events from here.
 */
export type EventType = "item.added" | "item.removed" | "list.merged" | "list.shared" | "ping";

export async function writeEvent(
  tx: Prisma.TransactionClient,
  { shopId, type, data, createdAt = new Date() }: { shopId: string; type: EventType; data: object; createdAt?: Date },
) {
  return tx.event.create({ data: { id: newId("event"), shopId, type, data: JSON.stringify(data), createdAt } });
}
