/**
 * The reminder rule (docs/decisions/050-wishlist-alerts.md#reminders): a customer is reminded of the items they
 * saved the shop's `afterDays` ago and have not bought, through the alerts' channels (one email listing them,
 * the "Wishlist reminder due" Flow trigger, the `reminder.due` webhook event). A reminder is an alert of kind
 * "reminder" with the fixed change key "reminder": the alerts' unique index holds one per customer and product,
 * and the items it names are marked (`Item.remindedAt`), so no item is reminded of twice; a customer gets
 * reminders at most once a week, the items still due then waiting for the next week.
 *
 * One run of a shop (the `alertRemind` job, deduplicated per shop) does two bounded passes, each reading on
 * from where the last run stopped (`ReminderScan`):
 *  - the weekly pass reads the reminders whose week ended since, and looks at their customers again (the
 *    items that waited, over MAX_DIGEST_ITEMS or saved meanwhile);
 *  - the scan reads the shop's items saved up to `afterDays` ago in the order they were saved, a page of
 *    the (shopId, addedAt, id) index at a time, and looks at the customers whose items it passed.
 * Looking at a customer reads only their own lists. A shop with a million items is read a page at a time,
 * each item once however often the rule runs.
 */
import type { Redis } from "ioredis";
import { findSuppressed, insertAlerts, type AlertInsert } from "~/data/alert-rows.server";
import { findCatalogueVariants } from "~/data/catalogue-rows.server";
import { database, transaction, type Queryable } from "~/data/database.server";
import { findItemsByIds } from "~/data/item-rows.server";
import {
  findAlertsMadeAfter,
  findDueItemsOfCustomers,
  findInstalledShopAlertSettings,
  findItemsSavedAfter,
  findReminderScan,
  findRemindersOfCustomers,
  markReminded,
  saveReminderScan,
  type ScanPosition,
} from "~/data/reminder-rows.server";
import { findShopById } from "~/data/shop-rows.server";
import { enqueueAlertRemind } from "~/jobs/queues.server";
import { newId } from "~/lib/ids";
import { fromMinorUnits } from "~/lib/money";
import { logger } from "~/logger.server";
import { recordEvent } from "~/services/events/outbox.server";
import { itemView } from "~/services/wishlists/views";
import { MAX_DIGEST_ITEMS, readAlertSettings } from "./alert-settings";
import { activeChannels, ALERT_EVENT_TYPES, holdEmails } from "./evaluate.server";
import { watchedState, type VariantState, type WatchedState } from "./rules";
import { wakeAlertSender } from "./sender.server";

export const REMINDER_KIND = "reminder";
/** Every reminder's change key: with the alerts' unique index, one reminder per customer and product. */
export const REMINDER_CHANGE_KEY = "reminder";

const DAY_MS = 24 * 60 * 60 * 1000;
/** A customer gets reminders at most once in this long. */
export const REMINDER_INTERVAL_MS = 7 * DAY_MS;
/** Rows a pass reads at once, and the pages of each pass a run reads before it hands the worker back. */
const PAGE = 1_000;
const PAGES_PER_RUN = 5;
/** Customers whose reminders are written in one transaction. */
const CUSTOMER_CHUNK = 100;

export interface ReminderRun {
  /** Items the scan passed, and reminders the weekly pass passed. */
  scanned: number;
  revisited: number;
  /** Customers looked at, and reminders made (one per customer and product). */
  customers: number;
  reminders: number;
  /** A pass stopped at its page limit: the next run is queued. */
  more?: boolean;
  skipped?: string;
}

/** Which channels carry a reminder of the shop now. */
interface ReminderChannels {
  email: boolean;
  flow: boolean;
  event: boolean;
}

/** Queues the shop's run; never thrown: the hourly sweep queues it again. */
export async function queueReminders(shopId: string, connection?: Redis) {
  try {
    await enqueueAlertRemind(shopId, connection);
  } catch (error) {
    logger.warn({ err: error, shopId }, "reminders run not queued; the hourly sweep will queue it");
  }
}

/** The sweep (hourly): every installed shop whose reminder rule is on is queued. */
export async function queueDueReminders(connection?: Redis): Promise<string[]> {
  const queued: string[] = [];
  let afterId: string | null = null;
  for (;;) {
    const shops: Array<{ id: string; alertSettings: string }> = await findInstalledShopAlertSettings(database(), {
      afterId,
      limit: 500,
    });
    for (const shop of shops) {
      if (!readAlertSettings(shop.alertSettings).reminders.enabled) continue;
      await enqueueAlertRemind(shop.id, connection);
      queued.push(shop.id);
    }
    if (shops.length < 500) return queued;
    afterId = shops.at(-1)!.id;
  }
}

