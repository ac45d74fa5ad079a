/**
 * Statements on `WebhookDeliveryDue` (docs/decisions/025-queue-reconciliation.md): the deliveries the queue
 * owes, one row per event and endpoint from the relay's fan-out until the delivery ends. Redis holds the
 * jobs; these rows are the database's account of them, so the relay can queue again a job Redis lost.
 */
import { sql, type ExpressionBuilder } from "kysely";
import { engine, type DB, type Queryable } from "./database.server";

export interface DueKey {
  eventId: string;
  endpointId: string;
}

export interface DueDelivery extends DueKey {
  shopId: string;
}

const CHUNK = 1_000;

/** The rows in slices of CHUNK: one statement's parameters stay within both engines' limits. */
function* chunks<T>(rows: readonly T[]): Generator<readonly T[]> {
  for (let start = 0; start < rows.length; start += CHUNK) yield rows.slice(start, start + CHUNK);
}

/** `("eventId", "endpointId") IN ((...), ...)`: the rows of these deliveries. */
function keyIn(eb: ExpressionBuilder<DB, "WebhookDeliveryDue">, keys: readonly DueKey[]) {
  return eb(
    eb.refTuple("eventId", "endpointId"),
    "in",
    keys.map((key) => eb.tuple(key.eventId, key.endpointId)),
  );
}

/**
 * Records deliveries just queued, due at `at` (their first attempt). A delivery already recorded is left
 * as it is (the relay may see an event twice), one whose endpoint was deleted meanwhile is dropped, and so
 * is one the delivery log shows ended already (delivered, or failed on its last attempt): the relay queues
 * the jobs before this runs, and a fast worker can finish one first.
 */
export async function insertDeliveryDues(q: Queryable, dues: readonly DueDelivery[], at: Date): Promise<void> {
  // PostgreSQL types the parameters of a VALUES list only from a cast.
  const text = (value: string) => (engine() === "postgres" ? sql`${value}::text` : sql`${value}`);
  for (const chunk of chunks(dues)) {
    const rows = chunk.map((due) => sql`(${sql.join([text(due.eventId), text(due.endpointId), text(due.shopId)])})`);
    const v = sql<{ column1: string; column2: string; column3: string }>`(VALUES ${sql.join(rows)})`.as("v");
    await q
      .insertInto("WebhookDeliveryDue")
      .columns(["eventId", "endpointId", "shopId", "dueAt", "attemptsMade"])
      .expression((eb) =>
        eb
          .selectFrom(v)
          .select((eb) => ["v.column1", "v.column2", "v.column3", eb.val(at).as("dueAt"), eb.lit(0).as("attemptsMade")])
          .where((eb) =>
            eb.and([
              eb.exists(eb.selectFrom("WebhookEndpoint as w").select("w.id").whereRef("w.id", "=", "v.column2")),
              eb.not(
                eb.exists(
                  eb
                    .selectFrom("WebhookDelivery as l")
                    .select("l.id")
                    .whereRef("l.eventId", "=", "v.column1")
                    .whereRef("l.endpointId", "=", "v.column2")
                    .where((eb) => eb.or([eb("l.status", "=", "succeeded"), eb("l.nextRetryAt", "is", null)])),
                ),
              ),
            ]),
          ),
      )
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }
}

/** Ends deliveries: delivered, failed for good, or not to be sent (endpoint disabled, shop uninstalled). */
export async function deleteDeliveryDues(q: Queryable, keys: readonly DueKey[]): Promise<void> {
  for (const chunk of chunks(keys)) {
    await q
      .deleteFrom("WebhookDeliveryDue")
      .where((eb) => keyIn(eb, chunk))
      .execute();
  }
}

/** Ends every owed delivery of these events of a shop (events a customers/redact erased). */
export async function deleteDeliveryDuesOfEvents(q: Queryable, shopId: string, eventIds: readonly string[]) {
  for (const chunk of chunks(eventIds)) {
    await q.deleteFrom("WebhookDeliveryDue").where("shopId", "=", shopId).where("eventId", "in", chunk).execute();
  }
}

/** A failed attempt with a retry due: the delivery is owed again at `dueAt`, `attemptsMade` attempts made. */
export async function deferDeliveryDue(
  q: Queryable,
  key: DueKey,
  { dueAt, attemptsMade }: { dueAt: Date; attemptsMade: number },
): Promise<void> {
  await q
    .updateTable("WebhookDeliveryDue")
    .set({ dueAt, attemptsMade, leaseId: null })
    .where("eventId", "=", key.eventId)
    .where("endpointId", "=", key.endpointId)
    .execute();
}

/**
 * Ends overdue rows whose delivery the log shows ended (delivered, or failed on its last attempt). Such a
 * row is left when the delivery ended before the relay's transaction recorded it: the relay queues the
 * jobs first and a fast worker can finish one before the row exists. Returns how many.
 */
