import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { findShopById } from "~/data/shop-rows.server";
import { GRACE_DAYS } from "~/services/plans/billing.server";
import { allowanceNotice, planInForce, shopPlan } from "~/services/plans/entitlements.server";
import { periodEnd, periodOf } from "~/services/plans/plans";
import { setAllowanceUsed } from "~/data/plan-rows.server";
import { createList, createShopWithKey, ownerKeyOf, setShopPlan } from "../../factories";
import { BASE_URL, createTestApp } from "../../support/http";
import { platformWebhook } from "../../support/platform-webhooks";
import { useSubscriptionPlatform } from "../../support/subscriptions";

/**
 * The shop's plan follows the platform's app subscriptions (docs/decisions/062-plans-and-billing.md): the
 * signed `app_subscriptions/update` webhook, in any order and repeated, keeps `plan` and `planUpdatedAt` true;
 * a declined payment is a grace period; uninstalling ends the plan; a downgrade keeps every row and stops only
 * what the lower plan lacks, and the API answers a gated operation with 403 `plan-required`.
 */
const app = await createTestApp();
const subscriptions = await useSubscriptionPlatform();

type Status = "ACTIVE" | "CANCELLED" | "DECLINED" | "FROZEN" | "PENDING" | "EXPIRED";

let subscriptionNumber = 5_000;
const newSubscription = () => `gid://shopify/AppSubscription/${++subscriptionNumber}`;

async function subscriptionWebhook(
  domain: string,
  subscription: { id: string; name: string; status: Status; updatedAt?: Date },
  webhookId = randomUUID(),
) {
  const body = JSON.stringify({
    app_subscription: {
      admin_graphql_api_id: subscription.id,
      name: subscription.name,
      status: subscription.status,
      admin_graphql_api_shop_id: "gid://shopify/Shop/1",
      created_at: "2026-11-01T10:00:00-05:00",
      updated_at: (subscription.updatedAt ?? new Date()).toISOString(),
      currency: "USD",
      capped_amount: null,
    },
  });
  // The platform's own change comes first; the webhook tells of it.
  await subscriptions.follow(domain, body);
  return app.request(
    `${BASE_URL}/webhooks/app_subscriptions/update`,
    platformWebhook("app_subscriptions/update", domain, body, undefined, webhookId),
  );
}

const overview = async (secret: string) =>
  (await (await app.request(`${BASE_URL}/v1/shop`, { headers: { Authorization: `Bearer ${secret}` } })).json()) as {
    plan: string;
    planUpdatedAt: string;
  };

describe("app_subscriptions/update", () => {
  it("puts the shop on the plan an approved subscription names, once, and shows it in the overview", async () => {
    const { shop, secret } = await createShopWithKey();
    expect(await overview(secret)).toMatchObject({ plan: "FREE" });
    const id = newSubscription();
    const webhookId = randomUUID();
    expect((await subscriptionWebhook(shop.domain, { id, name: "Growth", status: "ACTIVE" }, webhookId)).status).toBe(
      200,
    );
    const first = await overview(secret);
    expect(first.plan).toBe("GROWTH");
    expect(Date.parse(first.planUpdatedAt)).toBeGreaterThan(Date.parse(shop.planUpdatedAt.toISOString()));
    expect(await findShopById(database(), shop.id)).toMatchObject({ subscriptionId: id, subscriptionStatus: "ACTIVE" });
    // The platform's retry of the same webhook changes nothing.
    expect((await subscriptionWebhook(shop.domain, { id, name: "Growth", status: "ACTIVE" }, webhookId)).status).toBe(
      200,
    );
    expect(await overview(secret)).toEqual(first);
  });

  it("follows a change of plan in whatever order the new subscription's and the replaced one's webhooks come", async () => {
    const { shop, secret } = await createShopWithKey();
    const growth = newSubscription();
    const plus = newSubscription();
    await subscriptionWebhook(shop.domain, { id: growth, name: "Growth", status: "ACTIVE" });
    // The replaced subscription's cancellation first, then the new one's activation...
    expect((await subscriptionWebhook(shop.domain, { id: plus, name: "Plus", status: "ACTIVE" })).status).toBe(200);
    expect((await subscriptionWebhook(shop.domain, { id: growth, name: "Growth", status: "CANCELLED" })).status).toBe(
      200,
    );
    expect((await overview(secret)).plan).toBe("PLUS");
    // ...and a declined request for another plan leaves the current one alone.
    const declined = newSubscription();
    await subscriptionWebhook(shop.domain, { id: declined, name: "Growth", status: "DECLINED" });
    await subscriptionWebhook(shop.domain, { id: declined, name: "Growth", status: "PENDING" });
    expect((await overview(secret)).plan).toBe("PLUS");
    expect((await findShopById(database(), shop.id))!.subscriptionId).toBe(plus);
  });

  it("ignores an update signed before the last one applied, and a subscription that names no plan of ours", async () => {
    const { shop, secret } = await createShopWithKey();
    const id = newSubscription();
    const now = Date.now();
    await subscriptionWebhook(shop.domain, { id, name: "Plus", status: "ACTIVE", updatedAt: new Date(now) });
    // A late retry of an older state (the subscription's cancellation, signed before its activation).
    await subscriptionWebhook(shop.domain, {
      id,
      name: "Plus",
      status: "CANCELLED",
      updatedAt: new Date(now - 60_000),
    });
    expect((await overview(secret)).plan).toBe("PLUS");
    await subscriptionWebhook(shop.domain, { id: newSubscription(), name: "Enterprise", status: "ACTIVE" });
    expect((await overview(secret)).plan).toBe("PLUS");
  });

  it("refuses a body that is not an app subscription, changing nothing", async () => {
    const { shop, secret } = await createShopWithKey();
    for (const body of [
      {},
      { app_subscription: { admin_graphql_api_id: "gid://shopify/Order/1", name: "Growth", status: "ACTIVE" } },
      { app_subscription: { admin_graphql_api_id: newSubscription(), name: "Growth", status: "PAID" } },
    ]) {
      const response = await app.request(
        `${BASE_URL}/webhooks/app_subscriptions/update`,
        platformWebhook("app_subscriptions/update", shop.domain, JSON.stringify(body)),
      );
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
    }
    expect((await overview(secret)).plan).toBe("FREE");
  });
});

