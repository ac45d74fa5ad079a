/**
 * What the admin's Alerts page reads of `Alert`, `AlertMessage` and `AlertSuppression`
 * (docs/decisions/050-wishlist-alerts.md): the log of alerts with the state of the email that carries each,
 * the suppression list, and the counts of the last days. Reads only, every one scoped by the shop; the
 * statements that make and send alerts are in ./alert-rows.server.ts.
 */
import type { Queryable } from "./database.server";

/** Where a page of a newest-first listing starts or ends: a time and the id that breaks its ties. */
export interface TimeKey {
  at: Date;
  id: string;
}

export interface AlertLogFilters {
  kind?: string;
  /** A message state (pending, sending, sent, skipped, failed), or "none" for alerts no email carries. */
  state?: string;
}

/**
 * A page of the shop's alerts, newest first (by time, then id), each with the state of its email. `after`
 * reads on past a key (the next page), `before` reads back from one (the previous page; returned newest
 * first too). Reads `limit` rows: the caller asks one more than it shows, to know whether there are more.
 */
export async function findAlertLogPage(
  q: Queryable,
  shopId: string,
  { kind, state, after, before, limit }: AlertLogFilters & { after?: TimeKey; before?: TimeKey; limit: number },
) {
  const key = before ?? after;
  const backwards = before !== undefined;
  const past = backwards ? ">" : "<";
  const direction = backwards ? "asc" : "desc";
  const rows = await q
    .selectFrom("Alert")
    .leftJoin("AlertMessage", (join) =>
      join.onRef("AlertMessage.id", "=", "Alert.messageId").on("AlertMessage.shopId", "=", shopId),
    )
    .select([
      "Alert.id",
      "Alert.createdAt",
      "Alert.customerId",
      "Alert.productId",
      "Alert.variantId",
      "Alert.kind",
      "Alert.messageId",
      "Alert.clickedAt",
      "Alert.flowState",
      "Alert.webhookEvent",
      "AlertMessage.state as messageState",
      "AlertMessage.error as messageError",
      "AlertMessage.sentAt as messageSentAt",
    ])
    .where("Alert.shopId", "=", shopId)
    .$if(kind !== undefined, (query) => query.where("Alert.kind", "=", kind!))
    .$if(state === "none", (query) => query.where("Alert.messageId", "is", null))
    .$if(state !== undefined && state !== "none", (query) => query.where("AlertMessage.state", "=", state!))
    .$if(key !== undefined, (query) =>
      query.where(({ or, and, eb }) =>
        or([
          eb("Alert.createdAt", past, key!.at),
          and([eb("Alert.createdAt", "=", key!.at), eb("Alert.id", past, key!.id)]),
        ]),
      ),
    )
    .orderBy("Alert.createdAt", direction)
    .orderBy("Alert.id", direction)
    .limit(limit)
    .execute();
  return backwards ? rows.reverse() : rows;
}

export type AlertLogRow = Awaited<ReturnType<typeof findAlertLogPage>>[number];

/** A page of the shop's suppression list, newest first (by time, then customer id); as findAlertLogPage. */
export async function findSuppressionPage(
  q: Queryable,
  shopId: string,
  { after, before, limit }: { after?: TimeKey; before?: TimeKey; limit: number },
) {
  const key = before ?? after;
  const backwards = before !== undefined;
  const past = backwards ? ">" : "<";
  const direction = backwards ? "asc" : "desc";
  const rows = await q
    .selectFrom("AlertSuppression")
    .select(["customerId", "reason", "detail", "createdAt"])
    .where("shopId", "=", shopId)
    .$if(key !== undefined, (query) =>
      query.where(({ or, and, eb }) =>
        or([eb("createdAt", past, key!.at), and([eb("createdAt", "=", key!.at), eb("customerId", past, key!.id)])]),
      ),
    )
    .orderBy("createdAt", direction)
    .orderBy("customerId", direction)
    .limit(limit)
    .execute();
  return backwards ? rows.reverse() : rows;
}

export type SuppressionRow = Awaited<ReturnType<typeof findSuppressionPage>>[number];

/** Counts over windows that all end now: `since` holds each window's start, oldest last. */
type Windows = readonly Date[];

const asNumber = (value: unknown) => Number(value ?? 0);

/**
 * The shop's alerts made in each window, by kind, with how many of them went out in a sent email and how
 * many were clicked: one statement over the widest window (on the `(shopId, createdAt)` index).
 */
export async function countAlertsByKind(q: Queryable, shopId: string, since: Windows) {
  const oldest = since.at(-1)!;
  const rows = await q
    .selectFrom("Alert")
    .leftJoin("AlertMessage", (join) =>
      join.onRef("AlertMessage.id", "=", "Alert.messageId").on("AlertMessage.shopId", "=", shopId),
    )
    .select((eb) => {
      const inWindow = (start: Date) => eb("Alert.createdAt", ">=", start);
      const countWhere = (condition: ReturnType<typeof inWindow>) =>
        eb.fn.sum<number>(eb.case().when(condition).then(1).else(0).end());
      return [
        "Alert.kind",
        ...since.flatMap((start, index) => [
          countWhere(inWindow(start)).as(`made${index}`),
          countWhere(eb.and([inWindow(start), eb("AlertMessage.state", "=", "sent")])).as(`emailed${index}`),
          countWhere(eb.and([inWindow(start), eb("Alert.clickedAt", "is not", null)])).as(`clicked${index}`),
        ]),
      ];
    })
    .where("Alert.shopId", "=", shopId)
    .where("Alert.createdAt", ">=", oldest)
    .groupBy("Alert.kind")
    .execute();
  return rows.map((row) => {
    const columns = row as unknown as Record<string, unknown>;
    return {
      kind: row.kind,
      windows: since.map((_start, index) => ({
        made: asNumber(columns[`made${index}`]),
        emailed: asNumber(columns[`emailed${index}`]),
        clicked: asNumber(columns[`clicked${index}`]),
      })),
    };
  });
}

/** The shop's emails sent in each window: one statement over the widest window. */
export async function countEmailsSent(q: Queryable, shopId: string, since: Windows): Promise<number[]> {
  const oldest = since.at(-1)!;
  const row = await q
    .selectFrom("AlertMessage")
    .select((eb) =>
      since.map((start, index) =>
        eb.fn.sum<number>(eb.case().when("sentAt", ">=", start).then(1).else(0).end()).as(`sent${index}`),
      ),
    )
    .where("shopId", "=", shopId)
    .where("state", "=", "sent")
    .where("sentAt", ">=", oldest)
    .executeTakeFirst();
  const columns = (row ?? {}) as Record<string, unknown>;
  return since.map((_start, index) => asNumber(columns[`sent${index}`]));
}
