/**
 * Statements on `FlowTriggerUse` and the Flow state of alerts (docs/decisions/050-wishlist-alerts.md). Every
 * function takes the handle to run on and the shop id that scopes it.
 */
import type { Queryable } from "./database.server";

/** The shop's triggers some enabled workflow uses. */
export async function findEnabledTriggers(q: Queryable, shopId: string): Promise<string[]> {
  const rows = await q
    .selectFrom("FlowTriggerUse")
    .select("trigger")
    .where("shopId", "=", shopId)
    .where("enabled", "=", true)
    .execute();
  return rows.map((row) => row.trigger);
}

/**
 * Records what a lifecycle callback signed at `signedAt` says of the trigger; a callback signed no later
 * than the one applied changes nothing. Returns whether it was applied.
 */
export async function recordTriggerUse(
  q: Queryable,
  shopId: string,
  { trigger, enabled, signedAt, at }: { trigger: string; enabled: boolean; signedAt: Date; at: Date },
): Promise<boolean> {
  const rows = await q
    .insertInto("FlowTriggerUse")
    .values({ shopId, trigger, enabled, signedAt, updatedAt: at })
    .onConflict((conflict) =>
      conflict
        .columns(["shopId", "trigger"])
        .doUpdateSet({ enabled, signedAt, updatedAt: at })
        .where("FlowTriggerUse.signedAt", "<", signedAt),
    )
    .returning("trigger")
    .execute();
  return rows.length > 0;
}

/** Up to `limit` of the shop's alerts owing a Flow trigger, oldest first. */
export function findPendingFlowAlerts(q: Queryable, shopId: string, limit: number) {
  return q
    .selectFrom("Alert")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("flowState", "=", "pending")
    .orderBy("createdAt")
    .orderBy("id")
    .limit(limit)
    .execute();
}

/** The alert's Flow trigger ended: sent, or failed with the platform's answer. */
export async function finishFlowAlert(
  q: Queryable,
  shopId: string,
  alertId: string,
  { state, error = null }: { state: "sent" | "failed"; error?: string | null },
) {
  await q
    .updateTable("Alert")
    .set({ flowState: state, flowError: error })
    .where("shopId", "=", shopId)
    .where("id", "=", alertId)
    .where("flowState", "=", "pending")
    .execute();
}