describe("a declined payment", () => {
  it("holds the paid plan for the grace period, then FREE's terms apply; a payment made ends the grace", async () => {
    const { shop, secret } = await createShopWithKey();
    const id = newSubscription();
    await subscriptionWebhook(shop.domain, { id, name: "Growth", status: "ACTIVE" });
    const before = Date.now();
    await subscriptionWebhook(shop.domain, { id, name: "Growth", status: "FROZEN" });
    const frozen = await shopPlan(shop.id);
    expect(frozen).toMatchObject({ state: "grace" });
    expect(frozen.plan.id).toBe("GROWTH");
    const graceEndsAt = frozen.graceEndsAt!.getTime();
    expect(graceEndsAt).toBeGreaterThanOrEqual(before + GRACE_DAYS * 86_400_000);
    // A second FROZEN does not restart the grace.
    await subscriptionWebhook(shop.domain, { id, name: "Growth", status: "FROZEN" });
    expect((await shopPlan(shop.id)).graceEndsAt!.getTime()).toBe(graceEndsAt);
    // After it, FREE's terms, dated when the grace ended.
    const columns = (await findShopById(database(), shop.id))!;
    const after = planInForce(columns, new Date(graceEndsAt + 1));
    expect([after.plan.id, after.state, after.updatedAt.getTime()]).toEqual(["FREE", "free", graceEndsAt]);
    await database()
      .updateTable("Shop")
      .set({ graceEndsAt: new Date(Date.now() - 1_000) })
      .where("id", "=", shop.id)
      .execute();
    expect((await overview(secret)).plan).toBe("FREE");
    // The merchant pays after the grace: the paid plan takes effect again, from now.
    await subscriptionWebhook(shop.domain, { id, name: "Growth", status: "ACTIVE" });
    expect(await shopPlan(shop.id)).toMatchObject({ state: "active", graceEndsAt: null });
    const paidLate = await overview(secret);
    expect(paidLate.plan).toBe("GROWTH");
    expect(Date.parse(paidLate.planUpdatedAt)).toBeGreaterThan(graceEndsAt - GRACE_DAYS * 86_400_000);
  });

  it("keeps planUpdatedAt when the payment is made within the grace: the plan never changed", async () => {
    const { shop, secret } = await createShopWithKey();
    const id = newSubscription();
    await subscriptionWebhook(shop.domain, { id, name: "Plus", status: "ACTIVE" });
    const since = (await overview(secret)).planUpdatedAt;
    await subscriptionWebhook(shop.domain, { id, name: "Plus", status: "FROZEN" });
    expect((await overview(secret)).planUpdatedAt).toBe(since);
    await subscriptionWebhook(shop.domain, { id, name: "Plus", status: "ACTIVE" });
    expect(await overview(secret)).toMatchObject({ plan: "PLUS", planUpdatedAt: since });
    expect(await shopPlan(shop.id)).toMatchObject({ state: "active", graceEndsAt: null });
  });
});

