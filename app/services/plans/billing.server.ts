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
import { findPlanColumns, updatePlanColumns } from "~/data/plan-rows.server";
import { findShopForAuth } from "~/data/shop-rows.server";
import { releaseHeldMessages } from "~/data/alert-rows.server";
import { isDomainError } from "~/lib/domain-error";
import { logger } from "~/logger.server";
import { createAdminCaller } from "~/services/platform/admin-api.server";
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
  /**
   * The platform itself said, when asked with the shop's own token, that this subscription is in this state
   * now: applied whatever the order the webhooks came in.
   */
  verified?: boolean;
  /** When the subscription was created (its trial starts then); null when not said. */
  startedAt?: Date | null;
}

const SUBSCRIPTION_NOW = `#graphql
  query WishlistSubscriptionNow($ids: [ID!]!) {
    nodes(ids: $ids) { ... on AppSubscription { id name status } }
  }`;

/**
 * The subscription as the platform says it is now, asked with the shop's own offline token: null when the
 * platform knows no such subscription of this app for this shop. A webhook body ties itself to no shop (the
 * shop is the unsigned header's), so an ACTIVE is believed only once the shop's own platform confirms it.
 */
async function subscriptionNow(shopDomain: string, subscriptionId: string) {
  const caller = createAdminCaller({ shopDomain, maxWaitMs: 15_000 });
  const { nodes } = await caller.ask("app subscription now", SUBSCRIPTION_NOW, { ids: [subscriptionId] });
  const [node] = nodes;
  return node && "status" in node ? { id: node.id, name: node.name, status: node.status as string } : null;
}

type Applied = "processed" | "stale";

/** What a subscription's new status does to the shop, in `tx`; "stale" when it does nothing. */
async function apply(tx: Tx, shopId: string, update: SubscriptionUpdate, now: Date): Promise<Applied> {
  const columns = await findPlanColumns(tx, shopId, { lock: true });
  if (!columns) return "stale";
  const older = update.signedAt && columns.subscriptionSignedAt && update.signedAt < columns.subscriptionSignedAt;
  if (older && !update.verified) return "stale";
  const current = columns.subscriptionId === update.subscriptionId;
  // The latest time applied is kept (a verified update may be signed before it).
  const signed = update.signedAt && !older ? { subscriptionSignedAt: update.signedAt } : {};
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
      // One trial per shop: the first paid subscription's start is kept, whatever plans follow.
      const startedAt = update.startedAt ?? now;
      await updatePlanColumns(tx, shopId, {
        plan: planId,
        ...(changed ? { planUpdatedAt: now } : {}),
        trialStartedAt:
          columns.trialStartedAt && columns.trialStartedAt <= startedAt ? columns.trialStartedAt : startedAt,
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
  let checked = update;
  if (update.status === "ACTIVE") {
    // Believed only as the platform says it now, for this shop: a late ACTIVE of a subscription since
    // cancelled, or one of another shop's (a captured body under this shop's header), changes nothing.
    let now: Awaited<ReturnType<typeof subscriptionNow>>;
    try {
      now = await subscriptionNow(shop.domain, update.subscriptionId);
    } catch (error) {
      // No working access to the shop's platform (uninstalled, the token refused): nothing can confirm it.
      // Unreachable for now (platform_unavailable) is thrown: the platform sends the webhook again.
      if (!isDomainError(error, "platform_not_connected")) throw error;
      now = null;
    }
    if (now?.status !== "ACTIVE") {
      logger.info(
        { shopId: shop.id, subscriptionId: update.subscriptionId, platformSays: now?.status ?? "no such subscription" },
        "app subscription ACTIVE not confirmed by the platform: ignored",
      );
      return processPlatformWebhookOnce(receipt, async () => "stale");
    }
    checked = { ...update, name: now.name, verified: true };
  }
  const before = await planBefore(shop.id);
  const outcome = await processPlatformWebhookOnce(receipt, (tx) => apply(tx, shop.id, checked, new Date()));
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
  subscriptions: ReadonlyArray<{ id: string; name: string; status: string; createdAt?: string }>,
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
        // The platform's answer to the admin, asked with the shop's own token.
        {
          subscriptionId: subscription.id,
          name: subscription.name,
          status,
          signedAt: null,
          verified: true,
          startedAt:
            subscription.createdAt && Date.parse(subscription.createdAt) ? new Date(subscription.createdAt) : null,
        },
        now,
      );
    }
  });
  await afterChange(shopId, before);
}
