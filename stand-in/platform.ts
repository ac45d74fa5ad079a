/**
 * A local stand-in for the commerce platform, for `npm run dev` and the tests only (never mounted in
 * production; production refuses the variables that point the app at it). One HTTP server on loopback:
 *  - the Admin GraphQL API of its shops (`/admin/api/<version>/graphql.json`, offline token checked);
 *  - the shop admin around the embedded app (`/store/<name>/apps/<handle>/...`): frames the app's `/app`
 *    pages with the parameters and session token the platform passes, and draws App Bridge's chrome;
 *  - the App Bridge script stand-in (`/app-bridge.js`) the app's pages load instead of the platform's;
 *  - the theme editor's app-embed switch, which the embed status reads back through the Admin API;
 *  - the OAuth token exchange (`/admin/oauth/access_token`), which the platform library calls when an
 *    admin request carries a session token and the app holds no session for the shop (an install or a
 *    reinstall); the app's dev and test runs route each shop's https origin here
 *    (app/services/platform/stand-in-routing.server.ts);
 *  - product pages where the merchant changes prices and stock or deletes a product, each change sent to
 *    the app as the platform's signed webhooks (stand-in/product-admin.ts), and product images
 *    (`/cdn/shop/files/<handle>.svg`) that the Admin API's image URLs point at;
 *  - the orders placed with the storefront's checkout, at `/store/<name>/orders`, where the merchant cancels
 *    one or refunds an item; the app gets each as the platform's signed order webhooks (stand-in/order-admin.ts);
 *  - the Flow triggers the app sent (`flowTriggerReceive`), listed at `/store/<name>/flow`;
 *  - app billing: the subscriptions the app creates (`appSubscriptionCreate`), each with a confirmation page
 *    where the merchant approves or declines it, and the shop's charges at `/store/<name>/billing`, where a
 *    payment is declined or made; the app gets each change as the signed `app_subscriptions/update`
 *    (stand-in/billing-admin.ts);
 *  - with the `mailbox` option, a local SMTP server keeping what the app sends (stand-in/mailbox.ts) and its
 *    pages at `/mailbox` (stand-in/mailbox-pages.ts);
 *  - on a second port (an origin of its own, as a shop's domain is), the first shop's online store with the
 *    theme app extension, the app proxy and a checkout (stand-in/online-store.ts).
 * docs/admin.md and docs/storefront.md say how it fits together.
 */
