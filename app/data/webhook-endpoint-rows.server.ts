/**
 * Statements on `WebhookEndpoint` (docs/webhooks.md, docs/decisions/013-webhook-delivery.md): the
 * merchant's endpoints, their sealed signing secrets and their consecutive-failure counts. Every function
 * is scoped by the shop's id, except those the worker runs over every shop (the relay's fan-out, the
 * delivery log's counters, resealing secrets), which name endpoints by id.
 */
import { sql, type Selectable } from "kysely";
import { engine, type DB, type Queryable } from "./database.server";

export type WebhookEndpointRow = Selectable<DB["WebhookEndpoint"]>;

export async function insertEndpoint(
  q: Queryable,
  endpoint: { id: string; shopId: string; url: string; events: string; secretCiphertext: string },
  at: Date,
): Promise<WebhookEndpointRow> {
  return q
    .insertInto("WebhookEndpoint")
    .values({ ...endpoint, failCount: 0, createdAt: at, updatedAt: at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * PostgreSQL: holds, until the transaction ends, a lock on the shop's set of endpoints, so that concurrent
 * creations count and insert one after another. SQLite: nothing (a transaction holds the write lock).
 */
export async function lockShopEndpoints(q: Queryable, shopId: string): Promise<void> {
  if (engine() !== "postgres") return;
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`webhook-endpoints:${shopId}`}, 0))`.execute(q);
}

export async function countEndpoints(q: Queryable, shopId: string): Promise<number> {
  const row = await q
    .selectFrom("WebhookEndpoint")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("shopId", "=", shopId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findEndpoint(q: Queryable, shopId: string, endpointId: string) {
  return q
    .selectFrom("WebhookEndpoint")
    .selectAll()
    .where("id", "=", endpointId)
    .where("shopId", "=", shopId)
    .executeTakeFirst();
}

/** The shop's endpoints, oldest first. */
export function listEndpoints(q: Queryable, shopId: string): Promise<WebhookEndpointRow[]> {
  return q.selectFrom("WebhookEndpoint").selectAll().where("shopId", "=", shopId).orderBy("id").execute();
}

/** Deletes the endpoint (its delivery log goes with it: ON DELETE CASCADE); returns whether it existed. */
export async function deleteEndpoint(q: Queryable, shopId: string, endpointId: string): Promise<boolean> {
  const result = await q
    .deleteFrom("WebhookEndpoint")
    .where("id", "=", endpointId)
    .where("shopId", "=", shopId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Clears `disabledAt` and the failure count; the updated row, or undefined when there is no such endpoint. */
export function enableEndpoint(q: Queryable, shopId: string, endpointId: string, at: Date) {
  return q
    .updateTable("WebhookEndpoint")
    .set({ disabledAt: null, failCount: 0, updatedAt: at })
    .where("id", "=", endpointId)
    .where("shopId", "=", shopId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The enabled endpoints of these shops, with each shop's domain (the relay's fan-out, one statement). A shop
 * that uninstalled the app has none: its events deliver nothing.
 */
export function findEnabledEndpointsOfShops(q: Queryable, shopIds: readonly string[]) {
  if (shopIds.length === 0) return Promise.resolve([]);
  return q
    .selectFrom("WebhookEndpoint as e")
    .innerJoin("Shop as s", "s.id", "e.shopId")
    .select(["e.id", "e.shopId", "e.events", "s.domain as shopDomain"])
    .where("e.shopId", "in", shopIds)
    .where("e.disabledAt", "is", null)
    .where("s.uninstalledAt", "is", null)
    .execute();
}

/** What one delivery attempt needs of its endpoint, and whether its shop still has the app installed. */
/**
 * What a delivery needs of its endpoint and shop, in the one read it makes: `redactedEventId` is set when the
 * stored event's data is `redactedData` (a customers/redact erased it after the job was queued).
 */
export function findEndpointForDelivery(
  q: Queryable,
  shopId: string,
  endpointId: string,
  event: { eventId: string; redactedData: string },
) {
  return q
    .selectFrom("WebhookEndpoint as e")
    .innerJoin("Shop as s", "s.id", "e.shopId")
    .leftJoin("Event as ev", (join) =>
      join.on("ev.id", "=", event.eventId).onRef("ev.shopId", "=", "e.shopId").on("ev.data", "=", event.redactedData),
    )
    .select([
      "e.url",
      "e.secretCiphertext",
      "e.disabledAt",
      "s.uninstalledAt as shopUninstalledAt",
      "ev.id as redactedEventId",
    ])
    .where("e.id", "=", endpointId)
    .where("e.shopId", "=", shopId)
    .executeTakeFirst();
}

/**
 * What a batch of first attempts (docs/decisions/045-webhook-batching.md) needs, in one read: for each of
 * the shop's deliveries named, the stored event (its envelope is built from it), the endpoint, whether
 * the shop still has the app installed, and the delivery's owed row if there is one yet
 * (docs/decisions/025-queue-reconciliation.md). A delivery whose event or endpoint is gone has no row.
 */
export function findEndpointsForDeliveries(
  q: Queryable,
  shopId: string,
  deliveries: ReadonlyArray<{ eventId: string; endpointId: string }>,
) {
  // From a VALUES list of the pairs: each row is then found by primary key (SQLite, without statistics,
  // preferred the shop's index on Event for `id IN (...) AND shopId = ?`: every event of the shop, read).
  // PostgreSQL types the parameters of a VALUES list only from a cast.
  const text = (value: string) => (engine() === "postgres" ? sql`${value}::text` : sql`${value}`);
  const rows = deliveries.map((key) => sql`(${sql.join([text(key.eventId), text(key.endpointId)])})`);
  const v = sql<{ column1: string; column2: string }>`(VALUES ${sql.join(rows)})`.as("v");
  return q
    .selectFrom(v)
    .innerJoin("Event as ev", "ev.id", "v.column1")
    .innerJoin("WebhookEndpoint as e", "e.id", "v.column2")
    .innerJoin("Shop as s", "s.id", "e.shopId")
    .leftJoin("WebhookDeliveryDue as d", (join) =>
      join.onRef("d.eventId", "=", "v.column1").onRef("d.endpointId", "=", "v.column2"),
    )
    .select([
      "d.dueAt",
      "d.attemptsMade",
      "ev.id as eventId",
      "ev.type as eventType",
      "ev.data as eventData",
      "ev.createdAt as eventCreatedAt",
      "e.id as endpointId",
      "e.url",
      "e.secretCiphertext",
      "e.disabledAt",
      "s.uninstalledAt as shopUninstalledAt",
      "s.domain as shopDomain",
    ])
    .where("ev.shopId", "=", shopId)
    .where("e.shopId", "=", shopId)
    .execute();
}

/** The ids of every endpoint of a shop, enabled or not. */
export async function findEndpointIdsOfShop(q: Queryable, shopId: string): Promise<string[]> {
  const rows = await q.selectFrom("WebhookEndpoint").select("id").where("shopId", "=", shopId).execute();
  return rows.map((row) => row.id);
}

/** Sets the failure count of these endpoints to 0 where it is not (their last attempt succeeded). */
export async function resetFailCounts(q: Queryable, endpointIds: readonly string[], at: Date): Promise<void> {
  if (endpointIds.length === 0) return;
  await q
    .updateTable("WebhookEndpoint")
    .set({ failCount: 0, updatedAt: at })
    .where("failCount", "<>", 0)
    .where("id", "in", endpointIds)
    .execute();
}

/**
 * Counts `failures` consecutive failed deliveries of the endpoint (after a success when `afterSuccess`: the
 * count starts again from 0) and disables it at `at` once the count reaches `disableAt`.
 */
export async function addFailures(
  q: Queryable,
  endpointId: string,
  { failures, afterSuccess, disableAt }: { failures: number; afterSuccess: boolean; disableAt: number },
  at: Date,
): Promise<void> {
  await q
    .updateTable("WebhookEndpoint")
    .set((eb) => {
      if (afterSuccess) {
        // The count is known here: disable (keeping an earlier disabledAt) only when it reaches the limit.
        return {
          failCount: failures,
          updatedAt: at,
          ...(failures >= disableAt && { disabledAt: eb.fn.coalesce("disabledAt", eb.val(at)) }),
        };
      }
      return {
        failCount: eb("failCount", "+", failures),
        updatedAt: at,
        disabledAt: eb
          .case()
          .when(eb.and([eb("disabledAt", "is", null), eb(eb("failCount", "+", failures), ">=", disableAt)]))
          .then(at)
          .else(eb.ref("disabledAt"))
          .end(),
      };
    })
    .where("id", "=", endpointId)
    .execute();
}

/** Endpoints (of every shop) whose sealed secret does not start with `prefix`: the ones to seal again. */
export function findEndpointsNotSealedWith(q: Queryable, prefix: string) {
  return q
    .selectFrom("WebhookEndpoint")
    .select(["id", "shopId", "secretCiphertext"])
    .where((eb) => eb(eb.fn("substr", ["secretCiphertext", eb.val(1), eb.val(prefix.length)]), "<>", prefix))
    .execute();
}

/** Replaces the sealed secret only if it is still `previous`; returns whether it did. */
export async function replaceSealedSecret(
  q: Queryable,
  endpoint: { id: string; shopId: string },
  previous: string,
  next: string,
): Promise<boolean> {
  const result = await q
    .updateTable("WebhookEndpoint")
    .set({ secretCiphertext: next })
    .where("id", "=", endpoint.id)
    .where("shopId", "=", endpoint.shopId)
    .where("secretCiphertext", "=", previous)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
