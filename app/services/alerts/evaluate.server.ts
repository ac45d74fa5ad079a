/**
 * From a new reading of a product to the alerts it makes (docs/decisions/050-wishlist-alerts.md). The stored
 * reading is compared with the new one for every customer's item of the product (./rules.ts), the cooldown
 * drops what the customer heard of lately, and each alert goes to the channels that are on: an email (a new
 * message, or the customer's open one, which then becomes a digest) and a webhook event for the endpoints
 * subscribed to its kind. The alerts are written in chunks before the new reading: a run cut short is run
 * again over the same change, and the change key keeps what it had already written from being written twice.
 */
import { createHash } from "node:crypto";
import pLimit from "p-limit";
import {
  countAlertsOfMessages,
  findCustomerItemsOfProduct,
  findUnpricedCustomerItems,
  findLastSent,
  findRecentlyAlerted,
  findSuppressed,
  holdOpenMessages,
  insertSkippedMessages,
  insertAlerts,
  insertMessages,
  setLowStockAlerted,
  setPriceSeen,
  type AlertInsert,
} from "~/data/alert-rows.server";
import {
  findCatalogueVariants,
  finishRefresh,
  replaceProductReading,
  type CatalogueVariantRow,
} from "~/data/catalogue-rows.server";
import { database, engine, transaction, type Queryable } from "~/data/database.server";
import { findEnabledEndpointsOfShops } from "~/data/webhook-endpoint-rows.server";
import { findItemsByIds, type ItemRow } from "~/data/item-rows.server";
import { getEnv } from "~/env.server";
import { newId } from "~/lib/ids";
import { recordEvent } from "~/services/events/outbox.server";
import { itemView } from "~/services/wishlists/views";
import { CHANGE_KINDS, emailReady, MAX_DIGEST_ITEMS, type AlertKind, type AlertSettings } from "./alert-settings";
import type { ProductReading } from "./catalogue.server";
import { flowKinds } from "./flow.server";
import { fromMinorUnits } from "~/lib/money";
import { findAlerts, lowStockRearmed, watchedState, type VariantState, type WatchedState } from "./rules";

/** The webhook event type of each alert kind (a reminder's: ./reminders.server.ts). */
export const ALERT_EVENT_TYPES = {
  back_in_stock: "alert.back_in_stock",
  price_dropped: "alert.price_dropped",
  low_stock: "alert.low_stock",
  reminder: "reminder.due",
} as const satisfies Record<AlertKind, string>;

/** Customers whose alerts are written in one transaction. */
const CHUNK = 500;
/** Items of a product read at once: more than a customer's lists (100 at most), few enough to hold. */
const ITEM_PAGE = 5_000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface Channels {
  email: boolean;
  /** The kinds whose Flow trigger some enabled workflow of the shop uses. */
  flow: Set<AlertKind>;
  /** The kinds some enabled endpoint of the shop subscribes to. */
  events: Set<AlertKind>;
}

/** The channels an alert of the shop can go out on now; none means no alert is made. */
export async function activeChannels(shopId: string, settings: AlertSettings): Promise<Channels> {
  const events = new Set<AlertKind>();
  for (const endpoint of await findEnabledEndpointsOfShops(database(), [shopId])) {
    const subscribed = JSON.parse(endpoint.events) as string[];
    for (const [kind, type] of Object.entries(ALERT_EVENT_TYPES)) {
      if (subscribed.includes(type)) events.add(kind as AlertKind);
    }
  }
  return { email: emailReady(settings), events, flow: await flowKinds(shopId) };
}

export interface EvaluationResult {
  /** The reading differs from the stored one in what the rules look at. */
  changed: boolean;
  alerts: number;
  /** Emails or Flow triggers are owed (the sender is to be woken for them). */
  emailsOwed: boolean;
  /** When the earliest email the run owes is due. */
  firstDueAt: Date | null;
}

const stateOf = (
  row: Pick<CatalogueVariantRow, "variantId" | "priceMinor" | "currency" | "available"> & {
    inventoryQuantity?: number | null;
  },
): VariantState => ({
  variantId: row.variantId,
  priceMinor: row.priceMinor,
  currency: row.currency,
  available: row.available,
  inventoryQuantity: row.inventoryQuantity ?? null,
});

/** What the rules look at, as one comparable text: its digest is the change key. */
function fingerprint(states: readonly VariantState[]): string {
  return JSON.stringify(
    [...states]
      .sort((a, b) => a.variantId.localeCompare(b.variantId))
      .map((state) => [state.variantId, state.priceMinor, state.currency, state.available, state.inventoryQuantity]),
  );
}