import { createHmac } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { Hono, type Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { adminHeader, escapeHtml, html, type HeaderLink } from "./admin-chrome";
import { answerAdminGraphql, type FlowTriggerCall } from "./admin-graphql";
import { subscriptionsOf, type StandInAppSubscription } from "./billing";
import { createBillingAdmin } from "./billing-admin";
import { productImageSvg, productOfImage, type VariantChange } from "./catalogue";
import { STAND_IN_EXTENSION_ID, type StandInShop } from "./demo-data";
import { orderBody } from "./orders";
import { startMailbox, type Mailbox } from "./mailbox";
import { mailboxPages } from "./mailbox-pages";
import { createOrderAdmin } from "./order-admin";
import { createWebhookLog, type SentWebhook } from "./platform-webhooks";
import { createProductAdmin } from "./product-admin";
import { adminHost, signSessionToken, verifySessionToken } from "./session-token";
import { createStorefront, type StorefrontControls } from "./online-store";

export interface PlatformStandInOptions {
  /** The app's public URL (SHOPIFY_APP_URL): the admin frames `<appUrl>/app`. */
  appUrl: string;
  apiKey: string;
  apiSecret: string;
  /** `handle` in shopify.app.toml: the admin's app path and the app embed's block type. */
  appHandle: string;
  appName?: string;
  /** The scopes the token exchange grants (SCOPES: what shopify.app.toml asks for). */
  scopes: string;
  shops: StandInShop[];
  port?: number;
  /** The port of the first shop's storefront; 0 or unset: any free port. */
  storefrontPort?: number;
  /** The address to listen on: loopback. */
  host?: string;
  /** `X-Shopify-API-Version` of the webhooks it sends (the app's API version). */
  apiVersion?: string;
  /**
   * A JSON file that keeps each shop's theme (its app embed, switched on or off in the theme editor), its
   * orders and the app's subscriptions from one start to the next, as the platform keeps them: read at start,
   * written after each change.
   * Unset: kept in memory only (tests). The app's metafields are not kept: the app's database, which a
   * developer may reset, is what says which it wrote.
   */
  stateFile?: string;
  /** Start the local mailbox (an SMTP server on loopback) on this port (0: any free port); unset: none. */
  mailbox?: { port: number };
}

/** What the stand-in keeps of a shop in `stateFile`. */
type KeptState = Pick<StandInShop, "theme" | "orders" | "appSubscriptions">;

function restoreState(file: string, shops: StandInShop[]): void {
  let kept: Record<string, KeptState>;
  try {
    kept = JSON.parse(readFileSync(file, "utf8")) as Record<string, KeptState>;
  } catch {
    return; // none yet, or unreadable: the shops start as given
  }
  for (const shop of shops) {
    const state = kept[shop.domain];
    if (!state) continue;
    if (state.theme?.blocks) shop.theme.blocks = state.theme.blocks;
    if (Array.isArray(state.orders)) shop.orders = state.orders;
    if (Array.isArray(state.appSubscriptions)) shop.appSubscriptions = state.appSubscriptions;
  }
}

function keepState(file: string, shops: StandInShop[]): void {
  const state: Record<string, KeptState> = Object.fromEntries(
    shops.map((shop) => [
      shop.domain,
      { theme: shop.theme, orders: shop.orders, appSubscriptions: shop.appSubscriptions },
    ]),
  );
  mkdirSync(path.dirname(file), { recursive: true });
  // Written whole, then renamed: a stop in the middle leaves the last state, not half of one.
  writeFileSync(`${file}.tmp`, JSON.stringify(state, null, 2));
  renameSync(`${file}.tmp`, file);
}

export interface PlatformStandIn {
  origin: string;
  /** The admin page that opens the app for a shop, optionally on one of its pages (`/lists`). */
  adminUrl(shopDomain: string, appPath?: string): string;
  /** The first shop's online store (the app proxy at /apps/service). */
  storefrontOrigin: string;
  /** Test hooks of the storefront's app proxy. */
  storefront: StorefrontControls;
  /**
   * Deletes a product from a shop's catalogue as the merchant does in the admin: the Admin API and the
   * storefront stop knowing it, and the app gets the signed products/delete webhook. Resolves with the
   * app's answer status.
   */
  deleteProduct(shopDomain: string, productId: string): Promise<number>;
  /**
   * Changes a variant as the merchant does on the product page: the catalogue changes (Admin API, storefront),
   * then the app gets `products/update`, and `inventory_levels/update` for a stock change. Resolves with what
   * was sent and the app's answer to each (status 0: not reachable); throws on a value the admin refuses or
   * an unknown variant.
   */
  updateVariant(shopDomain: string, variantId: string, change: VariantChange): Promise<SentWebhook[]>;
  /** Every webhook the stand-in sent the app (the last 200), oldest first; a redelivery is one more. */
  sentWebhooks: SentWebhook[];
  /**
   * Sends a webhook of `sentWebhooks` again as the platform retries one (the same body, webhook id and event
   * id, signed again); resolves with the delivery, recorded in `sentWebhooks` too.
   */
  redeliverWebhook(webhookId: string): Promise<SentWebhook>;
  /**
   * The orders placed on a shop's storefront as the platform's REST Admin API has them (what `orders/*`
   * webhooks carry, as they are now), newest first; `GET /store/<name>/orders.json` answers the same.
   */
  orders(shopDomain: string): Array<ReturnType<typeof orderBody>>;
  /**
   * Cancels an order as the merchant does on the Orders page and sends `orders/cancelled`; resolves with the
   * delivery, rejects when the order is unknown or cancelled already.
   */
  cancelOrder(shopDomain: string, orderId: string): Promise<SentWebhook>;
  /**
   * Refunds `quantity` (1 unless given) of an order's line item, as "Refund one item" does, and sends
   * `refunds/create`; resolves with the delivery, rejects when there is not that much left to refund.
   */
  refundLineItem(shopDomain: string, orderId: string, lineItemId: string, quantity?: number): Promise<SentWebhook>;
  /** Each `flowTriggerReceive` the Admin API accepted, oldest first. */
  flowTriggers: FlowTriggerCall[];
  /**
   * Turns a workflow that starts with one of the app's Flow triggers on or off for a shop, as a merchant does
   * in Flow: Flow then sends the app its trigger lifecycle callback (signed with the app's secret). Resolves
   * with the app's answer status (0: the app could not be reached).
   */
  setFlowWorkflow(shopDomain: string, triggerHandle: string, enabled: boolean): Promise<number>;
  /**
   * The app's subscriptions as the platform bills them, for tests that play the merchant without a browser.
   * `id` is a subscription's REST id (`charge_id`) or its GraphQL id. Each change resolves with the
   * `app_subscriptions/update` deliveries it made (and the app's answers); each throws when the subscription is
   * unknown or not in the state the change needs.
   */
  billing: {
    /** The shop's subscriptions, oldest first, as they now are. */
    subscriptions(shopDomain: string): StandInAppSubscription[];
    /** "Approve" on the confirmation page: ACTIVE; the shop's previous subscription is CANCELLED (its webhook first). */
    approve(shopDomain: string, id: string): Promise<SentWebhook[]>;
    /** "Decline" on the confirmation page: DECLINED. */
    decline(shopDomain: string, id: string): Promise<SentWebhook[]>;
    /** A payment declined: the ACTIVE subscription is FROZEN. */
    freeze(shopDomain: string, id: string): Promise<SentWebhook>;
    /** The merchant pays: the FROZEN subscription is ACTIVE again. */
    pay(shopDomain: string, id: string): Promise<SentWebhook>;
  };
  /**
   * The merchant uninstalls the app: its ACTIVE and FROZEN subscriptions are CANCELLED and the app's access
   * token is revoked (the next token exchange, the app's reinstall, issues another); resolves with what was sent:
   * `app_subscriptions/update` for each cancelled subscription, then `app/uninstalled` (the shop resource).
   */
  uninstall(shopDomain: string): Promise<SentWebhook[]>;
  /** The local mailbox, when the `mailbox` option started one. */
  mailbox?: Mailbox;
  shops: StandInShop[];
  /** Each offline token the stand-in issued by token exchange, in order. */
  tokenExchanges: Array<{ shopDomain: string; at: number }>;
  close(): Promise<void>;
}

const here = import.meta.dirname;
const asset = (name: string) => readFileSync(path.join(here, name), "utf8");
/** The handles of the app's Flow trigger extensions (extensions/wishlist-flow-*). */
const FLOW_TRIGGER_HANDLES = [
  "wishlist-back-in-stock",
  "wishlist-price-dropped",
  "wishlist-low-stock",
  "wishlist-reminder-due",
];

const storeName = (domain: string) => domain.replace(/\.myshopify\.com$/, "");

/** JSON inside a <script> element: nothing in it may close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

export function embedBlockType(appHandle: string) {
  return `shopify://apps/${appHandle}/blocks/app-embed/${STAND_IN_EXTENSION_ID}`;
}

export async function startPlatformStandIn(options: PlatformStandInOptions): Promise<PlatformStandIn> {
  const { appUrl, apiKey, apiSecret, appHandle, shops } = options;
  const appName = options.appName ?? "Wishlist";
  const appOrigin = new URL(appUrl).origin;
  // Looked up in `shops` at each request: a test may add a shop after the start (`shops.push`).
  const byStore = { get: (store: string) => shops.find((shop) => storeName(shop.domain) === store) };
  const byToken = { get: (token: string) => shops.find((shop) => shop.accessToken === token) };

  const { stateFile } = options;
  if (stateFile) restoreState(stateFile, shops);

  const app = new Hono();
  // What a request may have changed (a POST: the theme editor) is kept for the next start.
  if (stateFile) {
    app.use(async (c, next) => {
      await next();
      if (c.req.method !== "GET" && c.req.method !== "HEAD") keepState(stateFile, shops);
    });
  }
  const exchanges: PlatformStandIn["tokenExchanges"] = [];
  const flowTriggers: FlowTriggerCall[] = [];
  /** Workflows turned on in the stand-in's Flow page, by shop domain and trigger handle. */
  const flowWorkflows = new Map<string, boolean>();
  // Known once the server listens; requests, the only readers, come after.
  let origin = "";
  /** The first shop's storefront's origin, once its server listens. */
  let storefrontOriginValue = "";
  const storefrontOrigin = () => storefrontOriginValue;
  const mailbox = options.mailbox ? await startMailbox({ port: options.mailbox.port, host: options.host }) : undefined;
  /** The stand-in's own tools, linked from every admin page's header. */
  const links = (store: string): HeaderLink[] => [
    { href: `/store/${store}/flow`, label: `Flow triggers (${flowTriggers.length})` },
    { href: `/store/${store}/billing`, label: "App billing" },
    ...(mailbox ? [{ href: "/mailbox", label: `Mailbox (${mailbox.received()})` }] : []),
  ];

  // ---- Admin GraphQL API ------------------------------------------------------------------------------
  app.post("/admin/api/:version/graphql.json", async (c) => {
    const shop = byToken.get(c.req.header("x-shopify-access-token") ?? "");
    if (!shop) {
      return c.json({ errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" }, 401);
    }
    let body: { query?: unknown; variables?: unknown };
    try {
      body = await c.req.json();
    } catch {
      return c.json({ errors: { query: "Required parameter missing or invalid" } }, 400);
    }
    return c.json(await answerAdminGraphql(shop, body, { origin, flowTriggers, billing: billing.hooks }));
  });

  // ---- OAuth token exchange ----------------------------------------------------------------------------
  // The app trades a session token (an id token) for the shop's offline access token. The platform answers
  // errors with OAuth's `error` / `error_description`.
  app.post("/admin/oauth/access_token", async (c) => {
    const refuse = (error: string, description: string, status: 400 | 401 = 400) =>
      c.json({ error, error_description: description }, status);
    let body: Record<string, unknown>;
    try {
      body = await c.req.json();
    } catch {
      return refuse("invalid_request", "The body is not JSON.");
    }
    if (body.client_id !== apiKey || body.client_secret !== apiSecret) {
      return refuse("invalid_client", "Client credentials are invalid.", 401);
    }
    if (body.grant_type !== "urn:ietf:params:oauth:grant-type:token-exchange") {
      return refuse("unsupported_grant_type", "Only the token exchange grant is supported.");
    }
    if (body.requested_token_type !== "urn:shopify:params:oauth:token-type:offline-access-token") {
      return refuse("invalid_request", "The stand-in issues offline access tokens only.");
    }
    const shopDomain = await verifySessionToken(String(body.subject_token ?? ""), { apiKey, apiSecret });
    const shop = shopDomain ? shops.find((candidate) => candidate.domain === shopDomain) : undefined;
    if (!shop) return refuse("invalid_subject_token", "The session token is invalid or names no shop here.");
    exchanges.push({ shopDomain: shop.domain, at: Date.now() });
    return c.json({ access_token: shop.accessToken, scope: options.scopes });
  });

  // ---- scripts ----------------------------------------------------------------------------------------
  const appBridge = asset("app-bridge.js");
  const adminHostScript = asset("admin-host.js");
  const javascript = (source: string) =>
    new Response(source, {
      headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" },
    });
  app.get("/app-bridge.js", () => javascript(appBridge));
  app.get("/favicon.ico", () => new Response(null, { status: 204 }));
  app.get("/admin-host.js", () => javascript(adminHostScript));

  // ---- the shop admin ---------------------------------------------------------------------------------
  app.get("/", (c) => c.redirect(`/store/${storeName(shops[0]!.domain)}/apps/${appHandle}`));
  app.get("/store/:store", (c) => c.redirect(`/store/${c.req.param("store")}/apps/${appHandle}`));

  app.post("/store/:store/session-token", async (c) => {
    const shop = byStore.get(c.req.param("store"));
    if (!shop) return c.json({ error: "unknown shop" }, 404);
    return c.json({ token: await signSessionToken({ shopDomain: shop.domain, apiKey, apiSecret }) });
  });

  app.get(`/store/:store/apps/${appHandle}/*`, (c) => adminPage(c, c.req.param("store")));
  app.get(`/store/:store/apps/${appHandle}`, (c) => adminPage(c, c.req.param("store")));
  // The admin also opens an app by its client id (the platform library's default billing return URL is the
  // app's page there), and answers with the handle's address.
  if (apiKey !== appHandle) {
    app.get(`/store/:store/apps/${apiKey}/*`, (c) => {
      const url = new URL(c.req.url);
      const prefix = `/store/${c.req.param("store")}/apps/`;
      const rest = url.pathname.slice(prefix.length + apiKey.length);
      return c.redirect(`${prefix}${appHandle}${rest}${url.search}`);
    });
    app.get(`/store/:store/apps/${apiKey}`, (c) =>
      c.redirect(`/store/${c.req.param("store")}/apps/${appHandle}${new URL(c.req.url).search}`),
    );
  }

  /**
   * The admin user's language, which the platform passes to the app as `locale` on every embedded load:
   * here a person picks it with `?locale=` on the admin URL (or the header's picker), and the stand-in
   * keeps it in a cookie as the platform keeps it in the user's settings.
   */
  function adminLocale(c: Context): string {
    const chosen = c.req.query("locale");
    if (chosen && /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/.test(chosen)) {
      setCookie(c, ADMIN_LOCALE_COOKIE, chosen, { path: "/", sameSite: "Lax" });
      return chosen;
    }
    return getCookie(c, ADMIN_LOCALE_COOKIE) ?? "en";
  }

  async function adminPage(c: Context, store: string) {
    const shop = byStore.get(store);
    if (!shop) return c.text("No such shop in the platform stand-in", 404);
    const locale = adminLocale(c);
    const url = new URL(c.req.url);
    const basePath = `/store/${store}/apps/${appHandle}`;
    const appPath = `/app${url.pathname.slice(basePath.length).replace(/\/$/, "")}`;
    const frameUrl = new URL(`${appUrl}${appPath}`);
    for (const [name, value] of url.searchParams) if (name !== "locale") frameUrl.searchParams.append(name, value);
    frameUrl.searchParams.set("embedded", "1");
    frameUrl.searchParams.set("host", adminHost(shop.domain));
    frameUrl.searchParams.set("id_token", await signSessionToken({ shopDomain: shop.domain, apiKey, apiSecret }));
    frameUrl.searchParams.set("locale", locale);
    frameUrl.searchParams.set("shop", shop.domain);
    frameUrl.searchParams.set("timestamp", String(Math.floor(Date.now() / 1000)));
    const config = {
      appOrigin,
      appName,
      shopName: shop.name,
      basePath,
      adminPath: `/store/${store}`,
      tokenPath: `/store/${store}/session-token`,
    };
    return c.html(
      html(
        `${appName} · ${shop.name}`,
        `${adminHeader({
          shopName: shop.name,
          badge: "Local admin (platform stand-in)",
          links: links(store),
          extra: `<form id="admin-locale" class="admin-locale" method="get">
          <label for="admin-locale-select">Admin language</label>
          <select id="admin-locale-select" name="locale">${ADMIN_LANGUAGES.map(
            ([code, name]) =>
              `<option value="${code}"${code === locale ? " selected" : ""}>${escapeHtml(name)}</option>`,
          ).join("")}${
            ADMIN_LANGUAGES.some(([code]) => code === locale)
              ? ""
              : `<option value="${escapeHtml(locale)}" selected>${escapeHtml(locale)}</option>`
          }</select>
          <button type="submit" class="admin-button">Change</button>
        </form>`,
        })}
      <div id="save-bar" class="admin-save-bar" hidden>
        <span class="admin-save-bar__label">Unsaved changes</span>
        <span id="save-bar-actions" class="admin-actions"></span>
      </div>
      <div id="loading-bar" class="admin-loading" hidden></div>
      <div class="admin-body">
        <nav class="admin-nav" aria-label="App navigation">
          <a id="app-home" class="admin-nav__app" href="${escapeHtml(basePath)}">${escapeHtml(appName)}</a>
          <ul id="app-nav"></ul>
        </nav>
        <main class="admin-main">
          <div class="admin-title-bar">
            <h1 id="title-bar-title"></h1>
            <span id="title-bar-actions" class="admin-actions"></span>
          </div>
          <iframe id="app-frame" name="app-iframe" title="${escapeHtml(appName)}" src="${escapeHtml(frameUrl.href)}"></iframe>
        </main>
      </div>
      <div id="toasts" class="admin-toasts" aria-live="polite"></div>
      <script id="admin-config" type="application/json">${scriptJson(config)}</script>
      <script src="/admin-host.js"></script>`,
      ),
    );
  }

  // ---- the theme editor's app embed switch --------------------------------------------------------------
  app.get("/store/:store/themes/current/editor", (c) => {
    const shop = byStore.get(c.req.param("store"));
    if (!shop) return c.text("No such shop in the platform stand-in", 404);
    const activate = c.req.query("activateAppId") === `${apiKey}/app-embed`;
    const block = Object.values(shop.theme.blocks).find((candidate) => candidate.type === embedBlockType(appHandle));
    const enabled = block ? !block.disabled : false;
    return c.html(
      html(
        `Theme editor · ${shop.name}`,
        `${adminHeader({ shopName: shop.name, badge: "Theme editor (platform stand-in)", links: links(c.req.param("store")) })}
        <main class="editor">
          <h1>${escapeHtml(shop.theme.name)}: App embeds</h1>
          <form method="post" class="editor-card">
            <label class="editor-toggle"><input type="checkbox" name="enabled" value="on" ${activate || enabled ? "checked" : ""}>
              <span>${escapeHtml(appName)}: app embed</span></label>
            <p class="editor-hint">${activate && !enabled ? "Opened from the app: the embed is switched on below; save to publish it." : "Switch the embed on or off, then save."}</p>
            <button type="submit" class="admin-button admin-button--primary">Save</button>
            <a class="admin-button" href="/store/${escapeHtml(c.req.param("store"))}/apps/${escapeHtml(appHandle)}">Back to ${escapeHtml(appName)}</a>
          </form>
        </main>`,
      ),
    );
  });

  app.post("/store/:store/themes/current/editor", async (c) => {
    const store = c.req.param("store");
    const shop = byStore.get(store);
    if (!shop) return c.text("No such shop in the platform stand-in", 404);
    const form = await c.req.parseBody();
    setEmbed(shop, form.enabled === "on");
    return c.redirect(`/store/${store}/themes/current/editor?saved=1`, 303);
  });

  const webhooks = createWebhookLog({ appOrigin, apiSecret, apiVersion: options.apiVersion ?? "unstable" });
  const products = createProductAdmin({
    shops,
    webhooks,
    appHandle,
    appName,
    origin: () => origin,
    links,
  });
  app.route("/", products.app);
  const orders = createOrderAdmin({
    shops,
    webhooks,
    links,
    // A change made by the storefront's checkout or a test's call, outside the admin's requests.
    changed: () => {
      if (stateFile) keepState(stateFile, shops);
    },
  });
  app.route("/", orders.app);
  const billing = createBillingAdmin({
    shops,
    webhooks,
    appName,
    origin: () => origin,
    links,
    changed: () => {
      if (stateFile) keepState(stateFile, shops);
    },
  });
  app.route("/", billing.app);

  app.get("/cdn/shop/files/:file", (c) => {
    for (const shop of shops) {
      const product = productOfImage(shop, c.req.param("file"));
      if (product) {
        return c.body(productImageSvg(product), 200, {
          "content-type": "image/svg+xml",
          "cache-control": "max-age=3600",
        });
      }
    }
    return c.text("Not found", 404);
  });

  // ---- Flow: the triggers the app sent ----------------------------------------------------------------
  app.get("/store/:store/flow", (c) => {
    const store = c.req.param("store");
    const shop = byStore.get(store);
    if (!shop) return c.text("No such shop in the platform stand-in", 404);
    const received = flowTriggers.filter((call) => call.shopDomain === shop.domain).reverse();
    const rows = received.map(flowTriggerRow).join("");
    return c.html(
      html(
        `Flow triggers · ${shop.name}`,
        `${adminHeader({ shopName: shop.name, badge: "Flow (platform stand-in)", links: links(store) })}
        <main class="editor wide"><h1>Flow triggers received</h1>
          <p class="editor-hint">What the app sent with flowTriggerReceive, newest first. The platform would start the shop's workflows that begin with each trigger; the stand-in only keeps them.</p>
          ${c.req.query("callback") ? `<p class="editor-hint" role="status">The app answered the lifecycle callback with HTTP ${escapeHtml(c.req.query("callback") ?? "")}.</p>` : ""}
          <div class="editor-card"><h2>Workflows</h2>
            <p class="editor-hint">A workflow that starts with one of the app's triggers. Turning one on or off sends the app Flow's lifecycle callback; the app sends a trigger only while a workflow uses it.</p>
            ${FLOW_TRIGGER_HANDLES.map((handle) => {
              const on = flowWorkflows.get(`${shop.domain}\u0000${handle}`) === true;
              return `<form method="post" action="/store/${escapeHtml(store)}/flow/workflows" class="editor-toggle">
                <input type="hidden" name="trigger" value="${escapeHtml(handle)}">
                ${on ? "" : '<input type="hidden" name="enabled" value="on">'}
                <span>${escapeHtml(handle)}: ${on ? "on" : "off"}</span>
                <button type="submit" class="admin-button">${on ? "Turn off" : "Turn on"}</button></form>`;
            }).join("")}
          </div>
          ${received.length ? `<table class="admin-table"><thead><tr><th scope="col">Received</th><th scope="col">Handle</th><th scope="col">Payload</th></tr></thead><tbody>${rows}</tbody></table>` : `<div class="editor-card"><p>None yet.</p></div>`}
        </main>`,
      ),
    );
  });

  app.post("/store/:store/flow/workflows", async (c) => {
    const store = c.req.param("store");
    const shop = byStore.get(store);
    if (!shop) return c.text("No such shop in the platform stand-in", 404);
    const form = await c.req.parseBody();
    const handle = String(form.trigger ?? "");
    if (!FLOW_TRIGGER_HANDLES.includes(handle)) return c.text("No such trigger of the app", 400);
    const status = await sendFlowLifecycle(shop, handle, form.enabled === "on");
    return c.redirect(`/store/${store}/flow?callback=${status}`, 303);
  });

  if (mailbox) {
    app.route(
      "/",
      mailboxPages({
        mailbox,
        links: () => links(storeName(shops[0]!.domain)),
        // The emails link to the shop's own domain; on this machine that is the local storefront.
        shopOrigins: () => ({ [`https://${shops[0]!.domain}`]: storefrontOrigin() }),
      }),
    );
  }

  const listen = (fetch: (request: Request, env: unknown) => Response | Promise<Response>, port?: number) =>
    new Promise<ServerType>((resolve, reject) => {
      const started = serve({ fetch, port: port ?? 0, hostname: options.host ?? "127.0.0.1" }, () => resolve(started));
      // A port in use is an error event on the server, not a throw: the caller says which port it was.
      started.once("error", (error: NodeJS.ErrnoException) => reject(Object.assign(error, { port })));
    });
  const portOf = (server: ServerType) => {
    const address = server.address();
    return typeof address === "object" && address ? address.port : 0;
  };
  const close = (target: ServerType) =>
    new Promise<void>((resolve) => {
      (target as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      target.close(() => resolve());
    });
  const server = await listen(app.fetch, options.port).catch(async (error: unknown) => {
    await mailbox?.close();
    throw error;
  });
  const storefront = createStorefront({
    appUrl,
    apiSecret,
    shop: shops[0]!,
    checkout: (input) => orders.place(shops[0]!, input).order,
    embed: () => {
      const block = Object.values(shops[0]!.theme.blocks).find(
        (candidate) => candidate.type === embedBlockType(appHandle),
      );
      return { enabled: block ? !block.disabled : false, settings: block?.settings ?? {} };
    },
  });
  // Named with the app's host name: the admin and the app are then one site (ports do not count), so a
  // browser that refuses third-party storage still lets the framed app use its own.
  origin = `http://${new URL(appUrl).hostname}:${portOf(server)}`;
  const storefrontServer = await listen(storefront.app.fetch, options.storefrontPort).catch(async (error: unknown) => {
    await Promise.all([close(server), mailbox?.close()]);
    throw error;
  });
  storefrontOriginValue = `http://${new URL(appUrl).hostname}:${portOf(storefrontServer)}`;

  return {
    origin,
    shops,
    tokenExchanges: exchanges,
    storefrontOrigin: storefrontOrigin(),
    storefront: storefront.controls,
    adminUrl: (shopDomain, appPath = "") => `${origin}/store/${storeName(shopDomain)}/apps/${appHandle}${appPath}`,
    deleteProduct: async (shopDomain, productId) => products.deleteProduct(shopNamed(shopDomain), productId),
    updateVariant: async (shopDomain, variantId, change) =>
      products.updateVariant(shopNamed(shopDomain), variantId, change),
    sentWebhooks: webhooks.sent,
    redeliverWebhook: (webhookId) => webhooks.redeliver(webhookId),
    orders: (shopDomain) => {
      const shop = shopNamed(shopDomain);
      return shop.orders?.map((order) => orderBody(shop, order)).reverse() ?? [];
    },
    cancelOrder: async (shopDomain, orderId) => orders.cancel(shopNamed(shopDomain), orderId),
    refundLineItem: async (shopDomain, orderId, lineItemId, quantity) =>
      orders.refund(shopNamed(shopDomain), orderId, lineItemId, quantity),
    flowTriggers,
    billing: {
      subscriptions: (shopDomain) => subscriptionsOf(shopNamed(shopDomain)),
      approve: async (shopDomain, id) => billing.approve(shopNamed(shopDomain), id),
      decline: async (shopDomain, id) => billing.decline(shopNamed(shopDomain), id),
      freeze: async (shopDomain, id) => billing.freeze(shopNamed(shopDomain), id),
      pay: async (shopDomain, id) => billing.pay(shopNamed(shopDomain), id),
    },
    uninstall: async (shopDomain) => billing.uninstall(shopNamed(shopDomain)),
    setFlowWorkflow: (shopDomain, triggerHandle, enabled) => {
      const shop = shops.find((candidate) => candidate.domain === shopDomain);
      if (!shop) throw new Error(`No shop ${shopDomain} in the platform stand-in`);
      return sendFlowLifecycle(shop, triggerHandle, enabled);
    },
    ...(mailbox ? { mailbox } : {}),
    close: async () => {
      await Promise.all([close(server), close(storefrontServer), mailbox?.close()]);
    },
  };

  function shopNamed(shopDomain: string) {
    const shop = shops.find((candidate) => candidate.domain === shopDomain);
    if (!shop) throw new Error(`No shop ${shopDomain} in the platform stand-in`);
    return shop;
  }

  /** Flow's trigger lifecycle callback, as Flow sends it when a merchant turns a workflow on or off. */
  async function sendFlowLifecycle(shop: StandInShop, handle: string, enabled: boolean): Promise<number> {
    const body = JSON.stringify({
      flow_trigger_definition_id: handle,
      has_enabled_flow: enabled,
      shop_id: 1,
      shopify_domain: shop.domain,
      timestamp: new Date().toISOString(),
    });
    flowWorkflows.set(`${shop.domain}\u0000${handle}`, enabled);
    try {
      const response = await fetch(`${appOrigin}/flow/lifecycle`, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "x-shopify-hmac-sha256": createHmac("sha256", apiSecret).update(body).digest("base64"),
        },
      });
      await response.body?.cancel();
      return response.status;
    } catch {
      return 0;
    }
  }

  function setEmbed(shop: StandInShop, enabled: boolean) {
    const type = embedBlockType(appHandle);
    const id =
      Object.keys(shop.theme.blocks).find((key) => shop.theme.blocks[key]!.type === type) ?? "17263412345678901234";
    shop.theme.blocks[id] = { type, disabled: !enabled, settings: {} };
  }
}

/** A Flow trigger as the stand-in's Flow page lists it: when, which trigger, and its payload. */
function flowTriggerRow(call: FlowTriggerCall) {
  const at = new Date(call.at).toISOString();
  return `<tr><td><time datetime="${at}">${at.replace("T", " ").slice(0, 19)} UTC</time></td>
    <td><code>${escapeHtml(call.handle)}</code></td><td><pre>${escapeHtml(JSON.stringify(call.payload, null, 2))}</pre></td></tr>`;
}

const ADMIN_LOCALE_COOKIE = "stand_in_admin_locale";
/** The admin languages offered by the stand-in's picker: the platform's, as far as the app has them, and one it lacks. */
const ADMIN_LANGUAGES: Array<[string, string]> = [
  ["en", "English"],
  ["de", "Deutsch"],
  ["fr", "Français"],
  ["es", "Español"],
  ["ja", "日本語"],
];
