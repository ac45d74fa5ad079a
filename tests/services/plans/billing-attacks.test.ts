import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { findShopById } from "~/data/shop-rows.server";
import { applyPlatformAnswer } from "~/services/plans/billing.server";
import { shopPlan } from "~/services/plans/entitlements.server";
import { purgeProcessedPlatformWebhooks } from "~/services/shops/platform-webhook-ledger.server";
import { signedProxyPath } from "../../../scripts/lib/app-proxy";
import { createShopWithKey } from "../../factories";
import { BASE_URL, createTestApp } from "../../support/http";
import { platformWebhook } from "../../support/platform-webhooks";
import { useSubscriptionPlatform } from "../../support/subscriptions";

/**
 * The subscription webhook and the Plan page's platform answers as an attacker, or an unlucky network, would
 * drive them (docs/decisions/062-plans-and-billing.md): late, out of order, replayed, forged, under another
 * shop's header. Whatever arrives, a shop is on a paid plan only while the platform bills it for one.
 */
const app = await createTestApp();
const subscriptions = await useSubscriptionPlatform();

type Status = "ACTIVE" | "CANCELLED" | "DECLINED" | "FROZEN" | "PENDING" | "EXPIRED";

let subscriptionNumber = 9_000;
const newSubscription = () => `gid://shopify/AppSubscription/${++subscriptionNumber}`;

/** The platform's app_subscriptions/update body: updatedAt null leaves `updated_at` out. */
const subscriptionBody = (subscription: { id: string; name: string; status: Status; updatedAt?: Date | null }) =>
  JSON.stringify({
    app_subscription: {
      admin_graphql_api_id: subscription.id,
      name: subscription.name,
      status: subscription.status,
      admin_graphql_api_shop_id: "gid://shopify/Shop/1",
      created_at: "2026-11-01T10:00:00-05:00",
      ...(subscription.updatedAt === null ? {} : { updated_at: (subscription.updatedAt ?? new Date()).toISOString() }),
      currency: "USD",
      capped_amount: null,
    },
  });

/**
 * Sends the webhook, the platform's state having changed first (unless `platform: "unchanged"`: a body sent
 * under a shop whose platform never had the subscription).
 */
async function deliver(
  domain: string,
  body: string,
  init: { secret?: string; webhookId?: string; platform?: "unchanged" } = {},
) {
  if (init.platform !== "unchanged") await subscriptions.follow(domain, body);
  return app.request(
    `${BASE_URL}/webhooks/app_subscriptions/update`,
    platformWebhook("app_subscriptions/update", domain, body, init.secret, init.webhookId),
  );
}

const planOf = async (shopId: string) => (await shopPlan(shopId)).plan.id;