/**
 * Applies a new reading of one product of the shop: alerts for what changed, then the reading stored and the
 * product's refresh request ended (unless a newer one came meanwhile: `readStartedAt`).
 */
export async function applyProductReading({
  shopId,
  reading,
  readStartedAt,
  settings,
  channels,
  now = new Date(),
}: {
  shopId: string;
  reading: ProductReading;
  readStartedAt: Date;
  settings: AlertSettings;
  channels: Channels;
  now?: Date;
}): Promise<EvaluationResult> {
  const { productId } = reading;
  const stored = await findCatalogueVariants(database(), shopId, [productId]);
  const before = stored.map(stateOf);
  const after = reading.variants.map((variant) => stateOf(variant));
  const result: EvaluationResult = { changed: false, alerts: 0, emailsOwed: false, firstDueAt: null };
  const rows = reading.variants.map((variant) => ({ ...variant, shopId, productId, readAt: now }));
  if (before.length > 0 && fingerprint(before) !== fingerprint(after) && after.length > 0) {
    result.changed = true;
    // The change: the stored reading (its time too: the same numbers again after the cooldown are a new change)
    // and the new one. A run cut short and run again over the same change makes the same key.
    const storedAt = Math.max(...stored.map((row) => row.readAt.getTime()));
    const changeKey = createHash("sha256")
      .update(`${productId}\u0000${storedAt}\u0000${fingerprint(before)}\u0000${fingerprint(after)}`)
      .digest("base64url")
      .slice(0, 22);
    // Every customer's item of the product, a page of customers at a time, only when something changed: an
    // unchanged reading (most of them) reads no item.
    let afterCustomerId: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof findCustomerItemsOfProduct>> = await findCustomerItemsOfProduct(
        database(),
        shopId,
        productId,
        { afterCustomerId, limit: ITEM_PAGE },
      );
      await alertCustomers({
        shopId,
        reading,
        before,
        after,
        items: page.items,
        settings,
        channels,
        changeKey,
        now,
        result,
      });
      afterCustomerId = page.next;
    } while (afterCustomerId !== null);
  }

  await transaction(async (tx) => {
    await replaceProductReading(tx, shopId, productId, rows);
    // Items never read before take the price they are seen at now as the one a drop is measured from.
    const unseen: Array<[string, number]> = [];
    for (const item of await findUnpricedCustomerItems(tx, shopId, productId)) {
      const watched = watchedState(after, item.variantId);
      if (watched) unseen.push([item.id, watched.priceMinor]);
    }
    await setPriceSeen(tx, shopId, unseen);
    await finishRefresh(tx, shopId, productId, readStartedAt);
  });
  return result;
}

type CustomerItem = Awaited<ReturnType<typeof findCustomerItemsOfProduct>>["items"][number];

interface Finding {
  kind: AlertKind;
  item: CustomerItem;
  before: WatchedState;
  after: WatchedState;
  oldPriceMinor: number | null;
}

