/**
 * Shopify Flow triggers for the alerts (docs/decisions/050-wishlist-alerts.md): one trigger per alert kind,
 * declared as trigger extensions (extensions/wishlist-flow-*), sent with the Admin API's `flowTriggerReceive`
 * for each alert made while a workflow of the shop uses its trigger. Flow says which triggers a shop uses
 * through its lifecycle callback (POST /flow/lifecycle, signed with the app's secret like the platform's
 * webhooks); a callback older than the one applied is ignored, so a replay changes nothing.
 */
import { database } from "~/data/database.server";
import type { AlertRow } from "~/data/alert-rows.server";
import { findEnabledTriggers, findPendingFlowAlerts, finishFlowAlert, recordTriggerUse } from "~/data/flow-rows.server";
import { findShopForAuth } from "~/data/shop-rows.server";
import { findEnabledEndpointsOfShops } from "~/data/webhook-endpoint-rows.server";
import { logger } from "~/logger.server";
import { createAdminCaller, PlatformUnavailable } from "~/services/platform/admin-api.server";
import type { AlertKind } from "./alert-settings";
import { fromMinorUnits } from "~/lib/money";

/** Each alert kind's trigger: its extension's handle and name (the merchant-facing title). */
export const FLOW_TRIGGERS = {
  back_in_stock: { handle: "wishlist-back-in-stock", name: "Wishlist item back in stock" },
  price_dropped: { handle: "wishlist-price-dropped", name: "Wishlist item price dropped" },
  low_stock: { handle: "wishlist-low-stock", name: "Wishlist item low stock" },
  reminder: { handle: "wishlist-reminder-due", name: "Wishlist reminder due" },
} as const satisfies Record<AlertKind, { handle: string; name: string }>;

const FLOW_TRIGGER_RECEIVE = `#graphql
  mutation WishlistFlowTrigger($handle: String, $payload: JSON) {
    flowTriggerReceive(handle: $handle, payload: $payload) { userErrors { field message } }
  }`;

/** The kinds whose trigger some enabled workflow of the shop uses. */
export async function flowKinds(shopId: string): Promise<Set<AlertKind>> {
  const enabled = new Set(await findEnabledTriggers(database(), shopId));
  const kinds = new Set<AlertKind>();
  for (const [kind, trigger] of Object.entries(FLOW_TRIGGERS))
    if (enabled.has(trigger.handle)) kinds.add(kind as AlertKind);
  return kinds;
}

/**
 * Whether an integration carries the shop's alerts besides the app's own email: a workflow using one of the
 * Flow triggers, or an enabled webhook endpoint subscribed to an alert event (a reminder's included). The
 * API's `integrationConfigured` is true while it is (or while a client set the flag itself).
 */
export async function alertIntegrationActive(shopId: string): Promise<boolean> {
  if ((await findEnabledTriggers(database(), shopId)).length > 0) return true;
  const endpoints = await findEnabledEndpointsOfShops(database(), [shopId]);
  return endpoints.some((endpoint) =>
    (JSON.parse(endpoint.events) as string[]).some((type) => type.startsWith("alert.") || type === "reminder.due"),
  );
}

/**
 * A platform id as the JSON number Flow's reference fields take. The Admin API client writes variables with
 * JSON.stringify, which has no exact form for integers past 2^53: such an id is refused rather than rounded to
 * another customer's or product's (the platform's ids are far below it today).
 */
export function exactNumber(id: string): number {
  const value = Number(id);
  if (!Number.isSafeInteger(value) || String(value) !== id) {
    throw new RangeError(`The id ${id} has no exact JSON number: it is not sent to Flow.`);
  }
  return value;
}