export async function runReminders({
  shopId,
  now = new Date(),
  connection,
}: {
  shopId: string;
  now?: Date;
  connection?: Redis;
}): Promise<ReminderRun> {
  const run: ReminderRun = { scanned: 0, revisited: 0, customers: 0, reminders: 0 };
  const shop = await findShopById(database(), shopId);
  if (!shop || shop.uninstalledAt) return { ...run, skipped: shop ? "uninstalled" : "no such shop" };
  const settings = readAlertSettings(shop.alertSettings);
  if (!settings.reminders.enabled) return { ...run, skipped: "reminders are off" };
  const active = await activeChannels(shopId, settings);
  const channels: ReminderChannels = {
    email: active.email,
    flow: active.flow.has(REMINDER_KIND),
    event: active.events.has(REMINDER_KIND),
  };
  // Made only while a channel carries them, as the alerts are; the passes stay where they are meanwhile, so
  // the items that came due wait for a channel rather than being passed over.
  if (!channels.email && !channels.flow && !channels.event) return { ...run, skipped: "no channel" };

  const savedBy = new Date(now.getTime() - settings.reminders.afterDays * DAY_MS);
  const owed: Owed = { sender: false, firstDueAt: null };
  const remind = (customerIds: Iterable<string>) =>
    remindCustomers({ shopId, customerIds: [...new Set(customerIds)], savedBy, channels, now, run, owed });
  const scan = await findReminderScan(database(), shopId);

  // The weekly pass: the customers of the reminders whose week is over, looked at again.
  let reminderAfter = scan.reminder;
  for (let page = 0; ; page += 1) {
    if (page === PAGES_PER_RUN) {
      run.more = true;
      break;
    }
    const rows = await findAlertsMadeAfter(database(), shopId, {
      kind: REMINDER_KIND,
      after: reminderAfter,
      madeBy: new Date(now.getTime() - REMINDER_INTERVAL_MS),
      limit: PAGE,
    });
    if (rows.length === 0) break;
    await remind(rows.map((row) => row.customerId));
    const last = rows.at(-1)!;
    reminderAfter = { at: last.createdAt, id: last.id };
    await saveReminderScan(database(), shopId, { reminder: reminderAfter, at: now });
    run.revisited += rows.length;
    if (rows.length < PAGE) break;
  }

  // The scan: the items that came due since the last run, in the order they were saved.
  let itemAfter: ScanPosition | null = scan.item;
  for (let page = 0; ; page += 1) {
    if (page === PAGES_PER_RUN) {
      run.more = true;
      break;
    }
    const rows = await findItemsSavedAfter(database(), shopId, { after: itemAfter, savedBy, limit: PAGE });
    if (rows.length === 0) break;
    const due = rows.filter(
      (row) =>
        row.customerId !== null &&
        row.retiredAt === null &&
        row.remindedAt === null &&
        row.purchasedAt === null &&
        row.unavailableAt === null,
    );
    await remind(due.map((row) => row.customerId!));
    const last = rows.at(-1)!;
    itemAfter = { at: last.addedAt, id: last.id };
    await saveReminderScan(database(), shopId, { item: itemAfter, at: now });
    run.scanned += rows.length;
    if (rows.length < PAGE) break;
  }

  if (run.more) await queueReminders(shopId, connection);
  if (owed.sender) await wakeAlertSender(shopId, owed.firstDueAt, connection);
  return run;
}

interface Owed {
  /** Emails or Flow triggers were made: the sender is to be woken. */
  sender: boolean;
  firstDueAt: Date | null;
}

type DueItem = Awaited<ReturnType<typeof findDueItemsOfCustomers>>[number];

/**
 * Reminds each of these customers who had no reminder in the last week, and is not on the suppression list, of
 * their items due now (oldest saved first, MAX_DIGEST_ITEMS products at most: the rest wait for the next week),
 * a chunk of customers to a transaction. Products they were reminded of already are marked and left out; products sold out or not read
 * yet wait (a reminder sends the shopper to something they can buy; the back-in-stock alert tells of the rest).
 */
