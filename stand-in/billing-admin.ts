/**
 * The stand-in admin's side of app billing (stand-in/billing.ts holds the rules):
 *  - the confirmation page of a charge (`/store/<shop>/charges/<id>/confirm`, the `confirmationUrl` that
 *    `appSubscriptionCreate` answers with), where the merchant approves or declines it; the app is sent
 *    `app_subscriptions/update`, then the browser goes back to the charge's return URL with `charge_id`, as the
 *    platform sends it;
 *  - the shop's app charges (`/store/<shop>/billing`), where a payment is declined ("Decline next payment": the
 *    platform freezes the subscription) or made ("Pay now"), each sent to the app as `app_subscriptions/update`;
 *  - the uninstall of the app: its subscriptions are cancelled and the app is sent their webhooks and
 *    `app/uninstalled`.
 * For tests and scripts, as the orders page's forms are: `POST /store/<shop>/billing/<id>/freeze` and `.../pay`
 * answer a caller that accepts JSON with `{ webhook }` or 422 `{ error }`.
 */
import { randomBytes } from "node:crypto";
import { Hono, type Context } from "hono";
import { adminHeader, answerAdminAction, escapeHtml, html, type HeaderLink } from "./admin-chrome";
import {
  cancelSubscription,
  decideSubscription,
  findSubscription,
  freezeSubscription,
  paySubscription,
  shopBody,
  shopRestId,
  subscriptionUpdateBody,
  subscriptionsOf,
  type StandInAppSubscription,
} from "./billing";
import type { StandInShop } from "./demo-data";
import { formatMoney, minorUnits } from "./money";
import type { SentWebhook, WebhookLog } from "./platform-webhooks";

export interface BillingAdminOptions {
  shops: StandInShop[];
  /** Where the webhooks are sent from and recorded (shared with the product and order admins). */
  webhooks: WebhookLog;
  appName: string;
  /** The stand-in's origin (known once it listens): the confirmation pages' and the admin's. */
  origin: () => string;
  links: (store: string) => HeaderLink[];
  /** Called after a subscription changed outside a request to the stand-in: the state file keeps it. */
  changed: () => void;
}

/** What the Admin API needs of the billing admin (stand-in/admin-graphql.ts). */
export interface BillingHooks {
  /** Where the merchant approves or declines the charge. */
  confirmationUrl(shop: StandInShop, subscription: StandInAppSubscription): string;
  /** Sends `app_subscriptions/update` for each, in order, after the API has answered (as the platform does). */
  updated(shop: StandInShop, subscriptions: StandInAppSubscription[]): void;
}

/** The platform's admin, which a return URL may name (the library's default is the app's page there). */
const PLATFORM_ADMIN_ORIGIN = "https://admin.shopify.com";

const storeName = (domain: string) => domain.replace(/\.myshopify\.com$/, "");

const at = (time: number) => new Date(time).toISOString().replace("T", " ").slice(0, 16) + " UTC";

/** "$10.00 USD every 30 days", as the confirmation page states the price. */
const priceText = (subscription: StandInAppSubscription) =>
  `${formatMoney(minorUnits(subscription.price.amount), subscription.price.currencyCode)} ${subscription.price.currencyCode} ${
    subscription.interval === "ANNUAL" ? "every year" : "every 30 days"
  }`;

