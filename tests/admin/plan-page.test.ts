/**
 * The Plan page's loader and action as an attacker drives them (docs/decisions/062-plans-and-billing.md): the
 * requests the embedded admin sends (a session token of the shop), the platform library's billing calls answered
 * by the platform stand-in's Admin API behind the fake Admin API. A plan is given only for a subscription the
 * platform says is ACTIVE for this shop; whatever the form or the address says, nothing else.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Session } from "@shopify/shopify-api";
import { afterAll, describe, expect, it } from "vitest";
import { createSubscription, decideSubscription, subscriptionsOf } from "../../stand-in/billing";
import { demoShopData, type StandInShop } from "../../stand-in/demo-data";
import { signSessionToken } from "../../stand-in/session-token";
import { startFakeAdminApi, standInGraphql } from "../../scripts/lib/fake-admin-api";

const platform = await startFakeAdminApi();
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
afterAll(() => platform.close());

const { getEnv } = await import("~/env.server");
const { platformSessionStorage } = await import("~/services/shops/platform-sessions.server");
const { shopPlan } = await import("~/services/plans/entitlements.server");
const planRoute = await import("~/routes/app.plan");
const { createShop } = await import("../factories");

const standIns = new Map<string, StandInShop>();
platform.answer((call) => standInGraphql(standIns.get(call.accessToken ?? "")!)(call));

async function installedShop() {
  const shop = await createShop();
  const accessToken = `shpat_${shop.id}`;
  const session = new Session({ id: `offline_${shop.domain}`, shop: shop.domain, state: "", isOnline: false });
  session.scope = getEnv().SCOPES;
  session.accessToken = accessToken;
  await platformSessionStorage.storeSession(session);
  const data = demoShopData({ domain: shop.domain, accessToken });
  standIns.set(accessToken, data);
  return { ...shop, data };
}
type Shop = Awaited<ReturnType<typeof installedShop>>;

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";

async function headers(shop: Shop, secret = getEnv().SHOPIFY_API_SECRET) {
  const token = await signSessionToken({
    shopDomain: shop.domain,
    apiKey: getEnv().SHOPIFY_API_KEY,
    apiSecret: secret,
  });
  return new Headers({ authorization: `Bearer ${token}`, "user-agent": BROWSER });
}

const load = async (shop: Shop, query: Record<string, string> = {}) =>
  planRoute.loader({
    request: new Request(`${getEnv().SHOPIFY_APP_URL}/app/plan?${new URLSearchParams(query)}`, {
      headers: await headers(shop),
    }),
    params: {},
    context: {},
  } as LoaderFunctionArgs);

/** The action's answer, or the Response it throws (the billing request's way to the confirmation page). */
async function submit(shop: Shop, form: string, secret?: string): Promise<unknown> {
  const request = new Request(`${getEnv().SHOPIFY_APP_URL}/app/plan`, {
    method: "POST",
    headers: await headers(shop, secret),
    body: new URLSearchParams(form),
  });
  request.headers.set("content-type", "application/x-www-form-urlencoded");
  try {
    return await planRoute.action({ request, params: {}, context: {} } as ActionFunctionArgs);
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

/** A subscription the platform holds for the shop, as the action's billing.request leaves it, or decided. */
function platformSubscription(shop: Shop, name: string, decision?: "approve" | "decline") {
  const created = createSubscription(shop.data, {
    name,
    returnUrl: "https://admin.shopify.com/store/x/apps/wishlist-service/plan",
    test: true,
    trialDays: 14,
    lineItems: [{ plan: { appRecurringPricingDetails: { price: { amount: "9.99", currencyCode: "USD" } } } }],
  });
  if (!("subscription" in created)) throw new Error("not created");
  if (decision) decideSubscription(shop.data, created.subscription, decision === "approve");
  return created.subscription;
}

const planOf = async (shop: Shop) => (await shopPlan(shop.id)).plan.id;

describe("the Plan page's return from the platform (charge_id)", () => {
  it("gives nothing for a charge the merchant did not approve", async () => {
    // GIVEN the merchant asked for Growth (the action's billing.request made a PENDING charge)
    const shop = await installedShop();
    const asked = await submit(shop, "plan=GROWTH");
    expect(asked).toBeInstanceOf(Response);
    const [pending] = subscriptionsOf(shop.data);
    expect(pending).toMatchObject({ name: "Growth", status: "PENDING" });
    // WHEN the merchant opens the page's return address without approving it, or after declining another
    const declined = platformSubscription(shop, "Plus", "decline");
    for (const chargeId of [pending!.id, declined.id, "1"]) {
      const page = await load(shop, { charge_id: chargeId });
      // THEN the shop is on Free
      expect(page).toMatchObject({ returned: "notApproved", plan: "FREE", state: "free" });
    }
    expect(await planOf(shop)).toBe("FREE");
  });

  it("gives nothing for another shop's approved charge", async () => {
    const paying = await installedShop();
    const other = await installedShop();
    const approved = platformSubscription(paying, "Plus", "approve");
    expect(await load(other, { charge_id: approved.id })).toMatchObject({ plan: "FREE" });
    // The shop that approved it has it.
    expect(await load(paying, { charge_id: approved.id })).toMatchObject({ plan: "PLUS", state: "active" });
    expect(await planOf(other)).toBe("FREE");
  });
});

describe("the Plan page's action", () => {
  it.each(["plan=growth", "plan=ENTERPRISE", "plan=", "plan=%20PLUS", "plan=PLUS%00", "plans=PLUS", ""])(
    "refuses %j, asking the platform for nothing",
    async (form) => {
      const shop = await installedShop();
      expect(await submit(shop, form)).toMatchObject({ ok: false });
      expect(subscriptionsOf(shop.data)).toEqual([]);
      expect(await planOf(shop)).toBe("FREE");
    },
  );

  it("takes the first of repeated plan parameters, and gives nothing before the platform approves", async () => {
    const shop = await installedShop();
    expect(await submit(shop, "plan=PLUS&plan=FREE")).toBeInstanceOf(Response);
    expect(subscriptionsOf(shop.data).map((subscription) => [subscription.name, subscription.status])).toEqual([
      ["Plus", "PENDING"],
    ]);
    expect(await planOf(shop)).toBe("FREE");
  });

  it("answers a downgrade with no subscription as a conflict, cancelling nothing", async () => {
    const shop = await installedShop();
    expect(await submit(shop, "plan=FREE")).toMatchObject({ ok: false, formError: expect.stringMatching(/Free plan/) });
    expect(subscriptionsOf(shop.data)).toEqual([]);
  });

  // One trial per shop: hopping between plans (or Free and back) would otherwise keep a shop on a paid plan
  // unbilled. What is left of the trial started by its first paid subscription goes with billing.request.
  it("offers no new free trial to a shop whose trial is over", async () => {
    // GIVEN a shop on Growth for 20 days: its 14-day trial over, the platform bills it
    const shop = await installedShop();
    const growth = platformSubscription(shop, "Growth", "approve");
    growth.createdAt -= 20 * 24 * 60 * 60 * 1000;
    expect(await load(shop, { charge_id: growth.id })).toMatchObject({ plan: "GROWTH" });
    // WHEN it asks for Plus
    expect(await submit(shop, "plan=PLUS")).toBeInstanceOf(Response);
    // THEN the new subscription starts billing at once
    const plus = subscriptionsOf(shop.data).find((subscription) => subscription.name === "Plus")!;
    expect(plus.trialDays).toBe(0);
  });

  it("refuses a session token not signed with the app's secret", async () => {
    const shop = await installedShop();
    const answer = await submit(shop, "plan=GROWTH", "not-the-app-secret");
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(401);
    expect(subscriptionsOf(shop.data)).toEqual([]);
  });
});