async function remindCustomers({
  shopId,
  customerIds,
  savedBy,
  channels,
  now,
  run,
  owed,
}: {
  shopId: string;
  customerIds: string[];
  savedBy: Date;
  channels: ReminderChannels;
  now: Date;
  run: ReminderRun;
  owed: Owed;
}) {
  for (let start = 0; start < customerIds.length; start += CUSTOMER_CHUNK) {
    const part = customerIds.slice(start, start + CUSTOMER_CHUNK);
    run.customers += part.length;
    await transaction(async (tx) => {
      const weekAgo = now.getTime() - REMINDER_INTERVAL_MS;
      const recent = new Set<string>();
      const reminded = new Set<string>();
      for (const row of await findRemindersOfCustomers(tx, shopId, { kind: REMINDER_KIND, customerIds: part })) {
        if (row.createdAt.getTime() > weekAgo) recent.add(row.customerId);
        reminded.add(`${row.customerId}\u0000${row.productId}`);
      }
      // A customer on the suppression list asked the shop to stop its wishlist emails: a reminder is marketing
      // they did not ask for by saving, so they get none, on any channel.
      const suppressed = await findSuppressed(tx, shopId, part);
      const customers = part.filter((customerId) => !recent.has(customerId) && !suppressed.has(customerId));
      if (customers.length === 0) return;
      const due = await findDueItemsOfCustomers(tx, shopId, { customerIds: customers, savedBy });
      if (due.length === 0) return;
      const readings = await readingsOf(tx, shopId, due);

      // Per customer, in the order saved: each product once (its oldest item), those already reminded of
      // marked only.
      const chosen = new Map<string, Map<string, { item: DueItem; watched: WatchedState }>>();
      const markOnly = new Map<string, Set<string>>();
      for (const item of due) {
        const products = chosen.get(item.customerId) ?? new Map();
        chosen.set(item.customerId, products);
        if (products.has(item.productId)) continue;
        if (reminded.has(`${item.customerId}\u0000${item.productId}`)) {
          const marks = markOnly.get(item.customerId) ?? new Set<string>();
          marks.add(item.productId);
          markOnly.set(item.customerId, marks);
          continue;
        }
        if (products.size >= MAX_DIGEST_ITEMS) continue;
        const watched = watchedState(readings.get(item.productId) ?? [], item.variantId);
        if (!watched?.available) continue;
        products.set(item.productId, { item, watched });
      }
      const reminding = customers.filter((customerId) => (chosen.get(customerId)?.size ?? 0) > 0);

      const emails =
        channels.email && reminding.length > 0 ? await holdEmails(tx, { shopId, customerIds: reminding, now }) : null;
      if (emails) {
        owed.sender = true;
        const dueAt = emails.freshDueAt ?? (emails.joinedOpen ? now : null);
        if (dueAt && (!owed.firstDueAt || dueAt < owed.firstDueAt)) owed.firstDueAt = dueAt;
      }
      const alerts: AlertInsert[] = [];
      for (const customerId of reminding) {
        for (const { item, watched } of chosen.get(customerId)!.values()) {
          alerts.push({
            id: newId("alert"),
            shopId,
            customerId,
            listId: item.listId,
            itemId: item.id,
            productId: item.productId,
            variantId: watched.variantId,
            kind: REMINDER_KIND,
            oldPriceMinor: null,
            newPriceMinor: watched.priceMinor,
            quantity: null,
            currency: watched.currency,
            changeKey: REMINDER_CHANGE_KEY,
            messageId: emails?.take(customerId) ?? null,
            flowState: channels.flow ? "pending" : null,
            webhookEvent: channels.event,
            createdAt: now,
          });
        }
      }
      const made = await insertAlerts(tx, alerts);
      run.reminders += made.length;
      if (channels.flow && made.length > 0) {
        owed.sender = true;
        owed.firstDueAt = now;
      }
      if (channels.event && made.length > 0) {
        const items = new Map(
          (await findItemsByIds(tx, shopId, [...new Set(made.map((alert) => alert.itemId))])).map((item) => [
            item.id,
            item,
          ]),
        );
        for (const alert of made) {
          const item = items.get(alert.itemId);
          if (!item) continue;
          await recordEvent(tx, {
            shopId,
            type: ALERT_EVENT_TYPES.reminder,
            createdAt: now,
            data: {
              alertId: alert.id,
              listId: alert.listId,
              customerId: alert.customerId,
              item: itemView(item),
              product: { productId: alert.productId, title: item.titleSnapshot, handle: item.handle },
              variantId: alert.variantId === "" ? null : alert.variantId,
              currency: alert.currency,
              price: fromMinorUnits(alert.newPriceMinor!, alert.currency),
              savedDays: Math.floor((now.getTime() - item.addedAt.getTime()) / DAY_MS),
            },
          });
        }
      }
      for (const customerId of customers) {
        const productIds = [...(chosen.get(customerId)?.keys() ?? []), ...(markOnly.get(customerId) ?? [])];
        if (productIds.length > 0) await markReminded(tx, shopId, { customerId, productIds, at: now });
      }
    });
  }
}

/** The last reading of each of the items' products (their variants), 500 products a statement. */
async function readingsOf(tx: Queryable, shopId: string, items: readonly DueItem[]) {
  const readings = new Map<string, VariantState[]>();
  const productIds = [...new Set(items.map((item) => item.productId))];
  const rows = [];
  for (let start = 0; start < productIds.length; start += 500) {
    rows.push(...(await findCatalogueVariants(tx, shopId, productIds.slice(start, start + 500))));
  }
  for (const row of rows) {
    const variants = readings.get(row.productId) ?? [];
    variants.push({
      variantId: row.variantId,
      priceMinor: row.priceMinor,
      currency: row.currency,
      available: row.available,
      inventoryQuantity: row.inventoryQuantity ?? null,
    });
    readings.set(row.productId, variants);
  }
  return readings;
}
