/**
 * App billing against the stand-in: the platform library's own `billing.request`, `billing.check` and
 * `billing.cancel` (as the app calls them) reach the stand-in's Admin API through the app's route to it; the
 * merchant approves or declines on the charge's confirmation page, and a payment is declined or made on the
 * shop's billing page. Each change reaches the app as `app_subscriptions/update`, signed as the platform signs
 * it; a receiver in this file checks each with the app's own verifier (`platformApi.webhooks.validate`) and keeps
 * what arrived. The same server plays a small embedded app for the browser test of App Bridge's part (leaving
 * the app for the confirmation page). The app's own handling of billing is not the subject here.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { BillingError, BillingInterval, Session, shopifyApi } from "@shopify/shopify-api";
import { Hono } from "hono";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv, resetEnvCache } from "~/env.server";
import { chromiumPath, CHROMIUM_ARGS, PAGE_TIMEOUT_MS } from "../../scripts/lib/chromium";
import { SHOPIFY_API_VERSION } from "~/shopify-api-version";
import { platformApi } from "~/shopify.server";
import { demoShopData } from "../../stand-in/demo-data";
import { startPlatformStandIn, type PlatformStandIn } from "../../stand-in/platform";
import { until } from "../support/poll";

const APP_HANDLE = "wishlist-test";
const { SHOPIFY_API_KEY: API_KEY, SHOPIFY_API_SECRET: SECRET } = getEnv();

interface Received {
  topic: string;
  shopDomain: string;
  // The REST bodies are read field by field below.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  valid: boolean;
}

const received: Received[] = [];
let receiver: ServerType;
let platform: PlatformStandIn;
let appUrl = "";

/** The platform library with the app's two plans, as an app configures `shopifyApp({ billing })`. */
const library = () =>
  shopifyApi({
    apiKey: API_KEY,
    apiSecretKey: SECRET,
    apiVersion: SHOPIFY_API_VERSION as never,
    hostName: new URL(appUrl).host,
    hostScheme: "http",
    isEmbeddedApp: true,
    logger: { level: 0, log: async () => {} },
    billing: {
      Pro: {
        trialDays: 7,
        lineItems: [{ amount: 9.99, currencyCode: "USD", interval: BillingInterval.Every30Days }],
      },
      Plus: { lineItems: [{ amount: 29, currencyCode: "USD", interval: BillingInterval.Every30Days }] },
    },
  });
let billing: ReturnType<typeof library>["billing"];

/** The app's sessions, by shop domain, for the embedded page's requests. */
const sessions = new Map<string, Session>();

/**
 * An embedded page with a plan to upgrade to, as the app would have: its fetch (through App Bridge) is answered
 * as the platform library answers one that needs the merchant's approval (`redirectOutOfApp`: 401 with the
 * confirmation URL in `X-Shopify-API-Request-Failure-Reauthorize-Url`).
 */
function embeddedApp(app: Hono) {
  app.get("/app", (c) =>
    c.html(`<!doctype html><html><head><script data-api-key="${API_KEY}" src="${platform.origin}/app-bridge.js"></script></head>
      <body><h1>Plans</h1><p id="charge">${c.req.query("charge_id") ?? "none"}</p>
      <button id="upgrade">Upgrade</button><button id="elsewhere">Elsewhere</button>
      <script>for (const name of ["upgrade", "elsewhere"]) document.getElementById(name).addEventListener("click", async () => {
        const response = await fetch("/app/" + name, { method: "POST" });
        shopify.toast.show(name + " answered " + response.status);
      });</script></body></html>`),
  );
  app.post("/app/upgrade", async (c) => {
    const token = (c.req.header("authorization") ?? "").replace(/^Bearer /, "");
    const payload = await platformApi.session.decodeSessionToken(token);
    const session = sessions.get(new URL(payload.dest).hostname)!;
    const confirmationUrl = await billing.request({ session, plan: "Pro", isTest: true });
    return c.body(null, 401, { "X-Shopify-API-Request-Failure-Reauthorize-Url": confirmationUrl });
  });
  // An address outside the admin and the app: App Bridge must not send the merchant there.
  app.post("/app/elsewhere", (c) =>
    c.body(null, 401, { "X-Shopify-API-Request-Failure-Reauthorize-Url": "http://127.0.0.2:9/phish" }),
  );
}

