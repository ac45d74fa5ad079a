/**
 * Statements on `Alert`, `AlertMessage` and `AlertSuppression` (docs/decisions/050-wishlist-alerts.md). Every
 * function takes the handle to run on and the shop id that scopes it, but for the sweeps and the retention,
 * which look across shops by design.
 */
import type { Insertable, Selectable } from "kysely";
import type { DB, Queryable } from "./database.server";

export type AlertRow = Selectable<DB["Alert"]>;
export type AlertInsert = Insertable<DB["Alert"]>;
export type AlertMessageRow = Selectable<DB["AlertMessage"]>;

const CHUNK = 500;
function chunks<T>(values: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < values.length; start += size) out.push(values.slice(start, start + size));
  return out;
}

/**
 * A page of the customers' items of a product in the shop, with only what the rules need: customer lists only
 * (a guest has no address), live lists only, in customer order from after `afterCustomerId`. A page holds
 * whole customers (a customer's items of a product are on different lists): when it is full, the last
 * customer's items are left for the next one, which `next` starts after. A product saved by 100,000 customers
 * is read a page at a time, so the evaluation's memory does not grow with them.
 */
export async function findCustomerItemsOfProduct(
  q: Queryable,
  shopId: string,
  productId: string,
  { afterCustomerId, limit }: { afterCustomerId: string | null; limit: number },
) {
  let query = q
    .selectFrom("Item")
    .innerJoin("List", "List.id", "Item.listId")
    .select([
      "Item.id",
      "Item.listId",
      "Item.variantId",
      "Item.addedAt",
      "Item.priceSeenMinor",
      "Item.lowStockAlertedAt",
      "List.customerId",
    ])
    .where("Item.shopId", "=", shopId)
    .where("Item.productId", "=", productId)
    .where("List.shopId", "=", shopId)
    .where("List.customerId", "is not", null)
    .where("List.retiredAt", "is", null)
    // A bought item is told of nothing more (docs/decisions/052-attribution.md).
    .where("Item.purchasedAt", "is", null);
  if (afterCustomerId !== null) query = query.where("List.customerId", ">", afterCustomerId);
  const rows = await query.orderBy("List.customerId").orderBy("Item.id").limit(limit).execute();
  const items = rows.map((row) => ({ ...row, customerId: row.customerId! }));
  if (items.length < limit) return { items, next: null };
  const last = items.at(-1)!.customerId;
  const whole = items.filter((item) => item.customerId !== last);
  // A page too small for one customer's items cannot happen with a limit above the lists a customer may keep.
  if (whole.length === 0) throw new Error(`a page of ${limit} items holds one customer's items only`);
  return { items: whole, next: whole.at(-1)!.customerId };
}

/** The customers' items of a product that have no price to measure a drop from yet (never read). */
export function findUnpricedCustomerItems(q: Queryable, shopId: string, productId: string) {
  return q
    .selectFrom("Item")
    .innerJoin("List", "List.id", "Item.listId")
    .select(["Item.id", "Item.variantId"])
    .where("Item.shopId", "=", shopId)
    .where("Item.productId", "=", productId)
    .where("Item.priceSeenMinor", "is", null)
    .where("List.shopId", "=", shopId)
    .where("List.customerId", "is not", null)
    .where("List.retiredAt", "is", null)
    .execute();
}

/** Those of these customers alerted of the product's `kind` since `since` (the cooldown). */
export async function findRecentlyAlerted(
  q: Queryable,
  shopId: string,
  { productId, kind, customerIds, since }: { productId: string; kind: string; customerIds: string[]; since: Date },
): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunks(customerIds)) {
    const rows = await q
      .selectFrom("Alert")
      .select("customerId")
      .where("shopId", "=", shopId)
      .where("customerId", "in", part)
      .where("productId", "=", productId)
      .where("kind", "=", kind)
      .where("createdAt", ">", since)
      .execute();
    for (const row of rows) found.add(row.customerId);
  }
  return found;
}

/** Inserts the alerts; one already made from the same reading (same change key) is skipped. Returns those made. */
export async function insertAlerts(q: Queryable, alerts: readonly AlertInsert[]): Promise<AlertRow[]> {
  const made: AlertRow[] = [];
  for (const part of chunks(alerts, 100)) {
    made.push(
      ...(await q
        .insertInto("Alert")
        .values(part)
        .onConflict((conflict) => conflict.doNothing())
        .returningAll()
        .execute()),
    );
  }
  return made;
}