async function alertCustomers({
  shopId,
  reading,
  before,
  after,
  items,
  settings,
  channels,
  changeKey,
  now,
  result,
}: {
  shopId: string;
  reading: ProductReading;
  before: VariantState[];
  after: VariantState[];
  items: CustomerItem[];
  settings: AlertSettings;
  channels: Channels;
  changeKey: string;
  now: Date;
  result: EvaluationResult;
}) {
  const { productId } = reading;
  // A webhook endpoint or a workflow taking reminders only carries no change.
  const anyChannel =
    channels.email || CHANGE_KINDS.some((kind) => channels.events.has(kind) || channels.flow.has(kind));
  const rearm: string[] = [];
  // Per customer and kind, the newest item that makes the alert (a product on several of a customer's lists
  // alerts once).
  const byCustomer = new Map<string, Map<AlertKind, Finding>>();
  for (const item of items) {
    const was = watchedState(before, item.variantId);
    const is = watchedState(after, item.variantId);
    if (!is) continue;
    if (item.lowStockAlertedAt && lowStockRearmed(is, settings)) rearm.push(item.id);
    if (!anyChannel) continue;
    for (const found of findAlerts(was, is, item, settings)) {
      const kinds = byCustomer.get(item.customerId) ?? new Map<AlertKind, Finding>();
      const held = kinds.get(found.kind);
      if (!held || held.item.addedAt < item.addedAt) {
        kinds.set(found.kind, { kind: found.kind, item, before: was!, after: is, oldPriceMinor: found.oldPriceMinor });
      }
      byCustomer.set(item.customerId, kinds);
    }
  }
  if (rearm.length > 0) await setLowStockAlerted(database(), shopId, rearm, null);
  if (byCustomer.size === 0) return;

  const since = new Date(now.getTime() - settings.cooldownDays * DAY_MS);
  const kinds = new Set([...byCustomer.values()].flatMap((found) => [...found.keys()]));
  const customers = [...byCustomer.keys()];
  for (const kind of kinds) {
    const cooled = await findRecentlyAlerted(database(), shopId, {
      productId,
      kind,
      customerIds: customers.filter((customerId) => byCustomer.get(customerId)!.has(kind)),
      since,
    });
    for (const customerId of cooled) byCustomer.get(customerId)!.delete(kind);
  }

  const owed = customers.filter((customerId) => byCustomer.get(customerId)!.size > 0);
  // Each customer's items of the product, found once: a search of all items per alert was quadratic (a
  // product saved by 100,000 customers spent minutes of CPU in it).
  const itemsOf = new Map<string, CustomerItem[]>();
  for (const item of items) {
    const held = itemsOf.get(item.customerId);
    if (held) held.push(item);
    else itemsOf.set(item.customerId, [item]);
  }
  const parts: string[][] = [];
  for (let start = 0; start < owed.length; start += CHUNK) parts.push(owed.slice(start, start + CHUNK));
  // On PostgreSQL two transactions at once: their customers differ, so they touch no row in common, and one
  // is written while the other waits on the database. SQLite has one writer: one at a time, holding less.
  const writing = pLimit(engine() === "postgres" ? 2 : 1);
  const written = await Promise.allSettled(parts.map((part) => writing(() => writeChunk(part))));
  const failed = written.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;

  async function writeChunk(part: string[]) {
    await transaction(async (tx) => {
      const emails = channels.email ? await holdEmails(tx, { shopId, customerIds: part, now }) : null;
      if (emails) {
        result.emailsOwed = true;
        if (emails.freshDueAt && (!result.firstDueAt || emails.freshDueAt < result.firstDueAt)) {
          result.firstDueAt = emails.freshDueAt;
        }
        if (!result.firstDueAt && emails.joinedOpen) result.firstDueAt = now;
      }
      const alerts: AlertInsert[] = [];
      const findings = new Map<string, Finding>();
      for (const customerId of part) {
        for (const finding of byCustomer.get(customerId)!.values()) {
          const id = newId("alert");
          findings.set(id, finding);
          alerts.push({
            id,
            shopId,
            customerId,
            listId: finding.item.listId,
            itemId: finding.item.id,
            productId,
            variantId: finding.after.variantId,
            kind: finding.kind,
            oldPriceMinor: finding.oldPriceMinor,
            newPriceMinor: finding.after.priceMinor,
            quantity: finding.after.quantity,
            currency: finding.after.currency,
            changeKey,
            messageId: emails?.take(customerId) ?? null,
            flowState: channels.flow.has(finding.kind) ? "pending" : null,
            webhookEvent: channels.events.has(finding.kind),
            createdAt: now,
          });
        }
      }
      const made = await insertAlerts(tx, alerts);
      result.alerts += made.length;
      // The whole items, for the events only (the rules read a few columns of each).
      const evented = made.filter((alert) => channels.events.has(alert.kind as AlertKind));
      const eventItems = new Map<string, ItemRow>();
      for (const item of await findItemsByIds(tx, shopId, [...new Set(evented.map((alert) => alert.itemId))])) {
        eventItems.set(item.id, item);
      }
      if (made.some((alert) => alert.flowState === "pending")) {
        result.emailsOwed = true;
        result.firstDueAt = now;
      }
      const priceSeen: Array<[string, number]> = [];
      const lowStock: string[] = [];
      for (const alert of made) {
        const finding = findings.get(alert.id)!;
        // Every item of the product on the customer's lists now measures a drop from the price alerted.
        const ofCustomer = itemsOf.get(alert.customerId) ?? [];
        if (alert.kind === "price_dropped")
          priceSeen.push(...ofCustomer.map((item): [string, number] => [item.id, alert.newPriceMinor!]));
        if (alert.kind === "low_stock") lowStock.push(...ofCustomer.map((item) => item.id));
        const item = eventItems.get(alert.itemId);
        // An item removed since it was read makes no event.
        if (channels.events.has(alert.kind as AlertKind) && item) {
          await recordEvent(tx, {
            shopId,
            type: ALERT_EVENT_TYPES[alert.kind as AlertKind],
            createdAt: now,
            data: alertEventData(alert, finding, item, reading),
          });
        }
      }
      await setPriceSeen(tx, shopId, priceSeen);
      await setLowStockAlerted(tx, shopId, lowStock, now);
    });
  }
}