beforeAll(async () => {
  const app = new Hono();
  embeddedApp(app);
  app.post("/webhooks/*", async (c) => {
    const raw = await c.req.text();
    const check = await platformApi.webhooks.validate({ rawBody: raw, rawRequest: c.req.raw });
    received.push({
      topic: c.req.header("x-shopify-topic") ?? "",
      shopDomain: c.req.header("x-shopify-shop-domain") ?? "",
      body: JSON.parse(raw),
      valid: check.valid && new URL(c.req.url).pathname === `/webhooks/${c.req.header("x-shopify-topic")}`,
    });
    return c.body(null, 200);
  });
  receiver = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  const address = receiver.address();
  appUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  platform = await startPlatformStandIn({
    appUrl,
    apiKey: API_KEY,
    apiSecret: SECRET,
    appHandle: APP_HANDLE,
    scopes: "read_products",
    apiVersion: SHOPIFY_API_VERSION,
    shops: [],
  });
  // The app's route for the library's calls to `https://<shop>.myshopify.com` (installed by ~/shopify.server).
  process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
  resetEnvCache();
  billing = library().billing;
});
afterAll(async () => {
  await platform.close();
  await new Promise((resolve) => receiver.close(resolve));
});

let shopCount = 0;
/** A shop of its own for a test, installed with an offline token, and the app's session for it. */
function newShop() {
  const store = `billing-${++shopCount}`;
  const domain = `${store}.myshopify.com`;
  const accessToken = `shpat_billing_${shopCount}`;
  platform.shops.push(demoShopData({ domain, accessToken }));
  const session = new Session({ id: `offline_${domain}`, shop: domain, state: "", isOnline: false, accessToken });
  sessions.set(domain, session);
  return { store, domain, session };
}
type TestShop = ReturnType<typeof newShop>;

/** `billing.request` of a plan, as a test charge; resolves with what the API answered. */
const requestPlan = async (shop: TestShop, plan: "Pro" | "Plus") => {
  const answer = await billing.request({ session: shop.session, plan, isTest: true, returnObject: true });
  const appSubscription = answer.appSubscription!;
  return { ...answer, appSubscription, chargeId: appSubscription.id.split("/").pop()! };
};

/** The merchant's browser on the confirmation page: submits a decision, follows no redirect. */
const decide = (confirmationUrl: string, decision: "approve" | "decline") =>
  fetch(confirmationUrl, { method: "POST", body: new URLSearchParams({ decision }), redirect: "manual" });

/** Every subscription update the shop's webhooks carried so far, as `[status, name]`. */
const updates = (shop: TestShop) =>
  received
    .filter((entry) => entry.shopDomain === shop.domain && entry.topic === "app_subscriptions/update")
    .map((entry) => [entry.body.app_subscription.status, entry.body.app_subscription.name]);

/** `billing.check` of both plans, test charges included, as an object. */
const check = (shop: TestShop) =>
  billing.check({
    session: shop.session,
    plans: ["Pro", "Plus"],
    isTest: true,
    returnObject: true,
  }) as unknown as Promise<{
    hasActivePayment: boolean;
    // The subscriptions are read field by field.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    appSubscriptions: any[];
  }>;

