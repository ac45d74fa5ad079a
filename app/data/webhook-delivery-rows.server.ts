/**
 * Statements on `WebhookDelivery`, the delivery log (docs/webhooks.md): one row per attempt of one event
 * to one endpoint, numbered per event and endpoint, shown to the merchant newest first.
 */
import { sql, type Selectable } from "kysely";
import { engine, type DB, type Queryable } from "./database.server";

export type WebhookDeliveryRow = Selectable<DB["WebhookDelivery"]>;

/** One finished attempt; its number is the next of its event and endpoint. */
export interface AttemptRecord {
  id: string;
  shopId: string;
  endpointId: string;
  eventId: string;
  status: "succeeded" | "failed";
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseSnippet: string | null;
  nextRetryAt: Date | null;
  /** When it finished (createdAt and finishedAt). */
  at: Date;
}

/**
 * Logs attempts in one statement whatever their number: each gets the next attempt number of its event
 * and endpoint from the log, and the attempts of an endpoint deleted meanwhile are dropped (its log went
 * with it). Two attempts of one event and endpoint must not be in one call.
 */
export async function insertAttempts(q: Queryable, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  // PostgreSQL types the parameters of a VALUES list only from a cast.
  const typed = (value: unknown, type: "text" | "int" | "timestamp") =>
    engine() === "postgres" ? sql`${value}::${sql.raw(type)}` : sql`${value}`;
  const rows = records.map(
    (record) =>
      sql`(${sql.join([
        typed(record.id, "text"),
        typed(record.shopId, "text"),
        typed(record.endpointId, "text"),
        typed(record.eventId, "text"),
        typed(record.status, "text"),
        typed(record.statusCode, "int"),
        typed(record.durationMs, "int"),
        typed(record.error, "text"),
        typed(record.responseSnippet, "text"),
        typed(record.nextRetryAt, "timestamp"),
        typed(record.at, "timestamp"),
      ])})`,
  );
  const v = sql<{
    column1: string;
    column2: string;
    column3: string;
    column4: string;
    column5: string;
    column6: number | null;
    column7: number;
    column8: string | null;
    column9: string | null;
    column10: Date | null;
    column11: Date;
  }>`(VALUES ${sql.join(rows)})`.as("v");
  await q
    .insertInto("WebhookDelivery")
    .columns([
      "id",
      "shopId",
      "endpointId",
      "eventId",
      "attempt",
      "status",
      "statusCode",
      "durationMs",
      "error",
      "responseSnippet",
      "nextRetryAt",
      "createdAt",
      "finishedAt",
    ])
    .expression((eb) =>
      eb
        .selectFrom(v)
        .select((eb) => [
          "v.column1",
          "v.column2",
          "v.column3",
          "v.column4",
          eb(
            eb.fn.coalesce(
              eb
                .selectFrom("WebhookDelivery as d")
                .select((eb) => eb.fn.max("d.attempt").as("last"))
                .whereRef("d.eventId", "=", "v.column4")
                .whereRef("d.endpointId", "=", "v.column3"),
              eb.lit(0),
            ),
            "+",
            eb.lit(1),
          ).as("attempt"),
          "v.column5",
          "v.column6",
          "v.column7",
          "v.column8",
          "v.column9",
          "v.column10",
          "v.column11",
          "v.column11 as finishedAt",
        ])
        .where(({ exists, selectFrom }) =>
          exists(selectFrom("WebhookEndpoint as e").select("e.id").whereRef("e.id", "=", "v.column3")),
        ),
    )
    .execute();
}

/** A page of the endpoint's log, newest first, each attempt with its event's type; `limit + 1` rows. */
export function listDeliveries(
  q: Queryable,
  shopId: string,
  endpointId: string,
  { before, limit }: { before?: string; limit: number },
) {
  return q
    .selectFrom("WebhookDelivery as d")
    .innerJoin("Event as e", "e.id", "d.eventId")
    .selectAll("d")
    .select("e.type as eventType")
    .where("d.shopId", "=", shopId)
    .where("d.endpointId", "=", endpointId)
    .$if(before !== undefined, (query) => query.where("d.id", "<", before!))
    .orderBy("d.id", "desc")
    .limit(limit + 1)
    .execute();
}

/** One logged attempt with the event it delivered (redelivery sends that event again). */
export function findDeliveryWithEvent(q: Queryable, shopId: string, endpointId: string, deliveryId: string) {
  return q
    .selectFrom("WebhookDelivery as d")
    .innerJoin("Event as e", "e.id", "d.eventId")
    .select(["d.id", "e.id as eventId", "e.type as eventType", "e.data as eventData", "e.createdAt as eventCreatedAt"])
    .where("d.id", "=", deliveryId)
    .where("d.endpointId", "=", endpointId)
    .where("d.shopId", "=", shopId)
    .executeTakeFirst();
}