/**
 * The open message of each of these customers, held against the sender's claim until the transaction ends
 * (the update takes the rows' write locks; SQLite has one writer), so an alert added to it is sent with it.
 */
export async function holdOpenMessages(
  q: Queryable,
  shopId: string,
  customerIds: readonly string[],
): Promise<Map<string, string>> {
  const open = new Map<string, string>();
  for (const part of chunks(customerIds)) {
    const rows = await q
      .updateTable("AlertMessage")
      .set((eb) => ({ attempts: eb.ref("attempts") }))
      .where("shopId", "=", shopId)
      .where("customerId", "in", part)
      .where("open", "=", true)
      .returning(["id", "customerId"])
      .execute();
    for (const row of rows) open.set(row.customerId, row.id);
  }
  return open;
}

/** How many alerts each of these messages carries (those carrying none are left out). */
export async function countAlertsOfMessages(
  q: Queryable,
  shopId: string,
  messageIds: readonly string[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const part of chunks(messageIds)) {
    const rows = await q
      .selectFrom("Alert")
      .select(["messageId", (eb) => eb.fn.countAll<number>().as("count")])
      .where("shopId", "=", shopId)
      .where("messageId", "in", part)
      .groupBy("messageId")
      .execute();
    for (const row of rows) if (row.messageId) counts.set(row.messageId, Number(row.count));
  }
  return counts;
}

/** When each of these customers was last sent an alert email. */
export async function findLastSent(
  q: Queryable,
  shopId: string,
  customerIds: readonly string[],
): Promise<Map<string, Date>> {
  const last = new Map<string, Date>();
  for (const part of chunks(customerIds)) {
    const rows = await q
      .selectFrom("AlertMessage")
      .select(["customerId", (eb) => eb.fn.max("sentAt").as("sentAt")])
      .where("shopId", "=", shopId)
      .where("customerId", "in", part)
      .where("sentAt", "is not", null)
      .groupBy("customerId")
      .execute();
    for (const row of rows) if (row.sentAt) last.set(row.customerId, new Date(row.sentAt));
  }
  return last;
}

export async function insertMessages(
  q: Queryable,
  messages: ReadonlyArray<{ id: string; shopId: string; customerId: string; dueAt: Date; createdAt: Date }>,
): Promise<void> {
  for (const part of chunks(messages, 100)) {
    await q
      .insertInto("AlertMessage")
      .values(part.map((message) => ({ ...message, state: "pending", open: true, attempts: 0 })))
      .execute();
  }
}

/** Messages that end skipped as they are made (the customer is on the suppression list), with the reason. */
export async function insertSkippedMessages(
  q: Queryable,
  messages: ReadonlyArray<{ id: string; shopId: string; customerId: string; reason: string; at: Date }>,
): Promise<void> {
  for (const part of chunks(messages, 100)) {
    await q
      .insertInto("AlertMessage")
      .values(
        part.map(({ id, shopId, customerId, reason, at }) => ({
          id,
          shopId,
          customerId,
          state: "skipped",
          open: null,
          dueAt: at,
          attempts: 0,
          error: reason,
          createdAt: at,
        })),
      )
      .execute();
  }
}

/** Sets the items' reference price (after a price-drop alert: the price alerted). */
export async function setPriceSeen(q: Queryable, shopId: string, updates: ReadonlyArray<[string, number]>) {
  const byPrice = new Map<number, string[]>();
  for (const [itemId, price] of updates) {
    // Appended in place: copying the list for each item was quadratic (100,000 items at one price: minutes).
    const held = byPrice.get(price);
    if (held) held.push(itemId);
    else byPrice.set(price, [itemId]);
  }
  for (const [price, itemIds] of byPrice) {
    for (const part of chunks(itemIds)) {
      await q
        .updateTable("Item")
        .set({ priceSeenMinor: price })
        .where("shopId", "=", shopId)
        .where("id", "in", part)
        .execute();
    }
  }
}

/** Marks (a date) or clears (null) the items' low-stock alert. */
export async function setLowStockAlerted(q: Queryable, shopId: string, itemIds: readonly string[], at: Date | null) {
  for (const part of chunks(itemIds)) {
    await q
      .updateTable("Item")
      .set({ lowStockAlertedAt: at })
      .where("shopId", "=", shopId)
      .where("id", "in", part)
      .execute();
  }
}

// ---- Sending -----------------------------------------------------------------------------------------