describe("a late ACTIVE of a subscription that has ended", () => {
  it("does not give the plan back after the merchant cancelled it on the Plan page", async () => {
    // GIVEN a merchant who approved Growth (the return to the Plan page applied it) and then downgraded to Free
    // (billing.cancel's answer applied), while the platform's ACTIVE webhook of the subscription was delayed
    // (a failed delivery, retried by the platform for up to 48 hours)
    const { shop } = await createShopWithKey();
    const id = newSubscription();
    const approvedAt = new Date(Date.now() - 60_000);
    await applyPlatformAnswer(shop.id, [{ id, name: "Growth", status: "ACTIVE" }]);
    await applyPlatformAnswer(shop.id, [{ id, name: "Growth", status: "CANCELLED" }]);
    expect(await planOf(shop.id)).toBe("FREE");
    // ...and the cancellation's webhook came first
    expect((await deliver(shop.domain, subscriptionBody({ id, name: "Growth", status: "CANCELLED" }))).status).toBe(
      200,
    );
    // WHEN the delayed activation arrives
    const late = subscriptionBody({ id, name: "Growth", status: "ACTIVE", updatedAt: approvedAt });
    expect((await deliver(shop.domain, late)).status).toBe(200);
    // THEN the shop stays on Free: the platform bills it for nothing
    expect(await planOf(shop.id)).toBe("FREE");
    expect(await findShopById(database(), shop.id)).toMatchObject({ plan: "FREE", subscriptionId: null });
  });

  it("does not put a Free shop on the plan when the subscription's CANCELLED overtook its ACTIVE", async () => {
    // GIVEN a subscription approved, then cancelled (an uninstall and reinstall, say), whose webhooks arrive the
    // wrong way round
    const { shop } = await createShopWithKey();
    const id = newSubscription();
    const approvedAt = new Date(Date.now() - 120_000);
    const cancelledAt = new Date(Date.now() - 60_000);
    await deliver(shop.domain, subscriptionBody({ id, name: "Plus", status: "CANCELLED", updatedAt: cancelledAt }));
    // WHEN the earlier ACTIVE arrives last
    await deliver(shop.domain, subscriptionBody({ id, name: "Plus", status: "ACTIVE", updatedAt: approvedAt }));
    // THEN the shop is on Free
    expect(await planOf(shop.id)).toBe("FREE");
  });

  it("does not give the plan back after an older subscription's late ACTIVE, once the newer one ended", async () => {
    // GIVEN Growth approved (its ACTIVE delayed), replaced by Plus, and Plus cancelled on the Plan page
    const { shop } = await createShopWithKey();
    const growth = newSubscription();
    const plus = newSubscription();
    const t0 = Date.now() - 600_000;
    await deliver(
      shop.domain,
      subscriptionBody({ id: plus, name: "Plus", status: "ACTIVE", updatedAt: new Date(t0 + 60_000) }),
    );
    await deliver(
      shop.domain,
      subscriptionBody({ id: growth, name: "Growth", status: "CANCELLED", updatedAt: new Date(t0 + 60_000) }),
    );
    await applyPlatformAnswer(shop.id, [{ id: plus, name: "Plus", status: "CANCELLED" }]);
    await deliver(
      shop.domain,
      subscriptionBody({ id: plus, name: "Plus", status: "CANCELLED", updatedAt: new Date(t0 + 120_000) }),
    );
    expect(await planOf(shop.id)).toBe("FREE");
    // WHEN Growth's ACTIVE finally arrives
    await deliver(
      shop.domain,
      subscriptionBody({ id: growth, name: "Growth", status: "ACTIVE", updatedAt: new Date(t0) }),
    );
    // THEN the shop is on Free
    expect(await planOf(shop.id)).toBe("FREE");
  });
});

describe("a plan change whose replaced subscription's CANCELLED comes first", () => {
  // The new subscription's ACTIVE is signed before the old one's cancellation (the platform does both on one
  // approval): by time alone it would read as stale. The platform confirms it is ACTIVE, so it applies.
  it("puts the shop on the new plan from the webhooks alone", async () => {
    const { shop } = await createShopWithKey();
    const growth = newSubscription();
    const plus = newSubscription();
    const approvedAt = Date.now() - 60_000;
    await deliver(
      shop.domain,
      subscriptionBody({ id: growth, name: "Growth", status: "ACTIVE", updatedAt: new Date(approvedAt - 600_000) }),
    );
    await deliver(
      shop.domain,
      subscriptionBody({ id: growth, name: "Growth", status: "CANCELLED", updatedAt: new Date(approvedAt + 1_000) }),
    );
    await deliver(
      shop.domain,
      subscriptionBody({ id: plus, name: "Plus", status: "ACTIVE", updatedAt: new Date(approvedAt) }),
    );
    expect(await planOf(shop.id)).toBe("PLUS");
  });
});

