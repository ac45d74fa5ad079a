/**
 * Statements on a shop's plan (`Shop.plan`, its subscription columns) and on `PlanUsage`, the monthly
 * allowances' counters (docs/decisions/062-plans-and-billing.md). Scoped by the shop's id.
 */
import type { Selectable } from "kysely";
import { engine, type DB, type Queryable } from "./database.server";

export type PlanUsageRow = Selectable<DB["PlanUsage"]>;

export interface PlanColumns {
  plan: string;
  planUpdatedAt: Date;
  subscriptionId: string | null;
  subscriptionStatus: string | null;
  subscriptionSignedAt: Date | null;
  graceEndsAt: Date | null;
  trialStartedAt: Date | null;
}

/**
 * The shop's plan columns; with `lock`, held until the transaction ends (PostgreSQL `FOR NO KEY UPDATE`, as
 * findShopById's; SQLite's writers are serialised already), so two subscription updates applied at once (a
 * plan change's ACTIVE and CANCELLED, sent together) each decide from what the other wrote.
 */
export function findPlanColumns(
  q: Queryable,
  shopId: string,
  { lock = false }: { lock?: boolean } = {},
): Promise<PlanColumns | undefined> {
  return q
    .selectFrom("Shop")
    .select([
      "plan",
      "planUpdatedAt",
      "subscriptionId",
      "subscriptionStatus",
      "subscriptionSignedAt",
      "graceEndsAt",
      "trialStartedAt",
    ])
    .where("id", "=", shopId)
    .$if(lock && engine() === "postgres", (query) => query.forNoKeyUpdate())
    .executeTakeFirst();
}

/** Writes the shop's plan columns; with `unlessSignedAfter`, only if no later signed update was applied. */
export async function updatePlanColumns(
  q: Queryable,
  shopId: string,
  columns: Partial<PlanColumns>,
  unlessSignedAfter?: Date,
): Promise<boolean> {
  let update = q.updateTable("Shop").set(columns).where("id", "=", shopId);
  if (unlessSignedAfter) {
    update = update.where((eb) =>
      eb.or([eb("subscriptionSignedAt", "is", null), eb("subscriptionSignedAt", "<=", unlessSignedAfter)]),
    );
  }
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

interface Counter {
  shopId: string;
  period: string;
  allowance: string;
}

const counter = (q: Queryable, { shopId, period, allowance }: Counter) =>
  q
    .updateTable("PlanUsage")
    .where("shopId", "=", shopId)
    .where("period", "=", period)
    .where("allowance", "=", allowance);

/** Makes the period's counter if it is not there yet. */
export async function ensureAllowanceCounter(q: Queryable, key: Counter) {
  await q
    .insertInto("PlanUsage")
    .values({ ...key, used: 0 })
    .onConflict((conflict) => conflict.doNothing())
    .execute();
}

/**
 * Takes one unit of the allowance if fewer than `limit` are used: one conditional update, so concurrent
 * takers never go past the limit, on either engine. True when taken; the counter must exist
 * (`ensureAllowanceCounter`).
 */
export async function takeAllowanceUnit(q: Queryable, key: Counter, limit: number): Promise<boolean> {
  const result = await counter(q, key)
    .set((eb) => ({ used: eb("used", "+", 1) }))
    .where("used", "<", limit)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives back a unit taken for an email that was then not sent. */
export async function returnAllowanceUnit(q: Queryable, key: Counter): Promise<void> {
  await counter(q, key)
    .set((eb) => ({ used: eb("used", "-", 1) }))
    .where("used", ">", 0)
    .execute();
}

/** Marks the allowance reached this period; true only for the first caller (who tells the merchant). */
export async function markAllowanceReached(q: Queryable, key: Counter, at: Date): Promise<boolean> {
  await ensureAllowanceCounter(q, key);
  const result = await counter(q, key).set({ reachedAt: at }).where("reachedAt", "is", null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Sets what was used (tests and the demo seed start a period part-used). */
export async function setAllowanceUsed(q: Queryable, key: Counter, used: number): Promise<void> {
  await ensureAllowanceCounter(q, key);
  await counter(q, key).set({ used }).execute();
}

export function findPlanUsage(q: Queryable, shopId: string, period: string): Promise<PlanUsageRow[]> {
  return q.selectFrom("PlanUsage").selectAll().where("shopId", "=", shopId).where("period", "=", period).execute();
}

/**
 * At uninstall: the platform cancels the app's charges, so the shop is on FREE from now, with no
 * subscription (a reinstall starts there). Only a shop on a paid plan changes.
 */
export async function endPlanOfDomain(q: Queryable, domain: string, at: Date): Promise<void> {
  await q
    .updateTable("Shop")
    .set({ plan: "FREE", planUpdatedAt: at, subscriptionId: null, subscriptionStatus: null, graceEndsAt: null })
    .where("domain", "=", domain)
    .where((eb) => eb.or([eb("plan", "!=", "FREE"), eb("subscriptionId", "is not", null)]))
    .execute();
}