/**
 * Claims up to `limit` of the shop's messages due at `now` (pending, or sending under a claim that lapsed:
 * its worker died) for `leaseMs`: they take no more alerts and no other sender takes them meanwhile.
 */
export async function claimDueMessages(
  q: Queryable,
  shopId: string,
  { now, limit, leaseMs }: { now: Date; limit: number; leaseMs: number },
): Promise<AlertMessageRow[]> {
  // Two range reads of the (shopId, state, dueAt) index, not one OR that no index serves: claims whose
  // lease lapsed (a worker lost) first, then the pending messages due, in order.
  const lapsed = await q
    .selectFrom("AlertMessage")
    .select("id")
    .where("shopId", "=", shopId)
    .where("state", "=", "sending")
    .where("leaseUntil", "<", now)
    .orderBy("dueAt")
    .limit(limit)
    .execute();
  const pending =
    lapsed.length < limit
      ? await q
          .selectFrom("AlertMessage")
          .select("id")
          .where("shopId", "=", shopId)
          .where("state", "=", "pending")
          .where("dueAt", "<=", now)
          .orderBy("dueAt")
          .limit(limit - lapsed.length)
          .execute()
      : [];
  const due = [...lapsed, ...pending];
  if (due.length === 0) return [];
  return q
    .updateTable("AlertMessage")
    .set((eb) => ({
      state: "sending",
      open: null,
      leaseUntil: new Date(now.getTime() + leaseMs),
      attempts: eb("attempts", "+", 1),
    }))
    .where("shopId", "=", shopId)
    .where(
      "id",
      "in",
      due.map((row) => row.id),
    )
    .where((eb) =>
      eb.or([
        eb.and([eb("state", "=", "pending"), eb("dueAt", "<=", now)]),
        eb.and([eb("state", "=", "sending"), eb("leaseUntil", "<", now)]),
      ]),
    )
    .returningAll()
    .execute();
}

/** The alerts each message carries. */
export async function findAlertsOfMessages(
  q: Queryable,
  shopId: string,
  messageIds: readonly string[],
): Promise<AlertRow[]> {
  const rows: AlertRow[] = [];
  for (const part of chunks(messageIds)) {
    rows.push(
      ...(await q
        .selectFrom("Alert")
        .selectAll()
        .where("shopId", "=", shopId)
        .where("messageId", "in", part)
        .execute()),
    );
  }
  // Sorted here: an ORDER BY leads SQLite's planner, without statistics, to the shop's (shopId, createdAt)
  // index and through all of the shop's alerts, where (messageId) reads only these.
  return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
}

/** Which of these (customer, product) pairs are still saved, not bought, on one of the customer's live lists. */
export async function findStillSaved(
  q: Queryable,
  shopId: string,
  pairs: ReadonlyArray<{ customerId: string; productId: string }>,
): Promise<Set<string>> {
  const saved = new Set<string>();
  const customers = [...new Set(pairs.map((pair) => pair.customerId))];
  const products = [...new Set(pairs.map((pair) => pair.productId))];
  for (const part of chunks(customers)) {
    const rows = await q
      .selectFrom("Item")
      .innerJoin("List", "List.id", "Item.listId")
      .select(["List.customerId", "Item.productId"])
      .where("Item.shopId", "=", shopId)
      .where("List.shopId", "=", shopId)
      .where("List.customerId", "in", part)
      .where("List.retiredAt", "is", null)
      .where("Item.productId", "in", products)
      .where("Item.purchasedAt", "is", null)
      .execute();
    for (const row of rows) saved.add(`${row.customerId}\u0000${row.productId}`);
  }
  return saved;
}