describe("a signed body sent again", () => {
  it("under another shop's header is a replay while the ledger remembers it", async () => {
    // GIVEN shop A's signed ACTIVE, processed
    const a = await createShopWithKey();
    const b = await createShopWithKey();
    const body = subscriptionBody({ id: newSubscription(), name: "Plus", status: "ACTIVE" });
    await deliver(a.shop.domain, body);
    expect(await planOf(a.shop.id)).toBe("PLUS");
    // WHEN it is sent again for shop B, with a new webhook id
    expect((await deliver(b.shop.domain, body, { platform: "unchanged" })).status).toBe(200);
    // THEN shop B is on Free
    expect(await planOf(b.shop.id)).toBe("FREE");
  });

  // The body names no shop; an ACTIVE is believed only once the shop's own platform (asked with its token)
  // says the subscription is its and ACTIVE.
  it("under another shop's header after the ledger forgot it does not put that shop on a paid plan", async () => {
    const a = await createShopWithKey();
    const b = await createShopWithKey();
    const body = subscriptionBody({ id: newSubscription(), name: "Plus", status: "ACTIVE" });
    await deliver(a.shop.domain, body);
    // The ledger's retention passes (the worker's hourly purge).
    await purgeProcessedPlatformWebhooks(new Date(Date.now() + 8 * 24 * 60 * 60 * 1000));
    await deliver(b.shop.domain, body, { platform: "unchanged" });
    expect(await planOf(b.shop.id)).toBe("FREE");
  });
});

describe("forged and malformed subscription webhooks", () => {
  it("refuses a body signed with another secret, changing nothing", async () => {
    const { shop } = await createShopWithKey();
    const response = await deliver(
      shop.domain,
      subscriptionBody({ id: newSubscription(), name: "Plus", status: "ACTIVE" }),
      {
        secret: "not-the-app-secret",
      },
    );
    expect(response.status).toBe(401);
    expect(await planOf(shop.id)).toBe("FREE");
  });

  it.each([
    ["a plan name in another case", { name: "growth", status: "ACTIVE" }],
    ["a plan name with a space", { name: "Growth ", status: "ACTIVE" }],
    ["the free plan's name", { name: "Free", status: "ACTIVE" }],
  ] as const)("ignores %s", async (_, subscription) => {
    const { shop } = await createShopWithKey();
    expect((await deliver(shop.domain, subscriptionBody({ id: newSubscription(), ...subscription }))).status).toBe(200);
    expect(await planOf(shop.id)).toBe("FREE");
  });

  it.each(["PAID", "active", ""])("refuses a status not in the platform's enum (%j)", async (status) => {
    const { shop } = await createShopWithKey();
    const body = subscriptionBody({ id: newSubscription(), name: "Growth", status: "ACTIVE" }).replace(
      '"status":"ACTIVE"',
      `"status":${JSON.stringify(status)}`,
    );
    expect((await deliver(shop.domain, body)).status).toBe(400);
    expect(await planOf(shop.id)).toBe("FREE");
  });

  it("refuses a body over the webhooks' size cap before reading it", async () => {
    const { shop } = await createShopWithKey();
    const body = subscriptionBody({ id: newSubscription(), name: "Growth", status: "ACTIVE" }).replace(
      '"currency":"USD"',
      `"currency":"USD","padding":"${"x".repeat(2 * 1024 * 1024)}"`,
    );
    expect((await deliver(shop.domain, body)).status).toBe(413);
    expect(await planOf(shop.id)).toBe("FREE");
  });

  it("leaves the plan alone on a FROZEN, CANCELLED or EXPIRED of a subscription that is not the shop's", async () => {
    const { shop } = await createShopWithKey();
    const id = newSubscription();
    await deliver(shop.domain, subscriptionBody({ id, name: "Growth", status: "ACTIVE" }));
    for (const status of ["FROZEN", "CANCELLED", "EXPIRED", "DECLINED"] as const) {
      await deliver(shop.domain, subscriptionBody({ id: newSubscription(), name: "Growth", status }));
    }
    expect(await shopPlan(shop.id)).toMatchObject({ state: "active", graceEndsAt: null, subscriptionId: id });
  });

  it("does not end a grace with a replayed ACTIVE signed before the FROZEN", async () => {
    const { shop } = await createShopWithKey();
    const id = newSubscription();
    const t0 = Date.now() - 60_000;
    await deliver(shop.domain, subscriptionBody({ id, name: "Growth", status: "ACTIVE", updatedAt: new Date(t0) }));
    await deliver(
      shop.domain,
      subscriptionBody({ id, name: "Growth", status: "FROZEN", updatedAt: new Date(t0 + 1_000) }),
    );
    // The ACTIVE again, under a new body (a re-serialised capture), so the digest does not catch it.
    await deliver(
      shop.domain,
      subscriptionBody({ id, name: "Growth", status: "ACTIVE", updatedAt: new Date(t0) }).replace(
        '"currency":"USD"',
        '"currency":"USD" ',
      ),
    );
    expect(await shopPlan(shop.id)).toMatchObject({ state: "grace" });
  });
});

