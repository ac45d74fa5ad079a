import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { holdMessage, insertMessages } from "~/data/alert-rows.server";
import { setAllowanceUsed } from "~/data/plan-rows.server";
import { newId } from "~/lib/ids";
import { allowanceTaker, allowanceUsage, countHeldAlertEmails } from "~/services/plans/entitlements.server";
import { ALLOWANCE_HELD_NOTE, PLANS, periodEnd, periodOf } from "~/services/plans/plans";
import { createShop } from "../../factories";
import { BASE_URL, createTestApp } from "../../support/http";
import { platformWebhook } from "../../support/platform-webhooks";
import { useSubscriptionPlatform } from "../../support/subscriptions";

/**
 * The monthly allowance's edges (docs/decisions/062-plans-and-billing.md), on the entitlement service and the
 * database: the merchant is told once each time the plan in force runs out, not more, not less; a new month
 * starts from nothing; an upgrade releases one shop's held emails, not another's.
 */
const app = await createTestApp();
const subscriptions = await useSubscriptionPlatform();

const toldOf = async (shopId: string) =>
  (
    await database()
      .selectFrom("Event")
      .select("data")
      .where("shopId", "=", shopId)
      .where("type", "=", "plan.allowance_reached")
      .orderBy("createdAt")
      .execute()
  ).map((row) => JSON.parse(row.data) as { plan: string; limit: number; period: string });

async function upgrade(domain: string, name: "Growth" | "Plus") {
  const body = JSON.stringify({
    app_subscription: {
      admin_graphql_api_id: `gid://shopify/AppSubscription/${Math.floor(Math.random() * 1e9)}`,
      name,
      status: "ACTIVE",
      updated_at: new Date().toISOString(),
    },
  });
  await subscriptions.follow(domain, body);
  const response = await app.request(
    `${BASE_URL}/webhooks/app_subscriptions/update`,
    platformWebhook("app_subscriptions/update", domain, body),
  );
  expect(response.status).toBe(200);
}

const used = (shopId: string, at: Date, count: number) =>
  setAllowanceUsed(database(), { shopId, period: periodOf(at), allowance: "alert_emails" }, count);

describe("plan.allowance_reached", () => {
  it("goes out once however many senders find the allowance used up at once", async () => {
    const shop = await createShop();
    await used(shop.id, new Date(), PLANS.FREE.allowances.alert_emails);
    const takers = await Promise.all(Array.from({ length: 5 }, () => allowanceTaker(shop.id, "alert_emails")));
    const units = await Promise.all(takers.flatMap((take) => [take(), take(), take()]));
    expect(units.every((unit) => !unit.taken)).toBe(true);
    expect(await toldOf(shop.id)).toHaveLength(1);
  });

  it("starts again in a new month: its own counter, told again when it is used up", async () => {
    const shop = await createShop();
    const january = new Date(Date.UTC(2027, 0, 31, 23, 59, 59, 900));
    const february = periodEnd(january);
    await used(shop.id, january, PLANS.FREE.allowances.alert_emails);
    expect((await (await allowanceTaker(shop.id, "alert_emails", january))()).taken).toBe(false);
    const take = await allowanceTaker(shop.id, "alert_emails", february);
    expect(await take()).toEqual({ taken: true, period: "2027-02" });
    await used(shop.id, february, PLANS.FREE.allowances.alert_emails);
    expect((await take()).taken).toBe(false);
    expect((await toldOf(shop.id)).map((told) => told.period)).toEqual(["2027-01", "2027-02"]);
    expect((await allowanceUsage(shop.id, february))[0]).toMatchObject({ period: "2027-02", used: 200 });
  });
});

describe("a sender's batch under way when the shop upgrades", () => {
  it("sends with the new plan's room rather than holding the rest for next month", async () => {
    // GIVEN a batch prepared on Free with the month's 200 used (its taker read the plan then)
    const shop = await createShop();
    await used(shop.id, new Date(), PLANS.FREE.allowances.alert_emails);
    const take = await allowanceTaker(shop.id, "alert_emails");
    // WHEN the upgrade is applied while the batch is being sent (its release of held emails runs now, before
    // this batch's next email is held)
    await upgrade(shop.domain, "Growth");
    // THEN the batch's next email takes a unit of Growth's allowance, and nobody is told the allowance ran out
    expect(await take()).toMatchObject({ taken: true });
    expect(await toldOf(shop.id)).toEqual([]);
  });
});

describe("held alert emails", () => {
  it("are released by the upgrading shop's plan change only", async () => {
    const upgrading = await createShop();
    const other = await createShop();
    const now = new Date();
    for (const shop of [upgrading, other]) {
      const messages = Array.from({ length: 3 }, () => ({
        id: newId("alertMessage"),
        shopId: shop.id,
        customerId: String(Math.floor(Math.random() * 1e9)),
        dueAt: now,
        createdAt: now,
      }));
      await insertMessages(database(), messages);
      for (const message of messages) {
        await holdMessage(database(), shop.id, message.id, { dueAt: periodEnd(now), note: ALLOWANCE_HELD_NOTE });
      }
    }
    await upgrade(upgrading.domain, "Plus");
    expect(await countHeldAlertEmails(upgrading.id)).toBe(0);
    expect(await countHeldAlertEmails(other.id)).toBe(3);
    const others = await database().selectFrom("AlertMessage").select("dueAt").where("shopId", "=", other.id).execute();
    expect(new Set(others.map((row) => new Date(row.dueAt).toISOString()))).toEqual(
      new Set([periodEnd(now).toISOString()]),
    );
  });
});