export function createBillingAdmin(options: BillingAdminOptions) {
  const { shops, webhooks, appName } = options;
  const byStore = (store: string) => shops.find((shop) => storeName(shop.domain) === store);

  const sendUpdate = (shop: StandInShop, subscription: StandInAppSubscription) =>
    webhooks.send(shop.domain, "app_subscriptions/update", subscription.id, subscriptionUpdateBody(shop, subscription));

  async function sendUpdates(shop: StandInShop, changed: StandInAppSubscription[]): Promise<SentWebhook[]> {
    const sent: SentWebhook[] = [];
    for (const subscription of changed) sent.push(await sendUpdate(shop, subscription));
    return sent;
  }

  function subscriptionOf(shop: StandInShop, id: string): StandInAppSubscription {
    const subscription = findSubscription(shop, id);
    if (!subscription) throw new Error(`No app subscription ${id} in ${shop.domain}`);
    return subscription;
  }

  /** The merchant's decision; resolves with the webhooks sent (a replaced subscription's first). */
  async function decide(shop: StandInShop, id: string, approve: boolean): Promise<SentWebhook[]> {
    const changed = decideSubscription(shop, subscriptionOf(shop, id), approve);
    options.changed();
    return sendUpdates(shop, changed);
  }

  async function freeze(shop: StandInShop, id: string): Promise<SentWebhook> {
    const subscription = subscriptionOf(shop, id);
    freezeSubscription(subscription);
    options.changed();
    return sendUpdate(shop, subscription);
  }

  async function pay(shop: StandInShop, id: string): Promise<SentWebhook> {
    const subscription = subscriptionOf(shop, id);
    paySubscription(subscription);
    options.changed();
    return sendUpdate(shop, subscription);
  }

  /**
   * The merchant uninstalls the app. The platform cancels the app's charges and revokes its access token (a
   * token exchange, the app's reinstall, issues a new one); the app is sent `app_subscriptions/update` for each
   * subscription cancelled, then `app/uninstalled` (the platform promises no order between them).
   */
  async function uninstall(shop: StandInShop): Promise<SentWebhook[]> {
    const now = Date.now();
    const cancelled = subscriptionsOf(shop).filter(
      (subscription) => subscription.status === "ACTIVE" || subscription.status === "FROZEN",
    );
    for (const subscription of cancelled) cancelSubscription(subscription, now);
    shop.accessToken = `shpat_${randomBytes(16).toString("hex")}`;
    options.changed();
    const sent = await sendUpdates(shop, cancelled);
    sent.push(await webhooks.send(shop.domain, "app/uninstalled", shopRestId(shop), shopBody(shop, now)));
    return sent;
  }

  /** Where the merchant goes once the charge is decided: its return URL, with `charge_id` added. */
  function returnTarget(subscription: StandInAppSubscription): string {
    const target = new URL(subscription.returnUrl);
    // The platform's admin is the stand-in here: the app's page there is the stand-in's admin page of the app.
    const url =
      target.origin === PLATFORM_ADMIN_ORIGIN
        ? new URL(`${target.pathname}${target.search}`, options.origin())
        : target;
    url.searchParams.set("charge_id", subscription.id);
    return url.href;
  }

  const hooks: BillingHooks = {
    confirmationUrl: (shop, subscription) =>
      `${options.origin()}/store/${storeName(shop.domain)}/charges/${subscription.id}/confirm`,
    updated: (shop, changed) => {
      void sendUpdates(shop, changed);
    },
  };

  const app = new Hono();

  const page = (shop: StandInShop, store: string, title: string, main: string) =>
    html(
      `${title} · ${shop.name}`,
      `${adminHeader({ shopName: shop.name, badge: "Billing (platform stand-in)", links: options.links(store) })}
      <main class="editor">${main}</main>`,
    );

  /** The page of a charge the merchant decided already (or the app cancelled): nothing left to do here. */
  const decidedPage = (shop: StandInShop, store: string, subscription: StandInAppSubscription) =>
    page(
      shop,
      store,
      "Charge decided",
      `<h1>${escapeHtml(appName)}: ${escapeHtml(subscription.name)}</h1>
      <div class="editor-card"><p role="status">This charge was decided already: it is ${escapeHtml(subscription.status.toLowerCase())}. Nothing was changed.</p>
        <a class="admin-button" href="/store/${escapeHtml(store)}/billing">App billing</a></div>`,
    );

  app.get("/store/:store/charges/:id/confirm", (c) => {
    const store = c.req.param("store");
    const shop = byStore(store);
    const subscription = shop && findSubscription(shop, c.req.param("id"));
    if (!shop || !subscription) return c.text("No such charge in the platform stand-in", 404);
    if (subscription.status !== "PENDING") return c.html(decidedPage(shop, store, subscription));
    return c.html(
      page(
        shop,
        store,
        "Approve subscription",
        `<h1>Approve subscription</h1>
        <section class="editor-card" aria-labelledby="charge-app">
          <h2 id="charge-app">${escapeHtml(appName)}</h2>
          <dl class="charge-terms">
            <dt>Plan</dt><dd>${escapeHtml(subscription.name)}</dd>
            <dt>Price</dt><dd>${escapeHtml(priceText(subscription))}</dd>
            <dt>Free trial</dt><dd>${subscription.trialDays > 0 ? `${subscription.trialDays} days: billing starts when the trial ends` : "None"}</dd>
          </dl>
          ${subscription.test ? `<p class="editor-hint" role="note">Test charge: the shop will not be billed for it.</p>` : ""}
          <form method="post" class="admin-actions">
            <button type="submit" name="decision" value="decline" class="admin-button">Decline</button>
            <button type="submit" name="decision" value="approve" class="admin-button admin-button--primary">Approve</button>
          </form>
        </section>`,
      ),
    );
  });

  app.post("/store/:store/charges/:id/confirm", async (c) => {
    const store = c.req.param("store");
    const shop = byStore(store);
    const subscription = shop && findSubscription(shop, c.req.param("id"));
    if (!shop || !subscription) return c.text("No such charge in the platform stand-in", 404);
    const decision = (await c.req.parseBody()).decision;
    if (decision !== "approve" && decision !== "decline") return c.text("Approve or decline the charge", 400);
    // A second submission (the back button, a double click) finds the charge decided and changes nothing.
    if (subscription.status !== "PENDING") return c.html(decidedPage(shop, store, subscription), 409);
    await decide(shop, subscription.id, decision === "approve");
    return c.redirect(returnTarget(subscription), 303);
  });

  app.get("/store/:store/billing", (c) => {
    const store = c.req.param("store");
    const shop = byStore(store);
    if (!shop) return c.text("No such shop in the platform stand-in", 404);
    const message = c.req.query("error");
    const subscriptions = [...subscriptionsOf(shop)].reverse();
    const rows = subscriptions.map((subscription) => subscriptionRow(store, subscription)).join("");
    const ids = new Set([...subscriptions.map((subscription) => subscription.id), shopRestId(shop)]);
    const log = webhooks.sent
      .filter((entry) => entry.shopDomain === shop.domain && ids.has(entry.subjectId))
      .reverse()
      .map(
        (
          entry,
        ) => `<tr><td><time datetime="${new Date(entry.deliveredAt).toISOString()}">${at(entry.deliveredAt)}</time></td>
          <td><code>${escapeHtml(entry.topic)}</code></td><td>${escapeHtml(entry.subjectId)}</td>
          <td class="${entry.status >= 200 && entry.status < 300 ? "status-ok" : "status-bad"}">${entry.status || "not delivered"}${entry.error ? ` (${escapeHtml(entry.error)})` : ""}</td></tr>`,
      )
      .join("");
    return c.html(
      html(
        `App billing · ${shop.name}`,
        `${adminHeader({ shopName: shop.name, badge: "Billing (platform stand-in)", links: options.links(store) })}
        <main class="editor wide"><h1>${escapeHtml(appName)}: app subscriptions</h1>
          ${message ? `<p class="status-bad" role="alert">${escapeHtml(message)}</p>` : ""}
          <p class="editor-hint">The charges the app asked this shop for, newest first. "Decline next payment" is the platform freezing a subscription whose payment failed; "Pay now" is the merchant paying, which makes it active again. Each change is sent to the app as app_subscriptions/update.</p>
          ${
            subscriptions.length
              ? `<table class="admin-table" aria-label="App subscriptions"><thead><tr><th scope="col">Plan</th><th scope="col">Status</th><th scope="col">Price</th><th scope="col">Test</th><th scope="col">Created</th><th scope="col">Action</th></tr></thead><tbody>${rows}</tbody></table>`
              : `<div class="editor-card"><p>None yet.</p></div>`
          }
          ${log ? `<h2>Webhooks sent</h2><table class="admin-table" aria-label="Billing webhooks sent"><thead><tr><th scope="col">Sent</th><th scope="col">Topic</th><th scope="col">About</th><th scope="col">App's answer</th></tr></thead><tbody>${log}</tbody></table>` : ""}
        </main>`,
      ),
    );
  });

  function subscriptionRow(store: string, subscription: StandInAppSubscription) {
    const base = `/store/${escapeHtml(store)}`;
    const action =
      subscription.status === "ACTIVE"
        ? `<form method="post" action="${base}/billing/${escapeHtml(subscription.id)}/freeze"><button type="submit" class="admin-button admin-button--critical">Decline next payment</button></form>`
        : subscription.status === "FROZEN"
          ? `<form method="post" action="${base}/billing/${escapeHtml(subscription.id)}/pay"><button type="submit" class="admin-button admin-button--primary">Pay now</button></form>`
          : subscription.status === "PENDING"
            ? `<a href="${base}/charges/${escapeHtml(subscription.id)}/confirm">Confirmation page</a>`
            : "";
    return `<tr data-subscription="${escapeHtml(subscription.id)}"><th scope="row">${escapeHtml(subscription.name)}<br><small>charge ${escapeHtml(subscription.id)}</small></th>
      <td>${escapeHtml(subscription.status)}</td><td>${escapeHtml(priceText(subscription))}${subscription.trialDays > 0 ? `<br><small>${subscription.trialDays}-day trial</small>` : ""}</td>
      <td>${subscription.test ? "Test" : "No"}</td>
      <td><time datetime="${new Date(subscription.createdAt).toISOString()}">${at(subscription.createdAt)}</time></td><td>${action}</td></tr>`;
  }

  /** Where a POST goes once done: JSON for a caller that accepts it, else back to the page. */
  const act = (c: Context, run: (shop: StandInShop) => Promise<SentWebhook>) =>
    answerAdminAction(c, { shop: byStore(c.req.param("store")!), page: "billing" }, run);

  app.post("/store/:store/billing/:id/freeze", (c) => act(c, (shop) => freeze(shop, c.req.param("id"))));
  app.post("/store/:store/billing/:id/pay", (c) => act(c, (shop) => pay(shop, c.req.param("id"))));

  return {
    app,
    hooks,
    approve: (shop: StandInShop, id: string) => decide(shop, id, true),
    decline: (shop: StandInShop, id: string) => decide(shop, id, false),
    freeze,
    pay,
    uninstall,
  };
}
