/**
 * The stand-in's app billing: the recurring charges (app subscriptions) the app asks a shop for with the Admin
 * API's `appSubscriptionCreate`, what becomes of them (the merchant approves or declines one on its confirmation
 * page, a payment is declined or made, the app cancels one, the app is uninstalled), and the body of the
 * `app_subscriptions/update` webhook the platform sends on each change. stand-in/admin-graphql.ts answers the
 * API's billing fields from here; stand-in/billing-admin.ts draws the pages and sends the webhooks.
 *
 * The platform's rules kept here: a subscription starts PENDING and the merchant decides it once (ACTIVE or
 * DECLINED); a shop has one ACTIVE subscription to an app, so approving a new one cancels the one before; only
 * an ACTIVE (or FROZEN) subscription can be cancelled; a declined payment freezes it until the merchant pays.
 * Not kept: the two days after which a PENDING charge expires, and billing cycles (no clock runs here), so every
 * replacement behaviour replaces at once, as STANDARD and APPLY_IMMEDIATELY do for a 30-day plan; usage charges,
 * discounts and one-time purchases, which the stand-in refuses rather than gets wrong. userErrors' wording is
 * the stand-in's own.
 */
import { createHash } from "node:crypto";
import type { StandInShop } from "./demo-data";
import { decimalOf, minorUnits } from "./money";
import { nextRestId } from "./orders";
import { restTime } from "./platform-webhooks";

/** The platform's `AppSubscriptionStatus` (ACCEPTED is deprecated: an approval makes a subscription ACTIVE). */
export type AppSubscriptionStatus = "PENDING" | "ACCEPTED" | "ACTIVE" | "DECLINED" | "EXPIRED" | "FROZEN" | "CANCELLED";

/** The platform's `AppPricingInterval`. */
export type AppPricingInterval = "EVERY_30_DAYS" | "ANNUAL";

export interface StandInAppSubscription {
  /** The REST id (`charge_id` on the return URL); the GraphQL id is `gid://shopify/AppSubscription/<id>`. */
  id: string;
  name: string;
  status: AppSubscriptionStatus;
  test: boolean;
  trialDays: number;
  returnUrl: string;
  replacementBehavior: string;
  /** Its one line item: a recurring price per interval (a decimal with two places, "10.00"). */
  price: { amount: string; currencyCode: string };
  interval: AppPricingInterval;
  createdAt: number;
  updatedAt: number;
  /** When the current billing period ends; null unless ACTIVE, as the platform answers. */
  currentPeriodEnd: number | null;
}

/** What `appSubscriptionCreate` takes, as the GraphQL engine hands it over. */
export interface AppSubscriptionCreateInput {
  name: string;
  returnUrl: string;
  test?: boolean | null;
  trialDays?: number | null;
  replacementBehavior?: string | null;
  lineItems: Array<{
    plan: {
      appRecurringPricingDetails?: {
        price: { amount: unknown; currencyCode: string };
        interval?: AppPricingInterval | null;
        discount?: unknown;
      } | null;
      appUsagePricingDetails?: unknown;
    };
  }>;
}