/** An Admin API call with the shop's token, to the suite's stand-in unless another is named. */
const graphql = async (
  shop: Pick<TestShop, "session">,
  query: string,
  variables: Record<string, unknown> = {},
  origin = platform.origin,
) => {
  const response = await fetch(`${origin}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-access-token": shop.session.accessToken! },
    body: JSON.stringify({ query, variables }),
  });
  // The answers are read field by field.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

describe("a charge the app requests", () => {
  it("is PENDING, with a confirmation page on the stand-in's admin that states its terms", async () => {
    // GIVEN a shop with the app installed
    const shop = newShop();
    // WHEN the app requests the Pro plan with the platform library
    const { appSubscription, confirmationUrl } = await requestPlan(shop, "Pro");
    // THEN the subscription is PENDING and the merchant is to confirm it in the stand-in's admin
    expect(appSubscription).toMatchObject({ name: "Pro", status: "PENDING", test: true, trialDays: 7 });
    expect(appSubscription.lineItems[0]!.plan.pricingDetails).toMatchObject({
      price: { amount: "9.99", currencyCode: "USD" },
      interval: "EVERY_30_DAYS",
      discount: null,
    });
    expect(confirmationUrl).toMatch(new RegExp(`^${platform.origin}/store/${shop.store}/charges/\\d+/confirm$`));
    const page = await fetch(confirmationUrl);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('<h2 id="charge-app">Wishlist</h2>');
    expect(text).toContain("<dd>Pro</dd>");
    expect(text).toContain("$9.99 USD every 30 days");
    expect(text).toMatch(/<dt>Free trial<\/dt><dd>7 days/);
    expect(text).toContain("Test charge");
    expect(text).toMatch(/<form method="post"/);
    expect(text).toMatch(/<button type="submit" name="decision" value="approve"[^>]*>Approve<\/button>/);
    expect(text).toMatch(/<button type="submit" name="decision" value="decline"[^>]*>Decline<\/button>/);
    // AND the app is not billed yet
    expect((await check(shop)).hasActivePayment).toBe(false);
  });

  it("approved: ACTIVE for 30 days, the app is sent the signed webhook, the browser goes back with charge_id", async () => {
    const shop = newShop();
    const { confirmationUrl, chargeId, appSubscription } = await requestPlan(shop, "Pro");
    // WHEN the merchant approves it
    const approved = await decide(confirmationUrl, "approve");
    // THEN the browser goes to the return URL (the library's default: the app in the admin, by its client id)
    expect(approved.status).toBe(303);
    const back = approved.headers.get("location")!;
    expect(back).toBe(`${platform.origin}/store/${shop.store}/apps/${API_KEY}?charge_id=${chargeId}`);
    // which the admin opens as the app's page, with charge_id passed on to the app
    const opened = await fetch(back, { redirect: "manual" });
    expect(opened.headers.get("location")).toBe(`/store/${shop.store}/apps/${APP_HANDLE}?charge_id=${chargeId}`);
    // AND the app was sent app_subscriptions/update, signed with its secret, in the platform's format
    const webhook = received.find((entry) => entry.shopDomain === shop.domain)!;
    expect(webhook).toMatchObject({ topic: "app_subscriptions/update", valid: true });
    const subscription = platform.billing.subscriptions(shop.domain)[0]!;
    expect(webhook.body).toEqual({
      app_subscription: {
        admin_graphql_api_id: appSubscription.id,
        name: "Pro",
        status: "ACTIVE",
        admin_graphql_api_shop_id: expect.stringMatching(/^gid:\/\/shopify\/Shop\/\d+$/),
        created_at: new Date(subscription.createdAt).toISOString().replace(/\.\d{3}Z$/, "+00:00"),
        updated_at: new Date(subscription.updatedAt).toISOString().replace(/\.\d{3}Z$/, "+00:00"),
        currency: "USD",
        capped_amount: null,
      },
    });
    // AND the library's check finds the plan active, its period ending 30 days on
    const { hasActivePayment, appSubscriptions } = await check(shop);
    expect(hasActivePayment).toBe(true);
    expect(appSubscriptions).toHaveLength(1);
    expect(appSubscriptions[0]).toMatchObject({ id: appSubscription.id, name: "Pro", status: "ACTIVE", test: true });
    expect(appSubscriptions[0].lineItems[0].plan.pricingDetails.price).toEqual({ amount: 9.99, currencyCode: "USD" });
    // 30 days from the approval, whenever this check runs.
    expect(Date.parse(appSubscriptions[0].currentPeriodEnd)).toBe(subscription.updatedAt + 30 * 24 * 3600_000);
  });

  it("declined: DECLINED, the webhook says so, the browser goes back with charge_id, nothing is active", async () => {
    const shop = newShop();
    const { confirmationUrl, chargeId } = await requestPlan(shop, "Plus");
    const declined = await decide(confirmationUrl, "decline");
    expect(declined.status).toBe(303);
    expect(declined.headers.get("location")).toContain(`charge_id=${chargeId}`);
    expect(updates(shop)).toEqual([["DECLINED", "Plus"]]);
    expect(received.filter((entry) => entry.shopDomain === shop.domain).every((entry) => entry.valid)).toBe(true);
    expect(platform.billing.subscriptions(shop.domain)[0]!.status).toBe("DECLINED");
    expect((await check(shop)).hasActivePayment).toBe(false);
  });

  it("decided once: a second submission changes nothing and says the charge is decided", async () => {
    const shop = newShop();
    const { confirmationUrl } = await requestPlan(shop, "Pro");
    expect((await decide(confirmationUrl, "approve")).status).toBe(303);
    // WHEN the form is sent again (the back button), with the other decision
    const again = await decide(confirmationUrl, "decline");
    // THEN it is refused with a page that says so; the subscription stays ACTIVE and no webhook is sent
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("This charge was decided already: it is active.");
    expect(platform.billing.subscriptions(shop.domain)[0]!.status).toBe("ACTIVE");
    expect(updates(shop)).toEqual([["ACTIVE", "Pro"]]);
    // AND the page shows no buttons any more
    expect(await (await fetch(confirmationUrl)).text()).not.toContain(">Approve</button>");
  });

  it("approving a second plan cancels the first, whose webhook comes first", async () => {
    const shop = newShop();
    const pro = await requestPlan(shop, "Pro");
    await decide(pro.confirmationUrl, "approve");
    const plus = await requestPlan(shop, "Plus");
    // WHEN the merchant approves the upgrade (here without a browser)
    const sent = await platform.billing.approve(shop.domain, plus.chargeId);
    // THEN Pro is cancelled and Plus is active, each sent to the app
    expect(sent.map((entry) => [entry.topic, entry.status, JSON.parse(entry.body).app_subscription.name])).toEqual([
      ["app_subscriptions/update", 200, "Pro"],
      ["app_subscriptions/update", 200, "Plus"],
    ]);
    expect(updates(shop)).toEqual([
      ["ACTIVE", "Pro"],
      ["CANCELLED", "Pro"],
      ["ACTIVE", "Plus"],
    ]);
    const { appSubscriptions } = await check(shop);
    expect(appSubscriptions.map((subscription) => subscription.name)).toEqual(["Plus"]);
  });
});

describe("App Bridge in the stand-in's admin", () => {
  it("sends the whole admin to the confirmation page when the app's fetch asks, and nowhere else", async () => {
    const shop = newShop();
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(PAGE_TIMEOUT_MS);
      const adminUrl = platform.adminUrl(shop.domain);
      await page.goto(adminUrl);
      const frame = page.frameLocator("#app-frame");
      // GIVEN an answer that names an address outside the admin and the app: the admin stays
      await frame.getByRole("button", { name: "Elsewhere" }).click();
      await page.getByText("elsewhere answered 401").waitFor();
      expect(page.url()).toBe(adminUrl);
      // WHEN the merchant upgrades: the app's answer names the charge's confirmation page
      await frame.getByRole("button", { name: "Upgrade" }).click();
      // THEN the whole admin goes there
      await page.waitForURL(new RegExp(`^${platform.origin}/store/${shop.store}/charges/\\d+/confirm$`));
      await page.getByRole("heading", { name: "Approve subscription" }).waitFor();
      // AND once approved, the admin opens the app again with the charge's id
      await page.getByRole("button", { name: "Approve", exact: true }).click();
      const chargeId = platform.billing.subscriptions(shop.domain)[0]!.id;
      await page.waitForURL(`${platform.origin}/store/${shop.store}/apps/${APP_HANDLE}?charge_id=${chargeId}`);
      await expect(frame.locator("#charge").textContent()).resolves.toBe(chargeId);
      expect(platform.billing.subscriptions(shop.domain)[0]!.status).toBe("ACTIVE");
    } finally {
      await browser.close();
    }
  });
});

describe("the app cancels a subscription", () => {
  it("with billing.cancel: CANCELLED, the webhook is sent, nothing is active", async () => {
    const shop = newShop();
    const { confirmationUrl, appSubscription } = await requestPlan(shop, "Pro");
    await decide(confirmationUrl, "approve");
    const cancelled = await billing.cancel({
      session: shop.session,
      subscriptionId: appSubscription.id,
      prorate: true,
    });
    expect(cancelled).toMatchObject({ id: appSubscription.id, status: "CANCELLED", currentPeriodEnd: null });
    // The platform sends the webhook after the mutation answered.
    await until(
      () => updates(shop),
      (seen) => seen.length === 2,
      "the cancellation's webhook",
    );
    expect(updates(shop)).toEqual([
      ["ACTIVE", "Pro"],
      ["CANCELLED", "Pro"],
    ]);
    expect((await check(shop)).hasActivePayment).toBe(false);
    // AND cancelling it again is refused with userErrors (the library throws them as a BillingError)
    const again = await billing
      .cancel({ session: shop.session, subscriptionId: appSubscription.id, prorate: true })
      .catch((error: unknown) => error);
    expect(again).toBeInstanceOf(BillingError);
    expect((again as BillingError).errorData).toEqual([
      { field: ["id"], message: expect.stringContaining("is cancelled: it cannot be cancelled") },
    ]);
  });

  it("a subscription the shop does not have: userErrors, nothing changes", async () => {
    const shop = newShop();
    const other = newShop();
    const { appSubscription, confirmationUrl } = await requestPlan(other, "Pro");
    await decide(confirmationUrl, "approve");
    for (const id of ["gid://shopify/AppSubscription/1", appSubscription.id]) {
      const error = await billing
        .cancel({ session: shop.session, subscriptionId: id })
        .catch((caught: unknown) => caught);
      expect((error as BillingError).errorData).toEqual([{ field: ["id"], message: "Couldn't find subscription" }]);
    }
    expect(platform.billing.subscriptions(other.domain)[0]!.status).toBe("ACTIVE");
  });
});

describe("payments", () => {
  it("a declined payment freezes the subscription (not active); paying makes it active again; each sent", async () => {
    const shop = newShop();
    const { confirmationUrl, chargeId } = await requestPlan(shop, "Pro");
    await decide(confirmationUrl, "approve");
    // WHEN the merchant's payment is declined (the billing page's button)
    const page = await (await fetch(`${platform.origin}/store/${shop.store}/billing`)).text();
    expect(page).toMatch(/<td>ACTIVE<\/td>/);
    expect(page).toContain(">Decline next payment</button>");
    const frozen = await fetch(`${platform.origin}/store/${shop.store}/billing/${chargeId}/freeze`, {
      method: "POST",
      redirect: "manual",
    });
    expect(frozen.status).toBe(303);
    // THEN it is FROZEN, the app is told, and the library finds no active plan
    expect(updates(shop)).toEqual([
      ["ACTIVE", "Pro"],
      ["FROZEN", "Pro"],
    ]);
    expect((await check(shop)).hasActivePayment).toBe(false);
    const frozenPage = await (await fetch(`${platform.origin}/store/${shop.store}/billing`)).text();
    expect(frozenPage).toContain(">Pay now</button>");
    // AND freezing it again is refused
    const refused = await fetch(`${platform.origin}/store/${shop.store}/billing/${chargeId}/freeze`, {
      method: "POST",
      headers: { accept: "application/json" },
    });
    expect(refused.status).toBe(422);
    // WHEN the merchant pays
    const paid = await platform.billing.pay(shop.domain, chargeId);
    expect(paid.status).toBe(200);
    expect(updates(shop).at(-1)).toEqual(["ACTIVE", "Pro"]);
    expect((await check(shop)).hasActivePayment).toBe(true);
  });

  it("the billing page lists the shop's subscriptions, linked from the admin's header", async () => {
    const shop = newShop();
    const pro = await requestPlan(shop, "Pro");
    await platform.billing.decline(shop.domain, pro.chargeId);
    await requestPlan(shop, "Plus");
    const page = await (await fetch(`${platform.origin}/store/${shop.store}/billing`)).text();
    const rows = [...page.matchAll(/<tr data-subscription="(\d+)"><th scope="row">(\w+)<br>[\s\S]*?<td>(\w+)<\/td>/g)];
    expect(rows.map(([, , name, status]) => [name, status])).toEqual([
      ["Plus", "PENDING"],
      ["Pro", "DECLINED"],
    ]);
    expect(page).toContain("<td>Test</td>");
    expect(page).toContain(`href="/store/${shop.store}/charges/${rows[0]![1]}/confirm"`);
    const flow = await (await fetch(`${platform.origin}/store/${shop.store}/flow`)).text();
    expect(flow).toContain(`<a href="/store/${shop.store}/billing">App billing</a>`);
  });
});

describe("the Admin API's billing fields", () => {
  it("refuses what the platform refuses (an unknown field, a usage line item, a blank name); an interval left out is 30 days", async () => {
    const shop = newShop();
    const unknownField = await graphql(shop, "{ currentAppInstallation { activeSubscriptions { id price } } }");
    expect(unknownField.body.data).toBeUndefined();
    expect(unknownField.body.errors[0].message).toBe('Cannot query field "price" on type "AppSubscription".');
    const create = `mutation ($name: String!, $lineItems: [AppSubscriptionLineItemInput!]!) {
      appSubscriptionCreate(name: $name, returnUrl: "https://example.com/back", lineItems: $lineItems) {
        appSubscription { id } confirmationUrl userErrors { field message } } }`;
    const usage = await graphql(shop, create, {
      name: "Metered",
      lineItems: [
        { plan: { appUsagePricingDetails: { terms: "1 cent", cappedAmount: { amount: 10, currencyCode: "USD" } } } },
      ],
    });
    expect(usage.body.data.appSubscriptionCreate).toMatchObject({ appSubscription: null, confirmationUrl: null });
    expect(usage.body.data.appSubscriptionCreate.userErrors).toHaveLength(1);
    const blank = await graphql(shop, create, {
      name: " ",
      lineItems: [{ plan: { appRecurringPricingDetails: { price: { amount: "5", currencyCode: "USD" } } } }],
    });
    expect(blank.body.data.appSubscriptionCreate.userErrors).toEqual([
      { field: ["name"], message: "Name can't be blank" },
    ]);
    const missingInterval = await graphql(shop, create, {
      name: "Basic",
      lineItems: [{ plan: { appRecurringPricingDetails: { price: { amount: "5", currencyCode: "USD" } } } }],
    });
    expect(missingInterval.body.data.appSubscriptionCreate.userErrors).toEqual([]);
    expect(platform.billing.subscriptions(shop.domain).map((subscription) => subscription.interval)).toEqual([
      "EVERY_30_DAYS",
    ]);
  });
});

describe("uninstalling the app", () => {
  it("cancels its subscriptions, revokes its token and sends the webhooks, app/uninstalled last", async () => {
    const shop = newShop();
    const { confirmationUrl } = await requestPlan(shop, "Pro");
    await decide(confirmationUrl, "approve");
    const sent = await platform.uninstall(shop.domain);
    expect(sent.map((entry) => [entry.topic, entry.status])).toEqual([
      ["app_subscriptions/update", 200],
      ["app/uninstalled", 200],
    ]);
    expect(updates(shop).at(-1)).toEqual(["CANCELLED", "Pro"]);
    const uninstalled = received.find(
      (entry) => entry.shopDomain === shop.domain && entry.topic === "app/uninstalled",
    )!;
    expect(uninstalled.valid).toBe(true);
    expect(uninstalled.body).toMatchObject({ myshopify_domain: shop.domain, domain: shop.domain, name: "Demo Shop" });
    expect(typeof uninstalled.body.id).toBe("number");
    // The app's token no longer opens the Admin API.
    expect((await graphql(shop, "{ shop { name } }")).status).toBe(401);
  });
});

describe("the state file", () => {
  it("keeps the subscriptions from one start to the next", async () => {
    const directory = mkdtempSync(path.join(tmpdir(), "stand-in-billing-"));
    const stateFile = path.join(directory, "state.json");
    const start = () =>
      startPlatformStandIn({
        appUrl,
        apiKey: API_KEY,
        apiSecret: SECRET,
        appHandle: APP_HANDLE,
        scopes: "read_products",
        shops: [demoShopData({ domain: "kept.myshopify.com", accessToken: "shpat_kept" })],
        stateFile,
      });
    const kept = {
      session: new Session({
        id: "kept",
        shop: "kept.myshopify.com",
        state: "",
        isOnline: false,
        accessToken: "shpat_kept",
      }),
    };
    try {
      // GIVEN a stand-in with a state file, where the app's subscription was approved
      const first = await start();
      const created = await graphql(
        kept,
        `
          mutation {
            appSubscriptionCreate(
              name: "Pro"
              returnUrl: "https://example.com/back"
              test: true
              lineItems: [{ plan: { appRecurringPricingDetails: { price: { amount: "9.99", currencyCode: USD } } } }]
            ) {
              appSubscription {
                id
              }
              userErrors {
                message
              }
            }
          }
        `,
        {},
        first.origin,
      );
      const data = created.body.data;
      await first.billing.approve("kept.myshopify.com", data.appSubscriptionCreate.appSubscription.id);
      await first.close();
      // WHEN it starts again
      const second = await start();
      // THEN the subscription is as it was
      expect(second.billing.subscriptions("kept.myshopify.com")).toMatchObject([{ name: "Pro", status: "ACTIVE" }]);
      await second.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
