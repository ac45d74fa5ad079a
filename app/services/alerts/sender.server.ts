/**
 * Sending the alert emails of one shop (docs/decisions/050-wishlist-alerts.md). One run at a time per shop
 * (the job's deduplication id) claims the shop's due messages under a lease, and for each one:
 *  - drops the alerts of products the customer has since removed from every list (none left: skipped);
 *  - skips a customer on the suppression list, one without an address, and, by default, one whose email
 *    marketing consent the platform does not say is SUBSCRIBED (read when sending; never stored);
 *  - renders the email in the customer's language and sends it with a List-Unsubscribe one-click header
 *    (RFC 8058) and a Message-ID that is the message's own, so a send repeated after a crash is recognisably
 *    the same message;
 *  - records it sent, or suppresses the address on a 5xx about the recipient, or tries again later on a
 *    transient failure (a 4xx, the server down), up to MAX_ATTEMPTS.
 * Sending is paced to the shop's `ratePerMinute`, counted in the database over the last minute, so several
 * workers together keep to it. Each email takes a unit of the plan's monthly allowance first
 * (docs/decisions/062-plans-and-billing.md); over it, the message waits for the next month, or for an upgrade,
 * and is never lost.
 */
import type { Redis } from "ioredis";
import pLimit from "p-limit";
import {
  claimDueMessages,
  countSentSince,
  findAlertsOfMessages,
  findShopsWithDueMessages,
  findStillSaved,
  findSuppressed,
  finishMessage,
  holdMessage,
  insertSuppression,
  nextDueAt,
  retryMessage,
  type AlertMessageRow,
  type AlertRow,
} from "~/data/alert-rows.server";
import { findCatalogueVariants } from "~/data/catalogue-rows.server";
import { database, transaction } from "~/data/database.server";
import { findItemsByIds } from "~/data/item-rows.server";
import { findShopById } from "~/data/shop-rows.server";
import { getEnv } from "~/env.server";
import { enqueueAlertSend } from "~/jobs/queues.server";
import { isDomainError } from "~/lib/domain-error";
import { logger } from "~/logger.server";
import { createAdminCaller, NODES_PER_QUERY } from "~/services/platform/admin-api.server";
import { allowanceTaker, returnUnit } from "~/services/plans/entitlements.server";
import { ALLOWANCE_HELD_NOTE } from "~/services/plans/plans";
import { emailReady, MAX_DIGEST_ITEMS, readAlertSettings, type AlertKind, type AlertSettings } from "./alert-settings";
import { createAlertEmailRenderer, type AlertEmailItem, type RenderedAlertEmail } from "./email-template";
import { clickUrl, unsubscribeUrl } from "./links.server";
import { sendFlowTriggers } from "./flow.server";
import { classifySmtpFailure, openSmtpPassword, smtpTransport } from "./smtp.server";

const RECIPIENTS = `#graphql
  query WishlistAlertRecipients($ids: [ID!]!) {
    nodes(ids: $ids) { ... on Customer { id firstName locale defaultEmailAddress { emailAddress marketingState } } }
  }`;

/** Messages claimed at once. */
const BATCH = 100;
/** Sends at once, per shop. */
const CONCURRENCY = 4;
/** A run hands the worker back after this long and queues the next. */
const RUN_MS = 20_000;
/** The longest a sender job waits before running: a later message is found by the sweep. */
export const MAX_SEND_DELAY_MS = 15_000;
const MAX_ATTEMPTS = 10;
const MINUTE_MS = 60_000;

/** The worker's alert emails: an email many customers get is rendered once and filled in for each. */
const emails = createAlertEmailRenderer();

const customerGid = (id: string) => `gid://shopify/Customer/${id}`;
const customerIdOf = (gid: string | undefined) => /^gid:\/\/shopify\/Customer\/(\d+)$/.exec(gid ?? "")?.[1];

/** The wait before attempt `attempts + 1`: ALERT_RETRY_BASE_MS (a minute), doubling, at most 60 times it (an hour). */
function retryDelayMs(attempts: number) {
  const base = getEnv().ALERT_RETRY_BASE_MS;
  return Math.min(base * 2 ** Math.max(0, attempts - 1), 60 * base);
}

interface Recipient {
  email: string | null;
  firstName: string | null;
  locale: string | null;
  subscribed: boolean;
}

export interface SendRun {
  sent: number;
  skipped: number;
  failed: number;
  retried: number;
  /** Held for the plan's allowance: due again next month or after an upgrade. */
  held: number;
  flowSent: number;
  flowFailed: number;
  /** The shop's pace was reached: the rest waits for the next minute. */
  paced?: boolean;
  skippedRun?: string;
}