/** The emails new alerts of some customers join, held in the caller's transaction (`holdEmails`). */
export interface HeldEmails {
  /**
   * The message the customer's next alert joins, taking one of its places (MAX_DIGEST_ITEMS); null once it is
   * full: the alert then goes out on the other channels only.
   */
  take(customerId: string): string | null;
  /** When the earliest message opened now is due; null when none was opened. */
  freshDueAt: Date | null;
  /** An alert may join a message that was open already (due as it was). */
  joinedOpen: boolean;
}

/**
 * The email each of these customers' new alerts joins, in the caller's transaction: a customer on the
 * suppression list gets a message that is skipped as it is made (nothing waits to be sent to them, and taking
 * them off the list later sends nothing made meanwhile); one with an open message joins it, held against the
 * sender's claim until the transaction ends; any other gets a new message, due after the gathering window and
 * not within the digest window of the last one sent.
 */
export async function holdEmails(
  tx: Queryable,
  { shopId, customerIds, now }: { shopId: string; customerIds: readonly string[]; now: Date },
): Promise<HeldEmails> {
  const { ALERT_GATHER_MS, ALERT_DIGEST_MS } = getEnv();
  const messageOf = new Map<string, string>();
  // How many more alerts each customer's email takes (an open one may be full: MAX_DIGEST_ITEMS).
  const roomOf = new Map<string, number>();
  const suppressed = await findSuppressed(tx, shopId, customerIds);
  const skipped = [...suppressed].map(([customerId, reason]) => ({
    id: newId("alertMessage"),
    shopId,
    customerId,
    reason: reason === "unsubscribed" ? "unsubscribed" : "address refused earlier",
    at: now,
  }));
  await insertSkippedMessages(tx, skipped);
  for (const message of skipped) messageOf.set(message.customerId, message.id);
  const open = await holdOpenMessages(
    tx,
    shopId,
    customerIds.filter((customerId) => !suppressed.has(customerId)),
  );
  const carried = await countAlertsOfMessages(tx, shopId, [...open.values()]);
  for (const [customerId, messageId] of open) {
    roomOf.set(customerId, MAX_DIGEST_ITEMS - (carried.get(messageId) ?? 0));
  }
  const lastSent = await findLastSent(
    tx,
    shopId,
    customerIds.filter((customerId) => !open.has(customerId)),
  );
  const fresh = [];
  let freshDueAt: Date | null = null;
  for (const customerId of customerIds) {
    if (suppressed.has(customerId)) continue;
    const id = open.get(customerId);
    if (id) {
      messageOf.set(customerId, id);
      continue;
    }
    const last = lastSent.get(customerId)?.getTime() ?? 0;
    const dueAt = new Date(Math.max(now.getTime() + ALERT_GATHER_MS, last + ALERT_DIGEST_MS));
    const message = { id: newId("alertMessage"), shopId, customerId, dueAt, createdAt: now };
    fresh.push(message);
    messageOf.set(customerId, message.id);
    if (!freshDueAt || dueAt < freshDueAt) freshDueAt = dueAt;
  }
  await insertMessages(tx, fresh);
  return {
    take(customerId) {
      const room = roomOf.get(customerId) ?? MAX_DIGEST_ITEMS;
      roomOf.set(customerId, room - 1);
      return room > 0 ? (messageOf.get(customerId) ?? null) : null;
    },
    freshDueAt,
    joinedOpen: open.size > 0,
  };
}

/** The webhook event's `data` (OpenAPI `AlertEvent`): the alert, the item and the change. */
function alertEventData(alert: AlertInsert, finding: Finding, item: ItemRow, reading: ProductReading) {
  const money = (minor: number | null | undefined) =>
    minor === null || minor === undefined ? null : fromMinorUnits(minor, alert.currency);
  return {
    alertId: alert.id,
    listId: alert.listId,
    customerId: alert.customerId,
    item: itemView(item),
    product: { productId: reading.productId, title: reading.title, handle: reading.handle },
    variantId: alert.variantId === "" ? null : alert.variantId,
    currency: alert.currency,
    old: {
      available: finding.before.available,
      price: money(finding.kind === "price_dropped" ? alert.oldPriceMinor : finding.before.priceMinor),
      inventoryQuantity: finding.before.quantity,
    },
    new: {
      available: finding.after.available,
      price: money(finding.after.priceMinor),
      inventoryQuantity: finding.after.quantity,
    },
  };
}
