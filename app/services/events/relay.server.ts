/**
 * The outbox relay (docs/decisions/010-storefront-writes.md, 012-storefront-hot-paths.md), run by the
 * worker: it takes pending events (dispatchedAt NULL) in id order, hands them to `fanOut` (which must be
 * idempotent: it may see an event twice), then in one transaction marks them relayed, records the
 * deliveries queued for them as owed (docs/decisions/025-queue-reconciliation.md) and folds the item
 * events into the analytics rollups. Only the events this run actually marks are counted, so two relays
 * running at once never count one twice.
 */
import { database, transaction } from "~/data/database.server";
import { findPendingEvents, markEventsRelayed } from "~/data/event-rows.server";
import { insertDeliveryDues, type DueDelivery } from "~/data/webhook-delivery-due-rows.server";
import { applyItemChanges, type ItemChange } from "~/services/analytics/rollups.server";
import { logger } from "~/logger.server";
import { noteCustomerChanges } from "~/services/metafields/customer-metafields.server";
import { ownerOfColumns } from "~/services/owners/owner";
import type { EventType } from "./outbox.server";

export interface StoredEvent {
  id: string;
  shopId: string;
  type: EventType;
  /** The envelope's `data`, as stored (JSON text). */
  data: string;
  createdAt: Date;
}

export interface RelayOptions {
  batchSize?: number;
  /** Queues the events' deliveries; returns them, to be recorded as owed (nothing recorded if void). */
  fanOut?: (events: StoredEvent[]) => Promise<DueDelivery[] | void>;
  /**
   * Called after the batch committed with the shops whose customers now owe a metafield write
   * (app/services/metafields), to queue their sync.
   */
  onMetafieldsOwed?: (shopIds: string[]) => Promise<void>;
}

interface ItemEventData {
  customerId: string | null;
  anonymousId: string | null;
  item: { productId: string };
}

/** Events that change a customer's saved products, by shop: their customer ids (for the metafield sync). */
function customerChanges(events: StoredEvent[]): Map<string, string[]> {
  const changes = new Map<string, string[]>();
  for (const event of events) {
    if (event.type !== "item.added" && event.type !== "item.removed" && event.type !== "list.merged") continue;
    const { customerId } = JSON.parse(event.data) as { customerId?: string | null };
    if (!customerId) continue;
    const ids = changes.get(event.shopId) ?? [];
    ids.push(customerId);
    changes.set(event.shopId, ids);
  }
  return changes;
}

function itemChange(event: StoredEvent): ItemChange | null {
  if (event.type !== "item.added" && event.type !== "item.removed") return null;
  const data = JSON.parse(event.data) as ItemEventData & { movedFromListId?: string; movedToListId?: string };
  // A move between two lists of one owner is no save and no removal (docs/decisions/046-named-lists.md).
  if (data.movedFromListId !== undefined || data.movedToListId !== undefined) return null;
  const owner = ownerOfColumns(data);
  return { shopId: event.shopId, type: event.type, at: event.createdAt, productId: data.item.productId, owner };
}

/** Relays one batch; returns how many events it took (less than the batch size: the outbox is drained). */
export async function relayOutbox({ batchSize = 500, fanOut, onMetafieldsOwed }: RelayOptions = {}): Promise<number> {
  const events = (await findPendingEvents(database(), batchSize)) as StoredEvent[];
  if (events.length === 0) return 0;
  const queued = (await fanOut?.(events)) ?? [];
  const owing = await transaction(async (tx) => {
    const at = new Date();
    const mine = new Set(
      await markEventsRelayed(
        tx,
        events.map((event) => event.id),
        at,
      ),
    );
    const relayed = events.filter((event) => mine.has(event.id));
    await insertDeliveryDues(
      tx,
      queued.filter((due) => mine.has(due.eventId)),
      at,
    );
    await applyItemChanges(
      tx,
      relayed.flatMap((event) => itemChange(event) ?? []),
    );
    return noteCustomerChanges(tx, customerChanges(relayed));
  });
  // The marks are committed: a failed add is caught up by the sweep (metafields.sweep).
  if (owing.length > 0) {
    await onMetafieldsOwed?.(owing).catch((error: unknown) =>
      logger.warn({ err: error, shops: owing.length }, "metafield sync not queued; the sweep will queue it"),
    );
  }
  return events.length;
}
