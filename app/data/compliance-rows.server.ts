/**
 * Statements of the compliance work (docs/decisions/020-compliance-and-lifecycle.md): the
 * `ComplianceRequest` rows, and the reads and erasures of one customer's or one shop's data. Every function
 * that touches shop data is scoped by the shop's id.
 */
import type { Insertable, Selectable } from "kysely";
import type { DB, Queryable } from "./database.server";

export type ComplianceRequestRow = Selectable<DB["ComplianceRequest"]>;

export function insertComplianceRequest(
  q: Queryable,
  row: Omit<Insertable<DB["ComplianceRequest"]>, "receivedAt">,
  at: Date,
): Promise<ComplianceRequestRow> {
  return q
    .insertInto("ComplianceRequest")
    .values({ ...row, receivedAt: at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The request the worker runs (by id only: the job carries no shop it could be asked for). */
export function findComplianceRequest(q: Queryable, id: string): Promise<ComplianceRequestRow | undefined> {
  return q.selectFrom("ComplianceRequest").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findShopComplianceRequest(
  q: Queryable,
  shopId: string,
  id: string,
): Promise<ComplianceRequestRow | undefined> {
  return q
    .selectFrom("ComplianceRequest")
    .selectAll()
    .where("id", "=", id)
    .where("shopId", "=", shopId)
    .executeTakeFirst();
}

/** Whether the shop already holds a request of this topic with this platform request id. */
export async function hasPlatformRequest(
  q: Queryable,
  shopId: string,
  topic: string,
  platformRequestId: string,
): Promise<boolean> {
  const row = await q
    .selectFrom("ComplianceRequest")
    .select("id")
    .where("shopId", "=", shopId)
    .where("topic", "=", topic)
    .where("platformRequestId", "=", platformRequestId)
    .executeTakeFirst();
  return row !== undefined;
}

/** A shop's requests of some topics, newest first. */
export function findComplianceRequestsOfShop(
  q: Queryable,
  shopId: string,
  { topics, before, limit }: { topics: readonly string[]; before?: string; limit: number },
): Promise<ComplianceRequestRow[]> {
  return q
    .selectFrom("ComplianceRequest")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("topic", "in", topics)
    .$if(before !== undefined, (query) => query.where("id", "<", before!))
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

/** Requests still `queued` that were received before `before` (the sweep of the compliance outbox). */
export function findQueuedComplianceRequests(
  q: Queryable,
  { before, limit }: { before: Date; limit: number },
): Promise<Pick<ComplianceRequestRow, "id" | "topic">[]> {
  return q
    .selectFrom("ComplianceRequest")
    .select(["id", "topic"])
    .where("status", "=", "queued")
    .where("receivedAt", "<", before)
    .orderBy("receivedAt")
    .limit(limit)
    .execute();
}

export async function updateComplianceRequest(
  q: Queryable,
  id: string,
  values: Partial<
    Pick<
      ComplianceRequestRow,
      "status" | "customerId" | "customerEmailSealed" | "resultKey" | "summary" | "error" | "startedAt" | "finishedAt"
    >
  >,
): Promise<void> {
  await q.updateTable("ComplianceRequest").set(values).where("id", "=", id).execute();
}

/** Data requests of a customer that left a file: their keys, so a redaction deletes the files too. */
export function findCustomerDataRequestFiles(q: Queryable, shopId: string, customerId: string) {
  return q
    .selectFrom("ComplianceRequest")
    .select(["id", "resultKey"])
    .where("shopId", "=", shopId)
    .where("customerId", "=", customerId)
    .execute();
}

/** Forgets the customer on every request of theirs (the rows stay, as the record of what was done). */
export async function clearCustomerOfRequests(q: Queryable, shopId: string, customerId: string): Promise<void> {
  await q
    .updateTable("ComplianceRequest")
    .set({ customerId: null, customerEmailSealed: null, resultKey: null })
    .where("shopId", "=", shopId)
    .where("customerId", "=", customerId)
    .execute();
}

/** Every list of a customer: their default list, named lists, and retired guest lists that point to them. */
export function findListsOfCustomer(q: Queryable, shopId: string, customerId: string) {
  return q
    .selectFrom("List")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("customerId", "=", customerId)
    .orderBy("id")
    .execute();
}

export function findItemsOfLists(q: Queryable, shopId: string, listIds: readonly string[]) {
  if (listIds.length === 0) return Promise.resolve([]);
  return q
    .selectFrom("Item")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("listId", "in", listIds)
    .orderBy("listId")
    .orderBy("addedAt")
    .orderBy("id")
    .execute();
}

/** Deletes the lists and their items. Returns how many lists and items went. */
export async function deleteListsWithItems(q: Queryable, shopId: string, listIds: readonly string[]) {
  if (listIds.length === 0) return { lists: 0, items: 0 };
  const items = await q
    .deleteFrom("Item")
    .where("shopId", "=", shopId)
    .where("listId", "in", listIds)
    .executeTakeFirst();
  const lists = await q.deleteFrom("List").where("shopId", "=", shopId).where("id", "in", listIds).executeTakeFirst();
  return { lists: Number(lists.numDeletedRows), items: Number(items.numDeletedRows) };
}

/**
 * The shop's outbox events whose data names the customer, one of the lists or one of their share tokens
 * (a guest's token that moved to the customer's list at login was shared from the guest list): the event
 * data is the JSON the outbox wrote (`"customerId":"<id>"`, without spaces), so a LIKE finds them on the
 * shop's index and the caller checks each parsed document.
 */
export function findEventsMentioning(
  q: Queryable,
  shopId: string,
  { customerId, listIds, tokens }: { customerId: string; listIds: readonly string[]; tokens: readonly string[] },
) {
  const needles = [
    `"customerId":${JSON.stringify(customerId)}`,
    ...listIds.map((id) => `"listId":${JSON.stringify(id)}`),
    ...tokens.map((token) => `"shareToken":${JSON.stringify(token)}`),
  ];
  return q
    .selectFrom("Event")
    .select(["id", "shopId", "type", "data", "createdAt"])
    .where("shopId", "=", shopId)
    .where((eb) => eb.or(needles.map((needle) => eb("data", "like", containing(needle)))))
    .orderBy("id")
    .execute();
}

/**
 * A LIKE pattern for `value` anywhere. Ids, tokens and customer ids hold no `%`; their `_` matches any one
 * character, itself included, so a pattern can only find more rows, never fewer, and callers check each row
 * they act on. (Escaping would need an ESCAPE clause on SQLite, which has no default escape character.)
 */
function containing(value: string): string {
  return `%${value}%`;
}

export async function updateEventData(q: Queryable, shopId: string, eventId: string, data: string): Promise<void> {
  await q.updateTable("Event").set({ data }).where("shopId", "=", shopId).where("id", "=", eventId).execute();
}

/** Drops what receivers answered to these events' deliveries (an answer may echo the body). */
export async function clearDeliverySnippets(q: Queryable, shopId: string, eventIds: readonly string[]) {
  if (eventIds.length === 0) return 0;
  const result = await q
    .updateTable("WebhookDelivery")
    .set({ responseSnippet: null })
    .where("shopId", "=", shopId)
    .where("eventId", "in", eventIds)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Deletes the idempotency records of a customer: those scoped to them as a shopper (`public:c:<id>`,
 * `proxy:c:<id>`) and any whose stored answer names them, one of their lists or share tokens.
 */
export async function deleteIdempotencyOfCustomer(
  q: Queryable,
  shopId: string,
  { customerId, listIds, tokens }: { customerId: string; listIds: readonly string[]; tokens: readonly string[] },
): Promise<number> {
  const needles = [
    `"customerId":${JSON.stringify(customerId)}`,
    ...[...listIds, ...tokens].map((value) => JSON.stringify(value)),
  ];
  const result = await q
    .deleteFrom("IdempotencyRecord")
    .where("shopId", "=", shopId)
    .where((eb) =>
      eb.or([
        eb("credentialId", "in", [`public:c:${customerId}`, `proxy:c:${customerId}`]),
        ...needles.map((needle) => eb("responseBody", "like", containing(needle))),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * The daily active-owner rows keep counting the customer but no longer name them: `c:<id>` becomes the
 * request's opaque key on every day, so distinct-owner counts over any range stay what they were.
 */
export async function renameActiveOwner(q: Queryable, shopId: string, from: string, to: string): Promise<number> {
  const result = await q
    .updateTable("DailyActiveOwner")
    .set({ ownerKey: to })
    .where("shopId", "=", shopId)
    .where("ownerKey", "=", from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Storage keys a shop's transfers hold (uploads, import reports, export files). */
export async function findTransferFileKeys(q: Queryable, shopId: string): Promise<string[]> {
  const [uploads, results] = await Promise.all([
    q.selectFrom("Upload").select("storageKey").where("shopId", "=", shopId).execute(),
    q
      .selectFrom("TransferJob")
      .select("resultKey")
      .where("shopId", "=", shopId)
      .where("resultKey", "is not", null)
      .execute(),
  ]);
  return [...uploads.map((row) => row.storageKey), ...results.map((row) => row.resultKey!)];
}

/**
 * Deletes up to `limit` rows of one of a shop's large tables, so erasing a large shop never holds the
 * database's writer for long (the rest goes with the shop row, by cascade). Returns how many went.
 */
export async function deleteShopRowsChunk(
  q: Queryable,
  table: "Item" | "WebhookDelivery" | "Event" | "IdempotencyRecord",
  shopId: string,
  limit: number,
): Promise<number> {
  const ids = await q.selectFrom(table).select("id").where("shopId", "=", shopId).limit(limit).execute();
  if (ids.length === 0) return 0;
  const result = await q
    .deleteFrom(table)
    .where("shopId", "=", shopId)
    .where(
      "id",
      "in",
      ids.map((row) => row.id),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes the shop row: what is left of its data goes with it (every shop table cascades). */
export async function deleteShopRow(q: Queryable, shopId: string): Promise<boolean> {
  const result = await q.deleteFrom("Shop").where("id", "=", shopId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Forgets the shop's processed platform webhooks (replay protection; they name its domain). */
export async function deleteProcessedWebhooksOfShop(q: Queryable, shopDomain: string): Promise<number> {
  const result = await q.deleteFrom("PlatformWebhook").where("shopDomain", "=", shopDomain).executeTakeFirst();
  return Number(result.numDeletedRows);
}