describe("the Plan page's platform answers", () => {
  it("grant nothing for a subscription that is not ACTIVE (a charge_id back without approval)", async () => {
    const { shop } = await createShopWithKey();
    for (const status of ["PENDING", "ACCEPTED", "DECLINED", "FROZEN", "unknown"]) {
      await applyPlatformAnswer(shop.id, [{ id: newSubscription(), name: "Plus", status }]);
    }
    expect(await planOf(shop.id)).toBe("FREE");
  });
});

describe("webhook ids", () => {
  it("a new webhook id on the same signed body is a replay", async () => {
    const { shop } = await createShopWithKey();
    const id = newSubscription();
    const active = subscriptionBody({ id, name: "Growth", status: "ACTIVE", updatedAt: new Date(Date.now() - 1_000) });
    await deliver(shop.domain, active, { webhookId: randomUUID() });
    await deliver(shop.domain, subscriptionBody({ id, name: "Growth", status: "CANCELLED" }));
    await deliver(shop.domain, active, { webhookId: randomUUID() });
    expect(await planOf(shop.id)).toBe("FREE");
  });
});

describe("the demand insights on Free, asked for every other way", () => {
  const demandData = (text: string) => /rarelyBought|restock/.test(text);

  it.each([
    ["HEAD", "/v1/analytics/demand", 403],
    // (The 405 fallback takes a trailing slash that the router does not, and says GET is not allowed, "Allowed: GET".)
    ["GET", "/v1/analytics/demand/", 405],
    ["GET", "/v1/Analytics/Demand", 404],
    // Decoded to the operation's own path, and so gated.
    ["GET", "/v1/analytics/%64emand", 403],
    ["GET", "/v1/analytics/demand%2F", 404],
    ["GET", "/v1//analytics/demand", 404],
    ["GET", "/v1/analytics/demand;x", 404],
    ["GET", "/v1/analytics/demand?range=7d&range=30d", 403],
    ["POST", "/v1/analytics/demand", 405],
  ])("%s %s with the shop's secret key answers %i, with no demand data", async (method, path, status) => {
    const { secret } = await createShopWithKey();
    const response = await app.request(`${BASE_URL}${path}`, {
      method,
      headers: { Authorization: `Bearer ${secret}`, "X-HTTP-Method-Override": "GET" },
    });
    expect(response.status).toBe(status);
    expect(demandData(await response.text())).toBe(false);
  });

  it("answers 401 without a credential or with an unknown key, before the plan", async () => {
    const unknownKey = { Authorization: "Bearer svc_sk_not_a_key_of_anyone_0000000000" };
    for (const headers of [{} as Record<string, string>, unknownKey]) {
      const response = await app.request(`${BASE_URL}/v1/analytics/demand`, { headers });
      expect(response.status).toBe(401);
      expect(await response.json()).not.toHaveProperty("plan");
    }
  });

  it("answers the app proxy 403 forbidden (a private operation), not the report", async () => {
    const { shop } = await createShopWithKey();
    const response = await app.request(
      `${BASE_URL}${signedProxyPath("/proxy/v1/analytics/demand", { shop: shop.domain, logged_in_customer_id: "42" })}`,
    );
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ type: expect.stringMatching(/\/problems\/forbidden$/) });
  });

  it("tells the plan needed and nothing of the report in the 403", async () => {
    const { secret } = await createShopWithKey();
    const response = await app.request(`${BASE_URL}/v1/analytics/demand?range=7d`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(response.status).toBe(403);
    const problem = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(problem).sort()).toEqual(
      ["currentPlan", "detail", "feature", "instance", "plan", "status", "title", "type"].sort(),
    );
  });
});