/** Queues the shop's sender to run at `dueAt` (at most MAX_SEND_DELAY_MS ahead: the sweep finds later ones). */
export async function wakeAlertSender(shopId: string, dueAt: Date | null, connection?: Redis): Promise<void> {
  const delay = Math.min(Math.max(0, (dueAt?.getTime() ?? Date.now()) - Date.now()), MAX_SEND_DELAY_MS);
  try {
    await enqueueAlertSend(shopId, delay, connection);
  } catch (error) {
    logger.warn({ err: error, shopId }, "alert sender not queued; the sweep will queue it");
  }
}

/** The sweep: shops with messages due (their sender's job lost, or later than a job waits). */
export async function queueDueAlertSenders(connection?: Redis): Promise<string[]> {
  const shopIds = await findShopsWithDueMessages(database(), { now: new Date(), limit: 1_000 });
  for (const shopId of shopIds) await enqueueAlertSend(shopId, 0, connection);
  return shopIds;
}

export async function runAlertSender({ shopId, connection }: { shopId: string; connection?: Redis }): Promise<SendRun> {
  const run: SendRun = { sent: 0, skipped: 0, failed: 0, retried: 0, held: 0, flowSent: 0, flowFailed: 0 };
  const shop = await findShopById(database(), shopId);
  if (!shop || shop.uninstalledAt) return { ...run, skippedRun: shop ? "uninstalled" : "no such shop" };
  const settings = readAlertSettings(shop.alertSettings);
  const { ALERT_SEND_LEASE_MS } = getEnv();
  const started = Date.now();
  // Flow triggers first: they are not paced by the email rate, and a workflow may be waiting on them.
  for (let round = 0; round < 20; round += 1) {
    const flow = await sendFlowTriggers(shop);
    run.flowSent += flow.sent;
    run.flowFailed += flow.failed;
    if (!flow.more || Date.now() - started > RUN_MS / 2) break;
  }

  const sending = new Sending();
  try {
    while (Date.now() - started < RUN_MS && !sending.failed) {
      // The next batch is claimed and prepared while the last one's emails are still being sent, so the
      // connections do not wait on the database and the platform between batches.
      await sending.untilFewerWaitingThan(BATCH / 2);
      const now = new Date();
      if (!emailReady(settings)) {
        // The channel was switched off after these were owed: they end unsent.
        const claimed = await claimDueMessages(database(), shopId, { now, limit: 500, leaseMs: ALERT_SEND_LEASE_MS });
        for (const message of claimed) {
          await finishMessage(database(), shopId, message.id, {
            state: "skipped",
            at: now,
            error: "email alerts are off",
          });
        }
        run.skipped += claimed.length;
        if (claimed.length === 0) return run;
        continue;
      }
      // Messages being sent count against the pace as well as those sent within the minute.
      const budget =
        settings.email.ratePerMinute - (await countSentSince(database(), shopId, new Date(now.getTime() - MINUTE_MS)));
      if (budget <= 0) {
        run.paced = true;
        await sending.drained();
        await wakeAlertSender(
          shopId,
          new Date(Date.now() + Math.ceil(MINUTE_MS / settings.email.ratePerMinute)),
          connection,
        );
        return run;
      }
      const claimed = await claimDueMessages(database(), shopId, {
        now,
        limit: Math.min(BATCH, budget),
        leaseMs: ALERT_SEND_LEASE_MS,
      });
      if (claimed.length === 0) {
        if (sending.idle) {
          const next = await nextDueAt(database(), shopId);
          if (next && next.getTime() - Date.now() <= MAX_SEND_DELAY_MS) await wakeAlertSender(shopId, next, connection);
          return run;
        }
        // Sends still running may end in a retry that is due again within this run.
        await sending.drained();
        continue;
      }
      const send = await prepareBatch({ shop, settings, claimed, run });
      for (const message of claimed) sending.add(() => send(message));
    }
  } finally {
    await sending.drained();
  }
  if (sending.failed) throw sending.failed.error;
  await wakeAlertSender(shopId, null, connection);
  return run;
}

/**
 * The emails of a run in flight: CONCURRENCY at a time, the rest waiting their turn. The first send that
 * throws (not a refusal or a transient failure, which are recorded: the database gone, say) stops the run
 * from claiming more, and the run throws it once the others have ended.
 */
class Sending {
  private readonly limit = pLimit(CONCURRENCY);
  private readonly running = new Set<Promise<void>>();
  failed: { error: unknown } | null = null;

  add(send: () => Promise<unknown>) {
    const task: Promise<void> = this.limit(send).then(
      () => undefined,
      (error: unknown) => {
        this.failed ??= { error };
      },
    );
    this.running.add(task);
    void task.finally(() => this.running.delete(task));
  }

  get idle() {
    return this.running.size === 0;
  }

