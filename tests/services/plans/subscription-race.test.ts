import pg from "pg";
import { describe, expect, it } from "vitest";
import { shopPlan } from "~/services/plans/entitlements.server";
import { createShopWithKey } from "../../factories";
import { BASE_URL, createTestApp } from "../../support/http";
import { platformWebhook } from "../../support/platform-webhooks";
import { useSubscriptionPlatform } from "../../support/subscriptions";
import { until } from "../../support/poll";

/**
 * PostgreSQL only (SQLite serialises every writer): the platform sends a plan change's two webhooks at once, the
 * new subscription's ACTIVE and the replaced one's CANCELLED, and two requests apply them side by side. Each
 * decides from the shop's subscription as it reads it, so the later one must read what the earlier one wrote
 * (docs/decisions/062-plans-and-billing.md).
 */
const app = await createTestApp();
const subscriptions = await useSubscriptionPlatform();

const body = (id: string, name: string, status: string, updatedAt: Date) =>
  JSON.stringify({
    app_subscription: {
      admin_graphql_api_id: id,
      name,
      status,
      admin_graphql_api_shop_id: "gid://shopify/Shop/1",
      updated_at: updatedAt.toISOString(),
      currency: "USD",
    },
  });

async function deliver(domain: string, json: string) {
  // The platform's own change comes first; the webhook tells of it.
  await subscriptions.follow(domain, json);
  return app.request(
    `${BASE_URL}/webhooks/app_subscriptions/update`,
    platformWebhook("app_subscriptions/update", domain, json),
  );
}

describe("a plan change's two webhooks applied at once", { timeout: 120_000 }, () => {
  it("leaves the shop on the new plan, whichever request writes last", async () => {
    // GIVEN a shop on Growth
    const { shop } = await createShopWithKey();
    const growth = "gid://shopify/AppSubscription/7001";
    const plus = "gid://shopify/AppSubscription/7002";
    const t0 = Date.now() - 60_000;
    expect((await deliver(shop.domain, body(growth, "Growth", "ACTIVE", new Date(t0)))).status).toBe(200);

    // WHEN the merchant approves Plus and the platform sends Plus's ACTIVE and Growth's CANCELLED together: another
    // transaction holds the shop's row a moment (as any writer of it may), so both requests are inside theirs
    // before either writes
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    // Another connection watches (pg_stat_activity is a snapshot within a transaction).
    const watcher = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await Promise.all([other.connect(), watcher.connect()]);
    const waiting = async () =>
      Number(
        (
          await watcher.query(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          )
        ).rows[0].n,
      );
    let answers: Response[];
    try {
      await other.query("BEGIN");
      await other.query(`SELECT 1 FROM "Shop" WHERE id = $1 FOR NO KEY UPDATE`, [shop.id]);
      const activated = deliver(shop.domain, body(plus, "Plus", "ACTIVE", new Date(t0 + 30_000)));
      await until(waiting, (n) => n >= 1, "the ACTIVE waiting for the shop's row");
      const cancelled = deliver(shop.domain, body(growth, "Growth", "CANCELLED", new Date(t0 + 30_000)));
      await until(waiting, (n) => n >= 2, "the CANCELLED waiting for the shop's row");
      await other.query("COMMIT");
      answers = await Promise.all([activated, cancelled]);
    } finally {
      await Promise.all([other.end(), watcher.end()]);
    }

    // THEN both are answered and the shop is on Plus, the subscription the platform bills
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(await shopPlan(shop.id)).toMatchObject({ subscriptionId: plus, state: "active" });
    expect((await shopPlan(shop.id)).plan.id).toBe("PLUS");
  });
});
