/**
 * The plans, in one place (docs/decisions/062-plans-and-billing.md): what each costs, its trial, its monthly
 * allowances and the features it adds. The free plan keeps every shopper feature, the API, webhooks and the
 * revenue reports: what a plan adds is alert emails beyond the free allowance and the demand insights. Over an
 * allowance nothing shopper-facing stops; the extra alert emails wait for the next month or an upgrade.
 *
 * The billing name of a paid plan is the name its app subscription carries on the platform
 * (`appSubscriptionCreate(name:)`), which is how the subscription webhook names the plan back: never renamed.
 */
export const PLAN_IDS = ["FREE", "GROWTH", "PLUS"] as const;
export type PlanId = (typeof PLAN_IDS)[number];

/** What a plan may lack, each asked by the entitlement service (entitlements.server.ts). */
export const FEATURES = ["demandInsights"] as const;
export type Feature = (typeof FEATURES)[number];

/** What a plan counts per calendar month (UTC). */
export const ALLOWANCES = ["alert_emails"] as const;
export type Allowance = (typeof ALLOWANCES)[number];

export interface Plan {
  id: PlanId;
  name: string;
  /** USD per 30 days; 0: free, no subscription. */
  monthlyPrice: number;
  trialDays: number;
  allowances: Record<Allowance, number>;
  features: Record<Feature, boolean>;
}

export const PLANS: Record<PlanId, Plan> = {
  FREE: {
    id: "FREE",
    name: "Free",
    monthlyPrice: 0,
    trialDays: 0,
    allowances: { alert_emails: 200 },
    features: { demandInsights: false },
  },
  GROWTH: {
    id: "GROWTH",
    name: "Growth",
    monthlyPrice: 9.99,
    trialDays: 14,
    allowances: { alert_emails: 5_000 },
    features: { demandInsights: true },
  },
  PLUS: {
    id: "PLUS",
    name: "Plus",
    monthlyPrice: 29.99,
    trialDays: 14,
    allowances: { alert_emails: 50_000 },
    features: { demandInsights: true },
  },
};

/** The plans the platform bills, cheapest first. */
export const PAID_PLANS = PLAN_IDS.filter((id) => id !== "FREE").map((id) => PLANS[id]);

const ORDER: Record<PlanId, number> = { FREE: 0, GROWTH: 1, PLUS: 2 };

/** A stored plan value read as a plan; an unknown one (a plan retired later) is FREE's terms. */
export function planOf(id: string): Plan {
  return (PLANS as Record<string, Plan | undefined>)[id] ?? PLANS.FREE;
}

/** The plan a paid app subscription's name stands for; null for a name that is none of ours. */
export function planOfSubscriptionName(name: string): PlanId | null {
  const found = PLAN_IDS.find((id) => id !== "FREE" && PLANS[id].name === name);
  return found ?? null;
}

export const isUpgrade = (from: PlanId, to: PlanId) => ORDER[to] > ORDER[from];

/** The cheapest plan that has the feature. */
export function lowestPlanWith(feature: Feature): Plan {
  return PLAN_IDS.map((id) => PLANS[id]).find((plan) => plan.features[feature])!;
}

/** Why an alert email waits (its message's `error`, shown in the admin's log): the allowance is used this month. */
export const ALLOWANCE_HELD_NOTE = "waiting for the plan's monthly allowance of alert emails";

/** The calendar month (UTC) an allowance is counted in, `YYYY-MM`. */
export const periodOf = (at: Date) => at.toISOString().slice(0, 7);

/** When the period of `at` ends: the first instant of the next calendar month (UTC). */
export function periodEnd(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}