  async untilFewerWaitingThan(count: number) {
    while (this.limit.pendingCount >= count && !this.failed) await Promise.race(this.running);
  }

  async drained() {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}

/**
 * Reads what the claimed messages need (their alerts still saved, suppressions, the recipients from the
 * platform, the products, the transport) and returns the function that sends one of them.
 */
async function prepareBatch({
  shop,
  settings,
  claimed,
  run,
}: {
  shop: { id: string; domain: string; smtpPasswordSealed: string | null };
  settings: AlertSettings;
  claimed: AlertMessageRow[];
  run: SendRun;
}): Promise<(message: AlertMessageRow) => Promise<unknown>> {
  const shopId = shop.id;
  const now = new Date();
  const alerts = await findAlertsOfMessages(
    database(),
    shopId,
    claimed.map((message) => message.id),
  );
  const saved = await findStillSaved(database(), shopId, alerts);
  const byMessage = new Map<string, AlertRow[]>();
  for (const alert of alerts) {
    if (!saved.has(`${alert.customerId}\u0000${alert.productId}`)) continue;
    const carried = byMessage.get(alert.messageId!);
    if (carried) carried.push(alert);
    else byMessage.set(alert.messageId!, [alert]);
  }
  const customers = [...new Set(claimed.map((message) => message.customerId))];
  const suppressed = await findSuppressed(database(), shopId, customers);

  let recipients: Map<string, Recipient>;
  try {
    recipients = await readRecipients(
      shop.domain,
      customers.filter((id) => !suppressed.has(id)),
    );
  } catch (error) {
    if (!isDomainError(error, "platform_unavailable") && !isDomainError(error, "platform_not_connected")) throw error;
    // The platform cannot say who they are now: every claimed message waits and is tried again.
    const detail = `the platform did not answer: ${(error as Error).message}`;
    return (message) => giveBack(shopId, message, detail, run);
  }
  const transport = await smtpTransport(shopId, settings, openSmtpPassword(shopId, shop.smtpPasswordSealed));
  const products = await productDetails(shopId, alerts);
  const takeUnit = await allowanceTaker(shopId, "alert_emails");
  return async (message) => {
    // At most MAX_DIGEST_ITEMS, as the evaluation attaches them: a message carrying more (rows written
    // otherwise) still sends a readable email, with its first alerts.
    const carried = (byMessage.get(message.id) ?? []).slice(0, MAX_DIGEST_ITEMS);
    const skip = (reason: string) => {
      run.skipped += 1;
      return finishMessage(database(), shopId, message.id, { state: "skipped", at: now, error: reason });
    };
    if (carried.length === 0) return skip("the products were removed from the wishlist");
    const suppression = suppressed.get(message.customerId);
    if (suppression) return skip(suppression === "unsubscribed" ? "unsubscribed" : "address refused earlier");
    const recipient = recipients.get(message.customerId);
    if (!recipient) return skip("no such customer in the shop");
    if (!recipient.email) return skip("no email address");
    if (settings.email.audience === "subscribed" && !recipient.subscribed) return skip("no email marketing consent");
    if ("refused" in transport) return giveBack(shopId, message, transport.refused, run);
    const unit = await takeUnit();
    if (!unit.taken) {
      run.held += 1;
      return holdMessage(database(), shopId, message.id, { dueAt: unit.resetsAt, note: ALLOWANCE_HELD_NOTE });
    }
    // Not sent after all (a failure below): the unit is given back.
    const unsent = () => returnUnit(shopId, "alert_emails", unit.period);
    const locale = recipient.locale ?? "en";
    const unsubscribe = unsubscribeUrl({ shopId, customerId: message.customerId, locale });
    let email: RenderedAlertEmail;
    try {
      email = await emails.render({
        locale,
        shopName: settings.email.fromName || shop.domain.replace(/\.myshopify\.com$/, ""),
        shopUrl: `https://${shop.domain}`,
        customerFirstName: recipient.firstName,
        unsubscribeUrl: unsubscribe,
        items: carried.map((alert) => emailItem(shop, message, alert, products)),
      });
    } catch (error) {
      // Tried again, then failed after MAX_ATTEMPTS: never left claimed to break every run that takes it.
      logger.error({ err: error, shopId, messageId: message.id }, "alert email not rendered");
      await unsent();
      return giveBack(shopId, message, `the email could not be rendered: ${(error as Error).message}`, run);
    }
    try {
      await transport.sendMail({
        from: { name: settings.email.fromName, address: settings.email.fromAddress },
        ...(settings.email.replyTo ? { replyTo: settings.email.replyTo } : {}),
        to: recipient.email,
        subject: email.subject,
        html: email.html,
        text: email.text,
        messageId: `<${message.id}@${new URL(unsubscribe).hostname}>`,
        list: { unsubscribe: { url: unsubscribe, comment: "Unsubscribe from wishlist alerts" } },
        headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
      });
      run.sent += 1;
      await finishMessage(database(), shopId, message.id, { state: "sent", at: new Date() });
    } catch (error) {
      const { refused, detail } = classifySmtpFailure(error);
      await unsent();
      if (!refused) return giveBack(shopId, message, detail, run);
      run.failed += 1;
      await transaction(async (tx) => {
        // Only while the message is still there: a customers/redact that ran meanwhile erased it, and
        // nothing of the customer may be written back after it.
        if (await finishMessage(tx, shopId, message.id, { state: "failed", at: new Date(), error: detail })) {
          await insertSuppression(tx, shopId, {
            customerId: message.customerId,
            reason: "bounced",
            detail,
            at: new Date(),
          });
        }
      });
      logger.info({ shopId, messageId: message.id, detail }, "alert email refused: the address is suppressed");
    }
  };
}

/** A transient failure: the message waits and is tried again, unless it has had its attempts. */
async function giveBack(shopId: string, message: AlertMessageRow, detail: string, run: SendRun) {
  if (message.attempts >= MAX_ATTEMPTS) {
    run.failed += 1;
    await finishMessage(database(), shopId, message.id, { state: "failed", at: new Date(), error: detail });
    return;
  }
  run.retried += 1;
  await retryMessage(database(), shopId, message.id, {
    dueAt: new Date(Date.now() + retryDelayMs(message.attempts)),
    error: detail,
  });
}

/** Each customer's address, name, language and consent, from the platform (250 per query). */
async function readRecipients(shopDomain: string, customerIds: string[]): Promise<Map<string, Recipient>> {
  const found = new Map<string, Recipient>();
  if (customerIds.length === 0) return found;
  const caller = createAdminCaller({ shopDomain, maxWaitMs: 30_000 });
  for (let start = 0; start < customerIds.length; start += NODES_PER_QUERY) {
    const ids = customerIds.slice(start, start + NODES_PER_QUERY);
    const { nodes } = await caller.ask("alert recipients", RECIPIENTS, { ids: ids.map(customerGid) });
    for (const node of nodes) {
      if (!node || !("defaultEmailAddress" in node)) continue;
      const customerId = customerIdOf(node.id);
      if (!customerId) continue;
      found.set(customerId, {
        email: node.defaultEmailAddress?.emailAddress ?? null,
        firstName: node.firstName ?? null,
        locale: node.locale ?? null,
        subscribed: node.defaultEmailAddress?.marketingState === "SUBSCRIBED",
      });
    }
  }
  return found;
}

interface ProductDetail {
  title: string;
  handle: string;
  imageUrl: string | null;
  variantTitles: Map<string, string>;
}

/** Titles, handles and images of the alerts' products: the items' catalogue titles and the last reading. */
async function productDetails(shopId: string, alerts: AlertRow[]): Promise<Map<string, ProductDetail>> {
  const details = new Map<string, ProductDetail>();
  const items = await findItemsByIds(database(), shopId, [...new Set(alerts.map((alert) => alert.itemId))]);
  const variants = await findCatalogueVariants(database(), shopId, [
    ...new Set(alerts.map((alert) => alert.productId)),
  ]);
  for (const item of items) {
    if (!details.has(item.productId)) {
      details.set(item.productId, {
        title: item.titleSnapshot,
        handle: item.handle,
        imageUrl: null,
        variantTitles: new Map(),
      });
    }
  }
  for (const variant of variants) {
    const detail = details.get(variant.productId);
    if (!detail) continue;
    detail.imageUrl ??= variant.imageUrl;
    detail.variantTitles.set(variant.variantId, variant.title);
  }
  return details;
}

function emailItem(
  shop: { id: string; domain: string },
  message: AlertMessageRow,
  alert: AlertRow,
  products: Map<string, ProductDetail>,
): AlertEmailItem {
  const product = products.get(alert.productId);
  const handle = product?.handle ?? "";
  return {
    kind: alert.kind as AlertKind,
    title: product?.title || handle,
    variantTitle: alert.variantId ? (product?.variantTitles.get(alert.variantId) ?? null) : null,
    imageUrl: product?.imageUrl ?? null,
    productUrl: clickUrl({
      shopDomain: shop.domain,
      shopId: shop.id,
      messageId: message.id,
      alertId: alert.id,
      handle,
    }),
    currency: alert.currency,
    oldPriceMinor: alert.oldPriceMinor,
    newPriceMinor: alert.newPriceMinor,
    quantity: alert.kind === "low_stock" ? alert.quantity : null,
  };
}
