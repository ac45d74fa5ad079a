import { database } from "~/data/database.server";
import type { WebhookDeliveryRow } from "~/data/webhook-delivery-rows.server";
import { relayOutbox } from "~/services/events/relay.server";

/** Test reads and setups of webhook rows, through the data layer's handle (nothing in the app needs them). */

/** The endpoint's delivery log in attempt order (oldest first). */
export function findAttempts(
  q: ReturnType<typeof database>,
  shopId: string,
  endpointId: string,
): Promise<WebhookDeliveryRow[]> {
  return q
    .selectFrom("WebhookDelivery")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("endpointId", "=", endpointId)
    .orderBy("eventId")
    .orderBy("attempt")
    .execute();
}

/** Sets an endpoint's failure count or disabled time directly (a state the worker would reach over hours). */
export async function setEndpointHealth(
  q: ReturnType<typeof database>,
  shopId: string,
  endpointId: string,
  health: { failCount?: number; disabledAt?: Date | null },
  at: Date,
): Promise<void> {
  await q
    .updateTable("WebhookEndpoint")
    .set({ ...health, updatedAt: at })
    .where("id", "=", endpointId)
    .where("shopId", "=", shopId)
    .execute();
}

/** Deliveries of the shop the database records as owed by the queue (WebhookDeliveryDue). */
export async function owedDeliveries(shopId: string): Promise<number> {
  const row = await database()
    .selectFrom("WebhookDeliveryDue")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("shopId", "=", shopId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Events of the shop the relay has not yet turned into delivery jobs. */
export async function pendingEvents(shopId: string): Promise<number> {
  const row = await database()
    .selectFrom("Event")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("shopId", "=", shopId)
    .where("dispatchedAt", "is", null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Relays until the outbox is empty. */
export async function drainOutbox(options: Parameters<typeof relayOutbox>[0] = {}): Promise<number> {
  let total = 0;
  for (;;) {
    const taken = await relayOutbox(options);
    total += taken;
    if (taken < (options?.batchSize ?? 500)) return total;
  }
}
