/**
 * Keeping `Shop.plan` true to the platform's app subscriptions (docs/decisions/062-plans-and-billing.md). The
 * platform's `app_subscriptions/update` webhook is the source of truth; the admin's return from the
 * confirmation page applies what the platform answers then too, so the merchant sees the new plan at once.
 *
 * A subscription's status changes the shop only when it is about the subscription that gives the plan, or
 * makes a new one active: the old subscription a plan change replaced is cancelled after the new one is
 * active, and a declined request for another plan leaves the current one alone, in whatever order the
 * platform's webhooks arrive.
 */
import type { Tx } from "~/data/database.server";
import { database, transaction } from "~/data/database.server";
import { findPlanColumns, updatePlanColumns, endPlanOfDomain } from "~/data/plan-rows.server";
import { findShopForAuth } from "~/data/shop-rows.server";
import { releaseHeldMessages } from "~/data/alert-rows.server";
import { logger } from "~/logger.server";
import {
  processPlatformWebhookOnce,
  type PlatformWebhookOutcome,
  type PlatformWebhookReceipt,
} from "~/services/shops/platform-webhook-ledger.server";
import { wakeAlertSender } from "~/services/alerts/sender.server";
import { planInForce } from "./entitlements.server";
import { ALLOWANCE_HELD_NOTE, planOfSubscriptionName, PLANS, type PlanId } from "./plans";

/** How long a paid plan holds after its payment is declined, for the merchant to update their billing. */
export const GRACE_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

export const SUBSCRIPTION_STATUSES = [
  "PENDING",
  "ACCEPTED",
  "ACTIVE",
  "DECLINED",
  "EXPIRED",
  "FROZEN",
  "CANCELLED",
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export interface SubscriptionUpdate {
  /** gid://shopify/AppSubscription/<n> */
  subscriptionId: string;
  /** The subscription's name: a plan's name (plans.ts). */
  name: string;
  status: SubscriptionStatus;
  /** When the platform says it changed (`updated_at`); null when it does not say. */
  signedAt: Date | null;
}

type Applied = "processed" | "stale";

/** What a subscription's new status does to the shop, in `tx`; "stale" when it does nothing. */
async function apply(tx: Tx, shopId: string, update: SubscriptionUpdate, now: Date): Promise<Applied> {
  const columns = await findPlanColumns(tx, shopId, { lock: true });
  if (!columns) return "stale";
  if (update.signedAt && columns.subscriptionSignedAt && update.signedAt < columns.subscriptionSignedAt) return "stale";
  const current = columns.subscriptionId === update.subscriptionId;
  const signed = update.signedAt ? { subscriptionSignedAt: update.signedAt } : {};
  const planId: PlanId | null = planOfSubscriptionName(update.name);
  switch (update.status) {
    case "ACTIVE": {
      if (!planId) {
        logger.warn({ shopId, name: update.name }, "app subscription names no plan of ours: ignored");
        return "stale";
      }
      // A payment made within the grace changes nothing the merchant sees: the plan stayed in force. After the
      // grace FREE's terms applied, so the paid plan takes effect again now.
      const graceOver = columns.graceEndsAt !== null && now >= columns.graceEndsAt;
      const changed = columns.plan !== planId || !current || graceOver;
      await updatePlanColumns(tx, shopId, {
        plan: planId,
        ...(changed ? { planUpdatedAt: now } : {}),
        subscriptionId: update.subscriptionId,
        subscriptionStatus: "ACTIVE",
        graceEndsAt: null,
        ...signed,
      });
      return "processed";
    }
    case "FROZEN": {
      if (!current) return "stale";
      await updatePlanColumns(tx, shopId, {
        subscriptionStatus: "FROZEN",
        // A second FROZEN keeps the first's end: the grace does not restart.
        graceEndsAt: columns.graceEndsAt ?? new Date(now.getTime() + GRACE_DAYS * DAY_MS),
        ...signed,
      });
      return "processed";
    }
    case "CANCELLED":
    case "DECLINED":
    case "EXPIRED": {
      if (!current) {
        // The cancellation of a subscription the shop does not hold, while it holds none: the Plan page applied
        // billing.cancel's answer first, or this overtook the subscription's ACTIVE. Its time is kept, so that
        // ACTIVE, signed before it and arriving late, is stale rather than a plan the platform no longer bills.
        // Not a DECLINED or EXPIRED one: that subscription was never active, so no ACTIVE of it can follow.
        if (update.status === "CANCELLED" && columns.subscriptionId === null && update.signedAt) {
          await updatePlanColumns(tx, shopId, signed);
        }
        return "stale";
      }
      await updatePlanColumns(tx, shopId, {
        plan: "FREE",
        planUpdatedAt: now,
        subscriptionId: null,
        subscriptionStatus: null,
        graceEndsAt: null,
        ...signed,
      });
      return "processed";
    }
    default:
      // PENDING, ACCEPTED: the merchant has not approved yet, or the platform is about to activate it.
      return "stale";
  }
}

/** After a change: alert emails held for the allowance are due again if the plan in force now has room. */
async function afterChange(shopId: string, before: PlanId): Promise<void> {
  const columns = await findPlanColumns(database(), shopId);
  if (!columns) return;
  const after = planInForce(columns).plan;
  if (after.allowances.alert_emails <= PLANS[before].allowances.alert_emails) return;
  const released = await releaseHeldMessages(database(), shopId, ALLOWANCE_HELD_NOTE, new Date());
  if (released > 0) {
    logger.info({ shopId, released, plan: after.id }, "held alert emails due again after a plan change");
    await wakeAlertSender(shopId, null);
  }
}

async function planBefore(shopId: string): Promise<PlanId> {
  const columns = await findPlanColumns(database(), shopId);
  return columns ? planInForce(columns).plan.id : "FREE";
}

/** The `app_subscriptions/update` webhook, processed once (the platform webhook ledger). */
export async function receiveSubscriptionUpdate(
  receipt: PlatformWebhookReceipt,
  update: SubscriptionUpdate,
): Promise<PlatformWebhookOutcome | "unknown_shop"> {
  const shop = await findShopForAuth(database(), receipt.shopDomain);
  if (!shop) return "unknown_shop";
  const before = await planBefore(shop.id);
  const outcome = await processPlatformWebhookOnce(receipt, (tx) => apply(tx, shop.id, update, new Date()));
  if (outcome === "processed") await afterChange(shop.id, before);
  return outcome;
}

/**
 * What the platform answered the admin about the shop's subscriptions: the active ones when the merchant
 * comes back from the confirmation page (the library's `billing.check`), or the one a downgrade to FREE
 * cancelled (`billing.cancel`). Applied at once, so the merchant sees the plan they chose; the webhook that
 * follows then changes nothing.
 */
export async function applyPlatformAnswer(
  shopId: string,
  subscriptions: ReadonlyArray<{ id: string; name: string; status: string }>,
): Promise<void> {
  const before = await planBefore(shopId);
  const now = new Date();
  await transaction(async (tx) => {
    for (const subscription of subscriptions) {
      const status = SUBSCRIPTION_STATUSES.find((known) => known === subscription.status);
      if (!status) continue;
      await apply(
        tx,
        shopId,
        { subscriptionId: subscription.id, name: subscription.name, status, signedAt: null },
        now,
      );
    }
  });
  await afterChange(shopId, before);
}

/** app/uninstalled, in its transaction: the platform cancels the app's charges with the uninstall. */
export async function endPlanAtUninstall(tx: Tx, domain: string, at: Date): Promise<void> {
  await endPlanOfDomain(tx, domain, at);
}