/** The trigger payload of an alert, as its extension declares it (reference fields, then the custom keys). */
export function flowPayload(
  alert: Pick<
    AlertRow,
    | "kind"
    | "customerId"
    | "productId"
    | "listId"
    | "variantId"
    | "currency"
    | "newPriceMinor"
    | "oldPriceMinor"
    | "quantity"
  >,
) {
  const price = (minor: number | null) => (minor === null ? null : Number(fromMinorUnits(minor, alert.currency)));
  return {
    customer_id: exactNumber(alert.customerId),
    product_id: exactNumber(alert.productId),
    "Wishlist id": alert.listId,
    "Variant id": alert.variantId,
    Price: price(alert.newPriceMinor),
    Currency: alert.currency,
    ...(alert.kind === "price_dropped" ? { "Previous price": price(alert.oldPriceMinor) } : {}),
    ...(alert.kind === "low_stock" ? { "Units left": alert.quantity } : {}),
  };
}

/**
 * Sends up to `limit` of the shop's pending Flow triggers, one mutation each. A trigger the platform refuses
 * (userErrors) fails for good; the platform unreachable or throttled past the wait ends the run, the rest
 * staying pending for the next one. Returns how many were sent and failed.
 */
export async function sendFlowTriggers(shop: { id: string; domain: string }, limit = 50) {
  const result = { sent: 0, failed: 0, more: false };
  const alerts = await findPendingFlowAlerts(database(), shop.id, limit);
  if (alerts.length === 0) return result;
  const caller = createAdminCaller({ shopDomain: shop.domain, maxWaitMs: 10_000 });
  for (const alert of alerts) {
    const trigger = FLOW_TRIGGERS[alert.kind as AlertKind];
    let payload: ReturnType<typeof flowPayload>;
    try {
      payload = flowPayload(alert);
    } catch (error) {
      result.failed += 1;
      await finishFlowAlert(database(), shop.id, alert.id, { state: "failed", error: (error as Error).message });
      continue;
    }
    try {
      const answer = await caller.ask("flow trigger", FLOW_TRIGGER_RECEIVE, {
        handle: trigger.handle,
        payload,
      });
      const errors = answer.flowTriggerReceive?.userErrors ?? [];
      if (errors.length > 0) {
        result.failed += 1;
        await finishFlowAlert(database(), shop.id, alert.id, {
          state: "failed",
          error: errors
            .map((error) => error.message)
            .join("; ")
            .slice(0, 300),
        });
      } else {
        result.sent += 1;
        await finishFlowAlert(database(), shop.id, alert.id, { state: "sent" });
      }
    } catch (error) {
      if (error instanceof PlatformUnavailable || (error as { code?: string }).code === "platform_not_connected") {
        logger.warn({ shopId: shop.id, err: error }, "Flow triggers put off: the platform cannot be asked now");
        result.more = true;
        return result;
      }
      throw error;
    }
  }
  result.more = alerts.length === limit;
  return result;
}

/** Which of our triggers a lifecycle callback names: by handle, or by the name Flow shows; null: none. */
export function triggerOf(definitionId: string): string | null {
  for (const trigger of Object.values(FLOW_TRIGGERS)) {
    if (definitionId === trigger.handle || definitionId === trigger.name) return trigger.handle;
  }
  return null;
}

/**
 * Applies a verified lifecycle callback: whether a workflow of the shop uses the trigger, unless a callback
 * signed later was applied already. A shop this app does not hold is answered, and nothing recorded.
 */
export async function applyFlowLifecycle({
  trigger,
  enabled,
  shopDomain: domain,
  signedAt,
}: {
  trigger: string;
  enabled: boolean;
  shopDomain: string;
  signedAt: Date;
}): Promise<{ applied: boolean; reason: string | null }> {
  const shop = await findShopForAuth(database(), domain);
  if (!shop) return { applied: false, reason: "unknown shop" };
  const applied = await recordTriggerUse(database(), shop.id, { trigger, enabled, signedAt, at: new Date() });
  logger.info({ shopId: shop.id, trigger, enabled, applied }, "Flow trigger lifecycle callback");
  return { applied, reason: applied ? null : "older than the one applied" };
}
