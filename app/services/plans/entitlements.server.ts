/**
 * The one place a shop's plan is read and enforced (docs/decisions/062-plans-and-billing.md): what plan is in
 * force, whether it has a feature, and the monthly allowances. Every gated feature asks here; no route or job
 * reads `Shop.plan` itself.
 *
 * The plan in force is the stored one, except after a declined payment's grace period: the platform freezes a
 * subscription whose payment is declined (FROZEN), the paid plan holds until `graceEndsAt`, and FREE's terms
 * apply after it, with no job needed to switch.
 */
import {
  ensureAllowanceCounter,
  findPlanColumns,
  findPlanUsage,
  markAllowanceReached,
  returnAllowanceUnit,
  takeAllowanceUnit,
  type PlanColumns,
} from "~/data/plan-rows.server";
import { database, transaction } from "~/data/database.server";
import { DomainError } from "~/lib/domain-error";
import { logger } from "~/logger.server";
import { countHeldMessages } from "~/data/alert-rows.server";
import { recordEvent } from "~/services/events/outbox.server";
import {
  ALLOWANCE_HELD_NOTE,
  ALLOWANCES,
  lowestPlanWith,
  periodEnd,
  periodOf,
  planOf,
  PLANS,
  type Allowance,
  type Feature,
  type Plan,
} from "./plans";

export type PlanState = "free" | "active" | "grace";

export interface ShopPlan {
  plan: Plan;
  /** When the plan in force took effect. */
  updatedAt: Date;
  state: PlanState;
  /** While in grace: when FREE's terms apply unless the payment is made. */
  graceEndsAt: Date | null;
  subscriptionId: string | null;
}

/** The plan in force at `now`, from the shop's plan columns. */
export function planInForce(columns: PlanColumns, now = new Date()): ShopPlan {
  if (columns.graceEndsAt && now >= columns.graceEndsAt) {
    return { plan: PLANS.FREE, updatedAt: columns.graceEndsAt, state: "free", graceEndsAt: null, subscriptionId: null };
  }
  const plan = planOf(columns.plan);
  return {
    plan,
    updatedAt: columns.planUpdatedAt,
    state: plan.id === "FREE" ? "free" : columns.graceEndsAt ? "grace" : "active",
    graceEndsAt: columns.graceEndsAt,
    subscriptionId: columns.subscriptionId,
  };
}

export async function shopPlan(shopId: string, now = new Date()): Promise<ShopPlan> {
  const columns = await findPlanColumns(database(), shopId);
  if (!columns) throw new DomainError("not_found", "The shop does not exist.");
  return planInForce(columns, now);
}