export async function deleteEndedDeliveryDues(q: Queryable, before: Date): Promise<number> {
  const result = await q
    .deleteFrom("WebhookDeliveryDue")
    .where("dueAt", "<", before)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("WebhookDelivery as l")
          .select("l.id")
          .whereRef("l.eventId", "=", "WebhookDeliveryDue.eventId")
          .whereRef("l.endpointId", "=", "WebhookDeliveryDue.endpointId")
          .where((eb) => eb.or([eb("l.status", "=", "succeeded"), eb("l.nextRetryAt", "is", null)])),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Up to `limit` deliveries (of every shop) due before `before`, oldest first, with what a job needs: the
 * event and the shop's domain. Rows of a disabled endpoint or an uninstalled shop are included: the job
 * they get skips and ends them. Call deleteEndedDeliveryDues first.
 */
export function findOverdueDeliveries(q: Queryable, before: Date, limit: number) {
  return q
    .selectFrom("WebhookDeliveryDue as d")
    .innerJoin("Event as e", "e.id", "d.eventId")
    .innerJoin("Shop as s", "s.id", "d.shopId")
    .select([
      "d.eventId",
      "d.endpointId",
      "d.shopId",
      "d.attemptsMade",
      "e.type",
      "e.data",
      "e.createdAt",
      "s.domain as shopDomain",
    ])
    .where("d.dueAt", "<", before)
    .orderBy("d.dueAt")
    .limit(limit)
    .execute();
}

/**
 * The reconciliation pass's claim on overdue deliveries: moves the due time of those still due before
 * `before` to `dueAt` (not again before another grace period), ends any batch's lease on them, and returns
 * them. The condition is checked again as each row is written, so a row a batch job's lease renewed since
 * the pass read it (docs/decisions/045-webhook-batching.md) is not claimed: the pass queues only what it
 * returns.
 */
export async function claimOverdueDeliveries(
  q: Queryable,
  keys: readonly DueKey[],
  { before, dueAt }: { before: Date; dueAt: Date },
): Promise<DueKey[]> {
  const claimed: DueKey[] = [];
  for (const chunk of chunks(keys)) {
    const rows = await q
      .updateTable("WebhookDeliveryDue")
      .set({ dueAt, leaseId: null })
      .where((eb) => keyIn(eb, chunk))
      .where("dueAt", "<", before)
      .returning(["eventId", "endpointId"])
      .execute();
    claimed.push(...rows);
  }
  return claimed;
}

/**
 * A batch job run's lease on its deliveries (docs/decisions/045-webhook-batching.md), compare-and-set:
 * sets their due time to `at` and returns the deliveries the lease `leaseId` holds.
 * - `take`: rows no lease holds, with no attempt made, due no later than `notAfter` (the pass's claim puts
 *   a row a grace period past the batch's queueing). A row another run of a batch holds is not taken.
 * - `renew`: the rows this lease still holds with no attempt made. A row the pass claimed (its lease lapsed),
 *   an attempt logged or a delivery ended is not returned.
 */
export async function leaseDeliveryDues(
  q: Queryable,
  shopId: string,
  keys: readonly DueKey[],
  { leaseId, at, take }: { leaseId: string; at: Date; take?: { notAfter: Date } },
): Promise<DueKey[]> {
  const held: DueKey[] = [];
  for (const chunk of chunks(keys)) {
    let update = q
      .updateTable("WebhookDeliveryDue")
      .set({ dueAt: at, leaseId })
      .where("shopId", "=", shopId)
      .where((eb) => keyIn(eb, chunk))
      .where("attemptsMade", "=", 0);
    update = take
      ? update.where("leaseId", "is", null).where("dueAt", "<=", take.notAfter)
      : update.where("leaseId", "=", leaseId);
    held.push(...(await update.returning(["eventId", "endpointId"]).execute()));
  }
  return held;
}

/**
 * Whether a delivery is still owed with at most `attemptsMade` attempts logged: a job the reconciliation
 * pass queued again runs only then (the job Redis lost may have been running, and have logged its attempt
 * since). Fewer are logged when an attempt's log write failed: the job goes on.
 */
export async function isDeliveryOwed(q: Queryable, key: DueKey, attemptsMade: number): Promise<boolean> {
  const row = await q
    .selectFrom("WebhookDeliveryDue")
    .select("attemptsMade")
    .where("eventId", "=", key.eventId)
    .where("endpointId", "=", key.endpointId)
    .executeTakeFirst();
  return row !== undefined && row.attemptsMade <= attemptsMade;
}

/** How many deliveries each of these shops is owed now (shops owed none are absent). */
export async function countDueDeliveriesByShop(q: Queryable, shopIds: readonly string[]): Promise<Map<string, number>> {
  if (shopIds.length === 0) return new Map();
  const rows = await q
    .selectFrom("WebhookDeliveryDue")
    .select((eb) => ["shopId", eb.fn.countAll<number | string>().as("n")])
    .where("shopId", "in", shopIds)
    .groupBy("shopId")
    .execute();
  return new Map(rows.map((row) => [row.shopId, Number(row.n)]));
}