describe("uninstalling", () => {
  it("ends the paid plan (the platform cancels the app's charges), and a reinstall starts on FREE", async () => {
    const { shop, secret } = await createShopWithKey();
    await subscriptionWebhook(shop.domain, { id: newSubscription(), name: "Plus", status: "ACTIVE" });
    const body = JSON.stringify({ id: 1, domain: shop.domain, myshopify_domain: shop.domain });
    expect(
      (await app.request(`${BASE_URL}/webhooks/app/uninstalled`, platformWebhook("app/uninstalled", shop.domain, body)))
        .status,
    ).toBe(200);
    expect(await findShopById(database(), shop.id)).toMatchObject({
      plan: "FREE",
      subscriptionId: null,
      subscriptionStatus: null,
    });
    // The uninstalled shop's key is refused, so the overview is read through the service.
    expect((await shopPlan(shop.id)).plan.id).toBe("FREE");
    expect(secret).toMatch(/^svc_sk_/);
  });
});

describe("a downgrade", () => {
  it("keeps every list and item, and stops only the feature the lower plan lacks", async () => {
    const { shop, secret } = await createShopWithKey();
    const id = newSubscription();
    await subscriptionWebhook(shop.domain, { id, name: "Plus", status: "ACTIVE" });
    const list = await createList(shop.id, { customerId: "7001" });
    await database()
      .insertInto("Item")
      .values({
        id: `itm_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
        shopId: shop.id,
        listId: list.id,
        ownerKey: ownerKeyOf(list),
        productId: "8100000001",
        handle: "aurora-linen-shirt",
        titleSnapshot: "Aurora Linen Shirt",
        addedAt: new Date(),
        quantity: 1,
      })
      .execute();
    const call = (path: string) =>
      app.request(`${BASE_URL}/v1${path}`, { headers: { Authorization: `Bearer ${secret}` } });
    expect((await call("/analytics/demand")).status).toBe(200);
    const lists = await (await call("/lists")).json();

    await subscriptionWebhook(shop.domain, { id, name: "Plus", status: "CANCELLED" });
    expect((await overview(secret)).plan).toBe("FREE");
    expect(await (await call("/lists")).json()).toEqual(lists);
    expect((await call("/analytics/conversions")).status).toBe(200);
    const refused = await call("/analytics/demand");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(await refused.json()).toMatchObject({
      type: expect.stringMatching(/\/problems\/plan-required$/),
      status: 403,
      title: "A higher plan is required",
      plan: "GROWTH",
      currentPlan: "FREE",
      feature: "demandInsights",
    });
  });

  it("answers the gated operation 403 plan-required before reading its parameters, and a public key its own 403", async () => {
    const { shop, secret } = await createShopWithKey();
    await setShopPlan(shop.id, "FREE");
    const response = await app.request(`${BASE_URL}/v1/analytics/demand?range=1y&restockLimit=0`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ plan: "GROWTH" });
    // Counted by the shop's rate limit like any call, and says so.
    const counted = await app.request(`${BASE_URL}/v1/analytics/demand`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(counted.status).toBe(403);
    expect(counted.headers.get("x-ratelimit-remaining-shop")).toMatch(/^\d+$/);
    const publicCall = await app.request(`${BASE_URL}/v1/analytics/demand`, {
      headers: { "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey },
    });
    expect(publicCall.status).toBe(403);
    expect(await publicCall.json()).toMatchObject({ type: expect.stringMatching(/\/problems\/forbidden$/) });
  });
});

describe("the merchant told of a used-up allowance", () => {
  it("while this month's alert emails are used up under the plan in force, and no longer after an upgrade", async () => {
    const { shop } = await createShopWithKey();
    const now = new Date();
    expect(await allowanceNotice(shop.id, now)).toBeNull();
    await setAllowanceUsed(database(), { shopId: shop.id, period: periodOf(now), allowance: "alert_emails" }, 200);
    expect(await allowanceNotice(shop.id, now)).toEqual({
      plan: "Free",
      limit: 200,
      held: 0,
      resetsAt: periodEnd(now).toISOString(),
    });
    await setShopPlan(shop.id, "GROWTH");
    expect(await allowanceNotice(shop.id, now)).toBeNull();
  });
});