export async function hasFeature(shopId: string, feature: Feature): Promise<boolean> {
  return (await shopPlan(shopId)).plan.features[feature];
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The free trial days a new subscription to `plan` gets: one trial per shop, so what is left of the trial that
 * started with the shop's first paid subscription (none after it), or the plan's whole trial before any.
 */
export async function trialDaysLeft(shopId: string, plan: Plan, now = new Date()): Promise<number> {
  const columns = await findPlanColumns(database(), shopId);
  if (!columns?.trialStartedAt) return plan.trialDays;
  const used = Math.floor((now.getTime() - columns.trialStartedAt.getTime()) / DAY_MS);
  return Math.max(0, plan.trialDays - used);
}

/** Throws `plan_required`, naming the cheapest plan with the feature, unless the shop's plan has it. */
export async function requireFeature(shopId: string, feature: Feature): Promise<void> {
  const { plan } = await shopPlan(shopId);
  if (plan.features[feature]) return;
  const needed = lowestPlanWith(feature);
  throw new DomainError(
    "plan_required",
    `This needs the ${needed.name} plan or higher; the shop is on the ${plan.name} plan. The merchant changes ` +
      "plans on the app's Plan page.",
    { details: { plan: needed.id, currentPlan: plan.id, feature } },
  );
}

export interface AllowanceUsage {
  allowance: Allowance;
  used: number;
  limit: number;
  /** When the allowance was found used up this period; null while it has room. */
  reachedAt: Date | null;
  period: string;
  resetsAt: Date;
}

/** Each allowance of the shop's plan and what the current period used of it. */
export async function allowanceUsage(shopId: string, now = new Date()): Promise<AllowanceUsage[]> {
  const [{ plan }, rows] = await Promise.all([shopPlan(shopId, now), findPlanUsage(database(), shopId, periodOf(now))]);
  return ALLOWANCES.map((allowance) => {
    const row = rows.find((candidate) => candidate.allowance === allowance);
    return {
      allowance,
      used: row?.used ?? 0,
      limit: plan.allowances[allowance],
      reachedAt: row?.reachedAt ? new Date(row.reachedAt) : null,
      period: periodOf(now),
      resetsAt: periodEnd(now),
    };
  });
}

/** Alert emails waiting for the allowance: due next month, or at once after an upgrade. */
export function countHeldAlertEmails(shopId: string): Promise<number> {
  return countHeldMessages(database(), shopId, ALLOWANCE_HELD_NOTE);
}

export type Unit = { taken: true; period: string } | { taken: false; resetsAt: Date };

/**
 * A taker of an allowance's units for a run of work (a batch of alert emails about to be sent): the plan is
 * read once, each `take()` takes one unit. The count never passes the plan's limit, however many takers run at
 * once (one conditional update each). Over it, the plan is read again (an upgrade applied while the batch is
 * sent has room for it), then the first taker of the period tells the merchant: the `plan.allowance_reached`
 * event, which the shop's webhook endpoints get, and the mark the admin's banners read.
 */
export async function allowanceTaker(shopId: string, allowance: Allowance, now = new Date()) {
  let { plan } = await shopPlan(shopId, now);
  const period = periodOf(now);
  const key = { shopId, period, allowance };
  await ensureAllowanceCounter(database(), key);
  return async function take(): Promise<Unit> {
    if (await takeAllowanceUnit(database(), key, plan.allowances[allowance])) return { taken: true, period };
    // The upgrade's release of held emails ran before this one would be held: without this reading, it would
    // wait for next month on a plan with room.
    const latest = (await shopPlan(shopId, now)).plan;
    const grew = latest.allowances[allowance] > plan.allowances[allowance];
    plan = latest;
    if (grew && (await takeAllowanceUnit(database(), key, plan.allowances[allowance]))) return { taken: true, period };
    const limit = plan.allowances[allowance];
    const at = new Date();
    const resetsAt = periodEnd(now);
    await transaction(async (tx) => {
      if (!(await markAllowanceReached(tx, key, at))) return;
      await recordEvent(tx, {
        shopId,
        type: "plan.allowance_reached",
        data: { allowance, limit, plan: plan.id, period, resetsAt: resetsAt.toISOString() },
        createdAt: at,
      });
      logger.info({ shopId, allowance, limit, plan: plan.id, period }, "plan allowance reached");
    });
    return { taken: false, resetsAt };
  };
}

/** Gives back a unit taken for something that then did not happen (the email was not sent). */
export async function returnUnit(shopId: string, allowance: Allowance, period: string): Promise<void> {
  await returnAllowanceUnit(database(), { shopId, period, allowance });
}

/**
 * What the admin tells the merchant beside the alerts while this month's alert emails are used up: the plan,
 * its allowance, the emails waiting and when they go; null while there is room.
 */
export async function allowanceNotice(shopId: string, now = new Date()) {
  const usage = (await allowanceUsage(shopId, now)).find((row) => row.allowance === "alert_emails")!;
  // Used up under the plan in force now: after an upgrade there is room again.
  if (usage.used < usage.limit) return null;
  const { plan } = await shopPlan(shopId, now);
  return {
    plan: plan.name,
    limit: usage.limit,
    held: await countHeldAlertEmails(shopId),
    resetsAt: usage.resetsAt.toISOString(),
  };
}