/** The message ends in `state` (sent, skipped, failed); false when it is gone (erased meanwhile). */
export async function finishMessage(
  q: Queryable,
  shopId: string,
  messageId: string,
  { state, at, error = null }: { state: "sent" | "skipped" | "failed"; at: Date; error?: string | null },
): Promise<boolean> {
  const result = await q
    .updateTable("AlertMessage")
    .set({ state, sentAt: state === "sent" ? at : null, leaseUntil: null, error })
    .where("shopId", "=", shopId)
    .where("id", "=", messageId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The message is tried again at `dueAt` (a transient failure); it stays closed to new alerts. */
export async function retryMessage(
  q: Queryable,
  shopId: string,
  messageId: string,
  { dueAt, error }: { dueAt: Date; error: string },
): Promise<void> {
  await q
    .updateTable("AlertMessage")
    .set({ state: "pending", dueAt, leaseUntil: null, error })
    .where("shopId", "=", shopId)
    .where("id", "=", messageId)
    .execute();
}

/**
 * The message waits for the plan's allowance (docs/decisions/062-plans-and-billing.md): pending again, due at
 * `dueAt` (the next period), its claim not counted as an attempt, `note` saying why in the admin's log.
 */
export async function holdMessage(
  q: Queryable,
  shopId: string,
  messageId: string,
  { dueAt, note }: { dueAt: Date; note: string },
): Promise<void> {
  await q
    .updateTable("AlertMessage")
    .set((eb) => ({
      state: "pending",
      dueAt,
      leaseUntil: null,
      error: note,
      attempts: eb
        .case()
        .when("attempts", ">", 0)
        .then(eb("attempts", "-", 1))
        .else(0)
        .end(),
    }))
    .where("shopId", "=", shopId)
    .where("id", "=", messageId)
    .execute();
}

/** Messages held for the allowance (`note`) are due now: the plan changed and may have room. */
export async function releaseHeldMessages(q: Queryable, shopId: string, note: string, now: Date): Promise<number> {
  const result = await q
    .updateTable("AlertMessage")
    .set({ dueAt: now, error: null })
    .where("shopId", "=", shopId)
    .where("state", "=", "pending")
    .where("error", "=", note)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** How many of the shop's messages wait for the allowance (`note`). */
export async function countHeldMessages(q: Queryable, shopId: string, note: string): Promise<number> {
  const row = await q
    .selectFrom("AlertMessage")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("shopId", "=", shopId)
    .where("state", "=", "pending")
    .where("error", "=", note)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Emails of the shop sent since `since` or being sent: the pacing's count. */
export async function countSentSince(q: Queryable, shopId: string, since: Date): Promise<number> {
  // Two range reads of (shopId, state, sentAt) and (shopId, state, dueAt): one count over the shop's
  // sent messages would grow with every email the shop ever sent.
  const sent = await q
    .selectFrom("AlertMessage")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("shopId", "=", shopId)
    .where("state", "=", "sent")
    .where("sentAt", ">=", since)
    .executeTakeFirstOrThrow();
  const sending = await q
    .selectFrom("AlertMessage")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("shopId", "=", shopId)
    .where("state", "=", "sending")
    .executeTakeFirstOrThrow();
  return Number(sent.count) + Number(sending.count);
}

/** The earliest time one of the shop's messages is due (null: none waits). */
export async function nextDueAt(q: Queryable, shopId: string): Promise<Date | null> {
  const row = await q
    .selectFrom("AlertMessage")
    .select((eb) => eb.fn.min("dueAt").as("dueAt"))
    .where("shopId", "=", shopId)
    .where("state", "=", "pending")
    .executeTakeFirst();
  return row?.dueAt ? new Date(row.dueAt) : null;
}

/**
 * Installed shops with messages due by `now` or Flow triggers owed (the sweep; across shops by design). Each
 * shop is probed through its own (shopId, state, dueAt) and (shopId, flowState, createdAt) indexes: a few
 * index reads per installed shop, whatever the tables hold.
 */
export async function findShopsWithDueMessages(
  q: Queryable,
  { now, limit }: { now: Date; limit: number },
): Promise<string[]> {
  const rows = await q
    .selectFrom("Shop")
    .select("Shop.id")
    .where("Shop.uninstalledAt", "is", null)
    .where((outer) =>
      outer.or([
        outer.exists(
          outer
            .selectFrom("AlertMessage")
            .select("AlertMessage.id")
            .whereRef("AlertMessage.shopId", "=", "Shop.id")
            .where("AlertMessage.state", "=", "pending")
            .where("AlertMessage.dueAt", "<=", now),
        ),
        // A claim lost with its worker.
        outer.exists(
          outer
            .selectFrom("AlertMessage")
            .select("AlertMessage.id")
            .whereRef("AlertMessage.shopId", "=", "Shop.id")
            .where("AlertMessage.state", "=", "sending")
            .where("AlertMessage.leaseUntil", "<", now),
        ),
        // Flow triggers owed (the sender sends them too).
        outer.exists(
          outer
            .selectFrom("Alert")
            .select("Alert.id")
            .whereRef("Alert.shopId", "=", "Shop.id")
            .where("Alert.flowState", "=", "pending"),
        ),
      ]),
    )
    .orderBy("Shop.id")
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

// ---- Suppression and clicks --------------------------------------------------------------------------

export async function findSuppressed(
  q: Queryable,
  shopId: string,
  customerIds: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const part of chunks(customerIds)) {
    const rows = await q
      .selectFrom("AlertSuppression")
      .select(["customerId", "reason"])
      .where("shopId", "=", shopId)
      .where("customerId", "in", part)
      .execute();
    for (const row of rows) found.set(row.customerId, row.reason);
  }
  return found;
}

/** Suppresses the customer's alert emails; an entry already there keeps its reason and time. Returns whether it was new. */
export async function insertSuppression(
  q: Queryable,
  shopId: string,
  entry: { customerId: string; reason: "unsubscribed" | "bounced"; detail?: string | null; at: Date },
): Promise<boolean> {
  const rows = await q
    .insertInto("AlertSuppression")
    .values({
      shopId,
      customerId: entry.customerId,
      reason: entry.reason,
      detail: entry.detail ?? null,
      createdAt: entry.at,
    })
    .onConflict((conflict) => conflict.doNothing())
    .returning("customerId")
    .execute();
  return rows.length > 0;
}

export async function deleteSuppression(q: Queryable, shopId: string, customerId: string): Promise<boolean> {
  const result = await q
    .deleteFrom("AlertSuppression")
    .where("shopId", "=", shopId)
    .where("customerId", "=", customerId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The alert, if it is the shop's and the message's (a click names both). */
export function findAlertOfMessage(
  q: Queryable,
  shopId: string,
  { alertId, messageId }: { alertId: string; messageId: string },
) {
  return q
    .selectFrom("Alert")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("id", "=", alertId)
    .where("messageId", "=", messageId)
    .executeTakeFirst();
}

/** Records the first click on the alert's link. */
export async function markClicked(q: Queryable, shopId: string, alertId: string, at: Date): Promise<void> {
  await q
    .updateTable("Alert")
    .set({ clickedAt: at })
    .where("shopId", "=", shopId)
    .where("id", "=", alertId)
    .where("clickedAt", "is", null)
    .execute();
}

/**
 * Retention (across shops by design): alerts made before `before` are deleted, and the messages left
 * carrying none, unless still owed (pending or being sent). Returns the alerts deleted.
 */
export async function deleteAlertsBefore(q: Queryable, before: Date): Promise<number> {
  const result = await q.deleteFrom("Alert").where("createdAt", "<", before).executeTakeFirst();
  await q
    .deleteFrom("AlertMessage")
    .where("createdAt", "<", before)
    .where("state", "not in", ["pending", "sending"])
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("Alert").select("Alert.id").whereRef("Alert.messageId", "=", "AlertMessage.id"))),
    )
    .execute();
  return Number(result.numDeletedRows);
}

// ---- Compliance --------------------------------------------------------------------------------------

/** What the alerts hold of one customer: for a data request. */
export async function findAlertDataOfCustomer(q: Queryable, shopId: string, customerId: string) {
  const [alerts, messages, suppression] = await Promise.all([
    q
      .selectFrom("Alert")
      .selectAll()
      .where("shopId", "=", shopId)
      .where("customerId", "=", customerId)
      .orderBy("createdAt")
      .execute(),
    q
      .selectFrom("AlertMessage")
      .selectAll()
      .where("shopId", "=", shopId)
      .where("customerId", "=", customerId)
      .orderBy("createdAt")
      .execute(),
    q
      .selectFrom("AlertSuppression")
      .selectAll()
      .where("shopId", "=", shopId)
      .where("customerId", "=", customerId)
      .executeTakeFirst(),
  ]);
  return { alerts, messages, suppression: suppression ?? null };
}

/** Erases what the alerts hold of one customer (customers/redact). */
export async function deleteAlertDataOfCustomer(q: Queryable, shopId: string, customerId: string) {
  const alerts = await q
    .deleteFrom("Alert")
    .where("shopId", "=", shopId)
    .where("customerId", "=", customerId)
    .executeTakeFirst();
  const messages = await q
    .deleteFrom("AlertMessage")
    .where("shopId", "=", shopId)
    .where("customerId", "=", customerId)
    .executeTakeFirst();
  const suppressions = await q
    .deleteFrom("AlertSuppression")
    .where("shopId", "=", shopId)
    .where("customerId", "=", customerId)
    .executeTakeFirst();
  return {
    alerts: Number(alerts.numDeletedRows),
    alertMessages: Number(messages.numDeletedRows),
    alertSuppressions: Number(suppressions.numDeletedRows),
  };
}