export interface BillingUserError {
  field: string[] | null;
  message: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const PERIOD_MS: Record<AppPricingInterval, number> = { EVERY_30_DAYS: 30 * DAY_MS, ANNUAL: 365 * DAY_MS };

/**
 * The shop's REST id, which the platform's bodies name it by (`gid://shopify/Shop/<id>`): the stand-in's shops
 * have none of their own, so one is made from the domain, the same at every start.
 */
export function shopRestId(shop: StandInShop): string {
  return String(Number.parseInt(createHash("sha256").update(shop.domain).digest("hex").slice(0, 10), 16));
}

export const subscriptionGid = (subscription: StandInAppSubscription) =>
  `gid://shopify/AppSubscription/${subscription.id}`;

export function subscriptionsOf(shop: StandInShop): StandInAppSubscription[] {
  shop.appSubscriptions ??= [];
  return shop.appSubscriptions;
}

/** A subscription of the shop by its REST id or its GraphQL id; undefined when the shop has none such. */
export function findSubscription(shop: StandInShop, id: string): StandInAppSubscription | undefined {
  const rest = /^gid:\/\/shopify\/AppSubscription\/(\d+)$/.exec(id)?.[1] ?? id;
  return subscriptionsOf(shop).find((subscription) => subscription.id === rest);
}

/**
 * `currentAppInstallation.activeSubscriptions`: the ones billed now. A FROZEN subscription is not billed (its
 * payment was declined), so it is not listed: the app sees no active plan until the merchant pays.
 */
export const activeSubscriptions = (shop: StandInShop) =>
  subscriptionsOf(shop).filter((subscription) => subscription.status === "ACTIVE");

/**
 * `appSubscriptionCreate`: a PENDING subscription, or the userErrors the platform answers with (nothing is
 * created then). One recurring line item, priced above zero, with a return URL the browser can be sent to.
 */
export function createSubscription(
  shop: StandInShop,
  input: AppSubscriptionCreateInput,
  at = Date.now(),
): { subscription: StandInAppSubscription } | { userErrors: BillingUserError[] } {
  const refuse = (field: string[], message: string) => ({ userErrors: [{ field, message }] });
  if (input.name.trim() === "") return refuse(["name"], "Name can't be blank");
  let returnUrl: URL | null = null;
  try {
    returnUrl = new URL(input.returnUrl);
  } catch {
    // refused below
  }
  if (!returnUrl || (returnUrl.protocol !== "https:" && returnUrl.protocol !== "http:")) {
    return refuse(["returnUrl"], "Return url is invalid");
  }
  if (input.lineItems.length === 0) return refuse(["lineItems"], "Line items can't be blank");
  if (input.lineItems.some((item) => item.plan.appUsagePricingDetails)) {
    return refuse(["lineItems"], "The platform stand-in does not support usage pricing.");
  }
  const recurring = input.lineItems.flatMap((item) =>
    item.plan.appRecurringPricingDetails ? [item.plan.appRecurringPricingDetails] : [],
  );
  if (recurring.length !== 1 || input.lineItems.length !== 1) {
    return refuse(["lineItems"], "A subscription takes one recurring pricing line item.");
  }
  const pricing = recurring[0]!;
  if (pricing.discount) return refuse(["lineItems"], "The platform stand-in does not support discounts.");
  let minor: number;
  try {
    minor = minorUnits(String(pricing.price.amount));
  } catch {
    return refuse(["lineItems", "0", "plan", "appRecurringPricingDetails", "price"], "Price is invalid");
  }
  if (minor <= 0) {
    return refuse(["lineItems", "0", "plan", "appRecurringPricingDetails", "price"], "Price must be greater than 0");
  }
  const trialDays = input.trialDays ?? 0;
  if (trialDays < 0) return refuse(["trialDays"], "Trial days must be greater than or equal to 0");
  const subscription: StandInAppSubscription = {
    id: nextRestId(),
    name: input.name,
    status: "PENDING",
    test: input.test ?? false,
    trialDays,
    returnUrl: returnUrl.href,
    replacementBehavior: input.replacementBehavior ?? "STANDARD",
    price: { amount: decimalOf(minor), currencyCode: pricing.price.currencyCode },
    interval: pricing.interval ?? "EVERY_30_DAYS",
    createdAt: at,
    updatedAt: at,
    currentPeriodEnd: null,
  };
  subscriptionsOf(shop).push(subscription);
  return { subscription };
}

function move(subscription: StandInAppSubscription, status: AppSubscriptionStatus, at: number) {
  subscription.status = status;
  subscription.updatedAt = at;
  subscription.currentPeriodEnd = status === "ACTIVE" ? at + PERIOD_MS[subscription.interval] : null;
}

const refused = (subscription: StandInAppSubscription, action: string) =>
  new Error(`Subscription ${subscription.id} is ${subscription.status.toLowerCase()}: it cannot be ${action}.`);

/**
 * The merchant's decision on the confirmation page: ACTIVE or DECLINED. Approving cancels the shop's other
 * ACTIVE or FROZEN subscription to the app (one at a time). Returns every subscription that changed, the decided
 * one last; throws when it is not PENDING any more (decided already, or cancelled).
 */
export function decideSubscription(
  shop: StandInShop,
  subscription: StandInAppSubscription,
  approve: boolean,
  at = Date.now(),
): StandInAppSubscription[] {
  if (subscription.status !== "PENDING") throw refused(subscription, approve ? "approved" : "declined");
  const replaced = approve
    ? subscriptionsOf(shop).filter(
        (other) => other !== subscription && (other.status === "ACTIVE" || other.status === "FROZEN"),
      )
    : [];
  for (const other of replaced) move(other, "CANCELLED", at);
  move(subscription, approve ? "ACTIVE" : "DECLINED", at);
  return [...replaced, subscription];
}

/** The app's `appSubscriptionCancel` (and an uninstall): an ACTIVE or FROZEN subscription becomes CANCELLED. */
export function cancelSubscription(subscription: StandInAppSubscription, at = Date.now()): void {
  if (subscription.status !== "ACTIVE" && subscription.status !== "FROZEN") throw refused(subscription, "cancelled");
  move(subscription, "CANCELLED", at);
}

/** The shop's payment for the app was declined: the platform freezes the ACTIVE subscription. */
export function freezeSubscription(subscription: StandInAppSubscription, at = Date.now()): void {
  if (subscription.status !== "ACTIVE") throw refused(subscription, "frozen");
  move(subscription, "FROZEN", at);
}

/** The merchant paid what was owed: the FROZEN subscription is ACTIVE again, for a new period from now. */
export function paySubscription(subscription: StandInAppSubscription, at = Date.now()): void {
  if (subscription.status !== "FROZEN") throw refused(subscription, "paid");
  move(subscription, "ACTIVE", at);
}

/** The subscription as the Admin API's `AppSubscription` (every field the platform library's fragment reads). */
export function subscriptionNode(subscription: StandInAppSubscription) {
  return {
    __typename: "AppSubscription",
    id: subscriptionGid(subscription),
    name: subscription.name,
    test: subscription.test,
    status: subscription.status,
    trialDays: subscription.trialDays,
    createdAt: new Date(subscription.createdAt).toISOString(),
    currentPeriodEnd:
      subscription.currentPeriodEnd === null ? null : new Date(subscription.currentPeriodEnd).toISOString(),
    returnUrl: subscription.returnUrl,
    lineItems: [
      {
        // The platform's line item ids carry the subscription's number and the line's position.
        id: `gid://shopify/AppSubscriptionLineItem/${subscription.id}?v=1&index=0`,
        plan: {
          pricingDetails: {
            __typename: "AppRecurringPricing",
            price: subscription.price,
            interval: subscription.interval,
            discount: null,
          },
        },
      },
    ],
  };
}

/** `app_subscriptions/update`: the subscription as it now is, in the platform's REST format. */
export function subscriptionUpdateBody(shop: StandInShop, subscription: StandInAppSubscription) {
  return {
    app_subscription: {
      admin_graphql_api_id: subscriptionGid(subscription),
      name: subscription.name,
      status: subscription.status,
      admin_graphql_api_shop_id: `gid://shopify/Shop/${shopRestId(shop)}`,
      created_at: restTime(subscription.createdAt),
      updated_at: restTime(subscription.updatedAt),
      currency: subscription.price.currencyCode,
      // The usage line item's cap; the stand-in's subscriptions have none.
      capped_amount: null,
    },
  };
}

/** `app/uninstalled`: the shop resource, as the platform sends it. */
export function shopBody(shop: StandInShop, at = Date.now()) {
  return {
    id: Number(shopRestId(shop)),
    name: shop.name,
    email: shop.email ?? `owner@${shop.domain}`,
    domain: shop.domain,
    myshopify_domain: shop.domain,
    currency: shop.currency ?? "USD",
    updated_at: restTime(at),
  };
}
