/**
 * The local storefront of the platform stand-in (development and tests only; docs/storefront.md): a small
 * online store for one shop, on an origin of its own as a shop's domain is, rendered around the theme app
 * extension's real Liquid files (extensions/wishlist-theme) with liquidjs and serving its real built script.
 *  - `/`, `/collections/all`: a product grid (cards in the markup most themes use);
 *  - `/products/<handle>`: a product page with the wishlist button block, the chosen variant's price (struck
 *    through compare-at price beside it) and whether it is sold out; `/products/<handle>.js` its JSON (the
 *    platform's Ajax API product: prices in cents, images as protocol-relative URLs). Prices and stock are
 *    the catalogue's as the merchant last changed them (stand-in/catalogue.ts);
 *  - `/cdn/shop/files/<handle>.svg`: a product's image (a swatch of its colour), as the platform's CDN serves it;
 *  - `/pages/<handle>`: a page with the wishlist page block (the shop's share page);
 *  - `/account/login`: browse as a guest or as one of the shop's customers (a cookie, as the platform's
 *    customer session is);
 *  - the Ajax Cart API (`/cart.js`, `/cart/add.js`, `/cart/change.js`, `/cart/clear.js`, and
 *    `/cart/update.js` for cart attributes), cart permalinks (`/cart/<variant id>:<quantity>,...`) and a cart
 *    page (`/cart`), one cart per browser (a cookie): what the wishlist page's "Add to cart" calls, the
 *    storefront script's hidden attribute is written with, and the customer account page links to;
 *  - a checkout: the cart page's "Check out" places the order at once (no payment pages; stand-in/orders.ts),
 *    empties the cart and shows the order's confirmation (`/checkouts/<token>/thank-you`); the stand-in sends
 *    the app the order's webhooks (stand-in/order-admin.ts). The footer's currency switch picks the shopper's
 *    presentment currency: the cart and the order are in it (product pages stay in the shop's currency);
 *  - `Shopify.loadFeatures` and the Customer Privacy API (`Shopify.customerPrivacy`), answering as the
 *    visitor's region and choice say: the footer's switch picks "consent not required", "required, not given
 *    yet" (a cookie banner), "given" or "refused";
 *  - `/api/<version>/graphql.json`: the shop's Storefront API, the slice a headless storefront needs
 *    (stand-in/storefront-api.ts); its carts' checkout links are this storefront's cart permalinks;
 *  - `/apps/service/*`: the app proxy. The request is signed as the platform signs it (`shop`,
 *    `logged_in_customer_id`, `path_prefix`, `timestamp`, then `signature`: HMAC-SHA256 with the app secret
 *    over the sorted `key=value` pairs run together) and forwarded to `<app url>/proxy/*`.
 * The app embed is rendered only while the theme has it switched on (the stand-in's theme editor), with the
 * settings saved there over the defaults of its schema.
 */
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Hono, type Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { Liquid } from "liquidjs";
import {
  cents,
  findVariant,
  isAvailableForSale,
  productImagePath,
  productImageSvg,
  productOfImage,
  variantsOf,
} from "./catalogue";
import type { StandInProduct, StandInShop, StandInVariant } from "./demo-data";
import { formatMoney, presentmentCurrencies, toPresentment } from "./money";
import { orderName, placeOrder, type CheckoutInput, type StandInOrder } from "./orders";
import { createStorefrontApi } from "./storefront-api";

const EXTENSION = path.resolve(import.meta.dirname, "../extensions/wishlist-theme");
export const PROXY_PREFIX = "/apps/service";
const LOCALES = ["en", "fr", "de", "es"] as const;
type Locale = (typeof LOCALES)[number];
/** What the platform adds to a proxied query; a shopper's own copies are dropped, as the platform does. */
const SIGNED_PARAMETERS = ["shop", "logged_in_customer_id", "path_prefix", "timestamp", "signature"];
/**
 * Response headers the proxy passes back to the browser; a redirect keeps its Location, as the platform's proxy
 * keeps it (the alert emails' product links).
 */
const PASSED_HEADERS = ["content-type", "content-language", "location", "retry-after", "vary", "x-request-id"];

export interface StorefrontOptions {
  appUrl: string;
  apiSecret: string;
  shop: StandInShop;
  /** The app embed's block type and whether the theme has it on. */
  embed: () => { enabled: boolean; settings: Record<string, unknown> };
  /**
   * Places the order the checkout makes of a cart (throws, placing nothing, when it cannot be placed). The
   * platform stand-in's places it and sends the app its webhooks; unset, the order is only placed.
   */
  checkout?: (input: CheckoutInput) => StandInOrder;
}

/** Test hooks: what the stand-in does to proxied calls. */
export interface StorefrontControls {
  /** Sign with a wrong secret, as a forged or tampered request would be. */
  tamperSignatures: boolean;
}

/** The platform's app proxy signature over a query (docs/decisions/015-platform-callers.md). */
export function signProxyQuery(query: URLSearchParams, secret: string): string {
  const pairs = new Map<string, string[]>();
  for (const [key, value] of query) if (key !== "signature") pairs.set(key, [...(pairs.get(key) ?? []), value]);
  const message = [...pairs]
    .map(([key, values]) => `${key}=${values.join(",")}`)
    .sort()
    .join("");
  return createHmac("sha256", secret).update(message).digest("hex");
}

const variantIdOf = (product: StandInProduct) => variantsOf(product)[0]!.id;

/**
 * The platform's `/products/<handle>.js` (Ajax API) for a product: money in the shop's currency as integer
 * cents, `featured_image` and `images` as protocol-relative URLs, each variant's `featured_image` an object.
 */
function productJson(product: StandInProduct, host: string) {
  const image = `//${host}${productImagePath(product)}`;
  const variants = variantsOf(product).map((variant, index) => ({
    id: Number(variant.id),
    title: variant.title,
    option1: variant.title,
    price: cents(variant.price),
    compare_at_price: variant.compareAtPrice ? cents(variant.compareAtPrice) : null,
    available: isAvailableForSale(variant),
    featured_image: {
      id: Number(product.id) + index,
      product_id: Number(product.id),
      position: 1,
      src: image,
      alt: null,
      width: 800,
      height: 800,
    },
  }));
  const prices = variants.map((variant) => variant.price);
  return {
    id: Number(product.id),
    title: product.title,
    handle: product.handle,
    description: "",
    price: Math.min(...prices),
    price_min: Math.min(...prices),
    price_max: Math.max(...prices),
    price_varies: Math.min(...prices) !== Math.max(...prices),
    compare_at_price: variants.find((variant) => variant.price === Math.min(...prices))?.compare_at_price ?? null,
    available: variants.some((variant) => variant.available),
    featured_image: image,
    images: [image],
    options: [{ name: "Size", position: 1, values: variants.map((variant) => variant.title) }],
    variants,
  };
}

/** A line of a stand-in cart, as the Ajax Cart API reads it. */
interface CartLine {
  variantId: string;
  quantity: number;
}

/** A browser's cart: its lines, and its attributes (`/cart/update.js`) in the order they were first set. */
interface Cart {
  lines: CartLine[];
  attributes: Map<string, string>;
}

/** The visitor's privacy answer (the footer's switch): consent not required, or required and pending/given/refused. */
const CONSENT_STATES = ["not-required", "pending", "granted", "denied"] as const;
type ConsentState = (typeof CONSENT_STATES)[number];

/** The platform's Cart Error answer (`/cart/add.js` and the like). */
const cartError = (c: Context, status: 404 | 422 | 400, description: string) =>
  c.json({ status, message: "Cart Error", description }, status);

/**
 * `window.Shopify` as a storefront page has it: the root route, and `loadFeatures`, which loads the Customer
 * Privacy API (`consent-tracking-api`) asynchronously, as the platform's loader does. Preferences processing is
 * allowed where consent is not required, or once given; `setTrackingConsent` records the choice and fires
 * `visitorConsentCollected` on the document.
 */
function shopifyGlobal(consent: ConsentState) {
  return `<script>
window.Shopify = window.Shopify || {};
Shopify.routes = { root: "/" };
Shopify.loadFeatures = function (features, callback) {
  setTimeout(function () {
    var state = ${JSON.stringify(consent)};
    var allowed = function () { return state === "not-required" || state === "granted"; };
    Shopify.customerPrivacy = {
      preferencesProcessingAllowed: allowed,
      analyticsProcessingAllowed: allowed,
      marketingAllowed: allowed,
      saleOfDataAllowed: allowed,
      shouldShowBanner: function () { return state === "pending"; },
      setTrackingConsent: function (consent, done) {
        state = consent.preferences ? "granted" : "denied";
        document.cookie = "standin_consent=" + state + "; path=/; SameSite=Lax";
        var detail = { preferencesAllowed: allowed(), analyticsAllowed: allowed(), marketingAllowed: allowed(), saleOfDataAllowed: allowed() };
        document.dispatchEvent(new CustomEvent("visitorConsentCollected", { detail: detail }));
        if (done) done();
      }
    };
    callback(features.every(function (f) { return f.name === "consent-tracking-api"; }) ? undefined : new Error("unknown feature"));
  }, 10);
};
</script>`;
}

/** The cookie banner a shop in a consent region shows until the visitor answers. */
const CONSENT_BANNER = `<div class="site-consent" role="region" aria-label="Cookie consent">
  <p>This shop uses cookies to remember your preferences, such as a guest wishlist.</p>
  <button type="button" class="site-button" data-consent="true">Accept</button>
  <button type="button" class="site-button" data-consent="false">Decline</button>
</div>
<script>
document.querySelectorAll("[data-consent]").forEach(function (button) {
  button.addEventListener("click", function () {
    var answer = button.dataset.consent === "true";
    Shopify.loadFeatures([{ name: "consent-tracking-api", version: "0.1" }], function () {
      Shopify.customerPrivacy.setTrackingConsent({ preferences: answer, analytics: answer, marketing: answer, sale_of_data: answer }, function () {
        button.closest(".site-consent").remove();
      });
    });
  });
});
</script>`;

export function createStorefront(options: StorefrontOptions) {
  const { appUrl, apiSecret, shop } = options;
  const controls: StorefrontControls = { tamperSignatures: false };
  const engine = new Liquid({
    partials: [path.join(EXTENSION, "snippets")],
    extname: ".liquid",
    cache: false,
    // A filter the platform has and this stand-in lacks fails the page instead of rendering nothing.
    strictFilters: true,
  });
  const translations = (locale: Locale): Record<string, unknown> =>
    JSON.parse(
      readFileSync(path.join(EXTENSION, "locales", locale === "en" ? "en.default.json" : `${locale}.json`), "utf8"),
    );
  engine.registerFilter("t", function (this: { context: { environments: unknown } }, key: string) {
    const locale = ((this.context.environments as { request?: { locale?: { iso_code?: Locale } } }).request?.locale
      ?.iso_code ?? "en") as Locale;
    const lookup = (table: Record<string, unknown>) =>
      key.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], table);
    return (lookup(translations(locale)) ?? lookup(translations("en")) ?? `translation missing: ${key}`) as string;
  });
  // The platform's json filter escapes what could end a <script> element or start markup; liquidjs' does not.
  engine.registerFilter("json", (value: unknown) =>
    JSON.stringify(value ?? null)
      .replace(/</g, "\\u003c")
      .replace(/>/g, "\\u003e")
      .replace(/&/g, "\\u0026"),
  );
  engine.registerFilter("asset_url", (name: string) => `/extension-assets/${encodeURIComponent(name)}`);

  /** A block of the extension: its Liquid without the schema, and the defaults its schema declares. */
  function block(name: string) {
    const source = readFileSync(path.join(EXTENSION, "blocks", `${name}.liquid`), "utf8");
    const schema = /{%-?\s*schema\s*-?%}([\s\S]*?){%-?\s*endschema\s*-?%}/.exec(source);
    const settings = schema ? (JSON.parse(schema[1]!) as { settings: Array<{ id: string; default?: unknown }> }) : null;
    const defaults = Object.fromEntries(
      (settings?.settings ?? []).map((setting) => [setting.id, setting.default ?? null]),
    );
    return { template: source.replace(schema?.[0] ?? "", ""), defaults };
  }

  async function renderBlock(name: string, scope: Record<string, unknown>, settings: Record<string, unknown> = {}) {
    const { template, defaults } = block(name);
    return engine.parseAndRender(template, {
      ...scope,
      block: { settings: { ...defaults, ...settings }, shopify_attributes: "" },
    });
  }

  const app = new Hono();
  app.route("/", createStorefrontApi(shop));
  /** Carts by their token (the `cart` cookie), as the platform keeps one per browser. */
  const carts = new Map<string, Cart>();
  const shopCurrency = () => shop.currency ?? "USD";
  const madeIn = new WeakMap<Request, string>();

  function shopper(c: Context) {
    const id = getCookie(c, "standin_customer");
    const customer = shop.customers.find((candidate) => candidate.id === id) ?? null;
    const asked = c.req.query("locale");
    const locale = (LOCALES.includes(asked as Locale) ? asked : getCookie(c, "standin_locale")) as Locale | undefined;
    if (asked && LOCALES.includes(asked as Locale))
      setCookie(c, "standin_locale", asked, { path: "/", sameSite: "Lax" });
    const consent = getCookie(c, "standin_consent") as ConsentState | undefined;
    const currency = getCookie(c, "standin_currency");
    return {
      customer,
      locale: locale && LOCALES.includes(locale) ? locale : "en",
      consent: consent && CONSENT_STATES.includes(consent) ? consent : ("not-required" as ConsentState),
      // The shopper's presentment currency (the footer's switch): the shop's unless they chose another.
      currency: currency && presentmentCurrencies(shopCurrency()).includes(currency) ? currency : shopCurrency(),
    };
  }

  /** The browser's cart (made on first use, as the platform's `cart` cookie is). */
  function cartOf(c: Context, create = false): Cart & { token: string } {
    // A cart made earlier in this request has no cookie on the request yet.
    let token = madeIn.get(c.req.raw) ?? getCookie(c, "cart");
    if (!token || !carts.has(token)) {
      token = crypto.randomUUID();
      if (!create) return { token, lines: [], attributes: new Map() };
      carts.set(token, { lines: [], attributes: new Map() });
      madeIn.set(c.req.raw, token);
      setCookie(c, "cart", token, { path: "/", sameSite: "Lax" });
    }
    return { token, ...carts.get(token)! };
  }

  const variantById = (id: string) => findVariant(shop, id);

  /**
   * A cart line as `/cart.js` and `/cart/add.js` write it: money in cents of the shopper's currency, each
   * unit converted as the checkout converts it (stand-in/money.ts).
   */
  function lineJson(line: CartLine, currency: string) {
    const { product, variant } = variantById(line.variantId)!;
    const price = toPresentment(cents(variant.price), shopCurrency(), currency);
    return {
      id: Number(variant.id),
      key: `${variant.id}:stand-in`,
      quantity: line.quantity,
      variant_id: Number(variant.id),
      product_id: Number(product.id),
      title: variant.title === "Default Title" ? product.title : `${product.title} - ${variant.title}`,
      product_title: product.title,
      variant_title: variant.title === "Default Title" ? null : variant.title,
      handle: product.handle,
      price,
      line_price: price * line.quantity,
      url: `/products/${product.handle}?variant=${variant.id}`,
      properties: {},
    };
  }

  function cartJson(c: Context, cart: Cart & { token: string }) {
    const { currency } = shopper(c);
    const items = cart.lines.map((line) => lineJson(line, currency));
    return {
      token: cart.token,
      note: null,
      attributes: Object.fromEntries(cart.attributes),
      item_count: items.reduce((sum, item) => sum + item.quantity, 0),
      total_price: items.reduce((sum, item) => sum + item.line_price, 0),
      currency,
      items,
    };
  }

  function liquidProduct(product: StandInProduct) {
    const variant = variantsOf(product).find(isAvailableForSale) ?? variantsOf(product)[0]!;
    return {
      id: Number(product.id),
      handle: product.handle,
      title: product.title,
      selected_or_first_available_variant: { id: Number(variant.id) },
    };
  }

  /** A storefront page; `checkout`: a page of the platform's checkout, where theme app extensions do not run. */
  async function page(c: Context, title: string, main: string, product?: StandInProduct, { checkout = false } = {}) {
    const { customer, locale, consent, currency } = shopper(c);
    const embed = checkout ? { enabled: false, settings: {} } : options.embed();
    const cartCount = cartOf(c).lines.reduce((sum, line) => sum + line.quantity, 0);
    const scope = {
      request: { locale: { iso_code: locale } },
      customer: customer ? { id: Number(customer.id), first_name: customer.firstName } : null,
      routes: { account_login_url: "/account/login" },
      shop: { money_format: shop.moneyFormat ?? "${{amount}}", currency: shop.currency ?? "USD" },
      product: product ? liquidProduct(product) : null,
    };
    const embedHtml = embed.enabled ? await renderBlock("app-embed", scope, embed.settings) : "";
    const mainHtml = main.replace(/<!--block:([a-z-]+)-->/g, "\u0000$1\u0000");
    let rendered = "";
    for (const [index, part] of mainHtml.split("\u0000").entries()) {
      rendered += index % 2 === 1 ? await renderBlock(part, scope) : part;
    }
    return c.html(`<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · ${escapeHtml(shop.name)}</title>
<style>${STYLES}</style>
${shopifyGlobal(consent)}
</head>
<body>
<header class="site-header">
  <a class="site-name" href="/">${escapeHtml(shop.name)}</a>
  <nav aria-label="Main"><a href="/collections/all">Catalog</a> <a href="/pages/wishlist">Wishlist</a> <a href="/cart">Cart (<span data-cart-count>${cartCount}</span>)</a></nav>
  <span class="site-account">${
    customer
      ? `Logged in as ${escapeHtml(customer.firstName)} ${escapeHtml(customer.lastName)} · <a href="/account/logout">Log out</a>`
      : `Browsing as a guest · <a href="/account/login">Log in</a>`
  }</span>
  <form class="site-locale" method="get"><label>Language <select name="locale" onchange="this.form.submit()">${LOCALES.map(
    (code) => `<option value="${code}"${code === locale ? " selected" : ""}>${code}</option>`,
  ).join("")}</select></label><noscript><button>Change</button></noscript></form>
</header>
${embed.enabled || checkout ? "" : `<p class="site-notice" role="note">The Wishlist app embed is off in this theme: turn it on from the app's Home page (Setup guide) to see the hearts.</p>`}
<main id="main">
${rendered}
</main>
<footer class="site-footer">Local storefront of the platform stand-in: theme app extension rendered from extensions/wishlist-theme.
<form method="post" action="/stand-in/consent"><label>Visitor privacy <select name="consent">${[
      ["not-required", "Consent not required in this region"],
      ["pending", "Consent required, not given yet"],
      ["granted", "Consent required and given"],
      ["denied", "Consent required and refused"],
    ]
      .map(([value, label]) => `<option value="${value}"${value === consent ? " selected" : ""}>${label}</option>`)
      .join("")}</select></label> <button class="site-button">Apply</button></form>
<form method="post" action="/stand-in/currency"><label>Shopper's currency <select name="currency">${presentmentCurrencies(
      shopCurrency(),
    )
      .map(
        (code) =>
          `<option value="${code}"${code === currency ? " selected" : ""}>${code}${code === shopCurrency() ? " (the shop's)" : ` (${formatMoney(100, shopCurrency())} = ${formatMoney(toPresentment(100, shopCurrency(), code), code)})`}</option>`,
      )
      .join("")}</select></label> <button class="site-button">Apply</button></form></footer>
${consent === "pending" ? CONSENT_BANNER : ""}
<script>
// The theme's cart count follows what the wishlist adds (its wishlist:cart event), as a theme's cart drawer would.
document.addEventListener("wishlist:cart", function () {
  fetch("/cart.js").then(function (response) { return response.json(); }).then(function (cart) {
    document.querySelector("[data-cart-count]").textContent = cart.item_count;
  });
});
</script>
${embedHtml}
</body>
</html>`);
  }

  const grid = (c: Context, title: string) =>
    page(
      c,
      title,
      `<h1>${escapeHtml(title)}</h1>
      <ul class="grid" role="list">${shop.products
        .map((product) => {
          // A card shows the lowest price ("from"), as themes do, and says when nothing is left to buy.
          const variants = variantsOf(product);
          const cheapest = variants.reduce((low, variant) =>
            Number(variant.price) < Number(low.price) ? variant : low,
          );
          const soldOut = !variants.some(isAvailableForSale);
          return `<li class="grid__item"><div class="card-wrapper">
            <div class="card__media" style="background:${escapeHtml(product.colour)}" role="img" aria-label="${escapeHtml(product.title)}"></div>
            <h2 class="card__heading"><a href="/products/${escapeHtml(product.handle)}">${escapeHtml(product.title)}</a></h2>
            <p class="card__price">${priceHtml(cheapest)}${soldOut ? ` <span class="badge" data-sold-out>Sold out</span>` : ""}</p></div></li>`;
        })
        .join("")}</ul>`,
    );
  app.get("/", (c) => grid(c, "Home page"));
  app.get("/collections/all", (c) => grid(c, "Products"));

  app.get("/products/:handle", async (c) => {
    const raw = c.req.param("handle");
    const json = raw.endsWith(".js");
    const product = shop.products.find((candidate) => candidate.handle === (json ? raw.slice(0, -3) : raw));
    if (!product) return c.text("Not found", 404);
    if (json) return c.json(productJson(product, new URL(c.req.url).host));
    const variants = variantsOf(product);
    // The variant a link names (`?variant=`, as the wishlist page's links carry), else the first one; its
    // price is the one shown, and follows the picker, as themes do.
    const chosen = variants.find((variant) => variant.id === c.req.query("variant")) ?? variants[0]!;
    // A product with options has a variant picker (the `id` field themes' product forms carry); a sold-out
    // option stays listed but cannot be chosen, and the button says so for a sold-out variant.
    const picker =
      variants.length > 1
        ? `<label>Size <select name="id" onchange="this.form.closest('.product__info').querySelector('.product__price').textContent='$'+this.selectedOptions[0].dataset.price">${variants
            .map(
              (variant) =>
                `<option value="${escapeHtml(variant.id)}" data-price="${escapeHtml(variant.price)}"${variant === chosen ? " selected" : ""}${isAvailableForSale(variant) ? "" : " disabled"}>${escapeHtml(variant.title)}${isAvailableForSale(variant) ? "" : " (sold out)"}</option>`,
            )
            .join("")}</select></label> `
        : `<input type="hidden" name="id" value="${escapeHtml(variantIdOf(product))}">`;
    const available = isAvailableForSale(chosen);
    return page(
      c,
      product.title,
      `<div class="product"><div class="product__media" style="background:${escapeHtml(product.colour)}" role="img" aria-label="${escapeHtml(product.title)}"></div>
      <div class="product__info"><h1>${escapeHtml(product.title)}</h1><p class="product__price">${priceHtml(chosen)}</p>
      ${available ? "" : `<p class="badge" data-sold-out>Sold out</p>`}
      <form method="post" action="/cart/add">${picker}<input type="hidden" name="quantity" value="1"><button class="site-button"${available ? "" : " disabled"}>${available ? "Add to cart" : "Sold out"}</button></form>
      <!--block:wishlist-button--></div></div>`,
      product,
    );
  });

  app.get("/pages/:handle", (c) => page(c, "Wishlist", "<!--block:wishlist-page-->"));

  app.get("/account/login", (c) =>
    page(
      c,
      "Log in",
      `<h1>Log in</h1><p>Choose who browses this storefront (the platform's customer accounts stand-in).</p>
      <form method="post" action="/account/login" class="accounts">${shop.customers
        .map(
          (customer) =>
            `<button class="site-button" name="customer" value="${escapeHtml(customer.id)}">${escapeHtml(customer.firstName)} ${escapeHtml(customer.lastName)} (${escapeHtml(customer.email)})</button>`,
        )
        .join("")}</form><p><a href="/account/logout">Continue as a guest</a></p>`,
    ),
  );
  app.post("/account/login", async (c) => {
    const form = await c.req.parseBody();
    const customer = shop.customers.find((candidate) => candidate.id === form.customer);
    if (!customer) return c.text("Unknown customer", 400);
    setCookie(c, "standin_customer", customer.id, { path: "/", httpOnly: true, sameSite: "Lax" });
    return c.redirect("/", 303);
  });
  app.get("/account/logout", (c) => {
    deleteCookie(c, "standin_customer", { path: "/" });
    return c.redirect("/", 303);
  });

  // ---- the cart (the platform's Ajax Cart API and cart page) ------------------------------------------
  /**
   * Adds lines as `/cart/add.js` does: `{ items: [{ id, quantity }] }` or one `{ id, quantity }` (JSON or a
   * form). All or nothing: an unknown variant is a 404, a sold-out one or a bad quantity a 422.
   */
  async function addToCart(c: Context): Promise<Response | CartLine[]> {
    const type = c.req.header("content-type") ?? "";
    const body = (
      type.includes("application/json") ? await c.req.json().catch(() => null) : await c.req.parseBody()
    ) as {
      items?: Array<{ id?: unknown; quantity?: unknown }>;
      id?: unknown;
      quantity?: unknown;
    } | null;
    const wanted = body?.items ?? (body?.id !== undefined ? [{ id: body.id, quantity: body.quantity }] : null);
    if (!wanted || !Array.isArray(wanted) || wanted.length === 0)
      return cartError(c, 400, "Parameter Missing or Invalid: Required parameter missing or invalid: items");
    return addLines(c, wanted);
  }

  /** Adds the lines to the browser's cart, all or nothing: an unknown variant is a 404, a sold-out one or a bad quantity a 422. */
  function addLines(c: Context, wanted: Array<{ id?: unknown; quantity?: unknown }>): Response | CartLine[] {
    const lines: CartLine[] = [];
    for (const entry of wanted) {
      const found = variantById(String(entry.id ?? ""));
      if (!found) return cartError(c, 404, "Cannot find variant");
      const quantity = entry.quantity === undefined ? 1 : Number(entry.quantity);
      if (!Number.isInteger(quantity) || quantity < 1)
        return cartError(c, 422, "Quantity must be a positive whole number.");
      if (!isAvailableForSale(found.variant))
        return cartError(c, 422, `The product '${found.product.title}' is already sold out.`);
      lines.push({ variantId: found.variant.id, quantity });
    }
    const cart = cartOf(c, true);
    for (const line of lines) {
      const existing = cart.lines.find((candidate) => candidate.variantId === line.variantId);
      if (existing) existing.quantity += line.quantity;
      else cart.lines.push({ ...line });
    }
    return lines;
  }
  app.get("/cart.js", (c) => c.json(cartJson(c, cartOf(c))));
  app.post("/cart/add.js", async (c) => {
    const added = await addToCart(c);
    if (added instanceof Response) return added;
    const cart = cartOf(c, true);
    const { currency } = shopper(c);
    const items = added.map((line) =>
      lineJson(
        cart.lines.find((candidate) => candidate.variantId === line.variantId)!,
        currency,
      ),
    );
    return c.json(added.length === 1 && !c.req.header("content-type")?.includes("json") ? items[0] : { items });
  });
  app.post("/cart/add", async (c) => {
    const added = await addToCart(c);
    return added instanceof Response ? added : c.redirect("/cart", 303);
  });
  app.post("/cart/change.js", async (c) => {
    const body = (await c.req.json().catch(() => null)) as { id?: unknown; quantity?: unknown } | null;
    const cart = cartOf(c, true);
    const id = String(body?.id ?? "").replace(/:.*$/, "");
    const line = cart.lines.find((candidate) => candidate.variantId === id);
    const quantity = Number(body?.quantity);
    if (!line) return cartError(c, 400, "no valid id or line parameter");
    if (!Number.isInteger(quantity) || quantity < 0) return cartError(c, 422, "Quantity must be a whole number.");
    if (quantity === 0) cart.lines.splice(cart.lines.indexOf(line), 1);
    else line.quantity = quantity;
    return c.json(cartJson(c, cart));
  });
  // Clearing empties the lines; the attributes stay, as the platform keeps them.
  app.post("/cart/clear.js", (c) => {
    const cart = cartOf(c, true);
    cart.lines.length = 0;
    return c.json(cartJson(c, cart));
  });
  /**
   * Sets cart attributes as `/cart/update.js` does: `{ attributes: { name: value } }` in JSON, or
   * `attributes[name]=value` in a form. A value is kept as text; a blank one (or null) removes the attribute.
   * Attributes whose name starts with `_` are hidden from the shopper at checkout, and still reach the order's
   * `note_attributes`. Answers with the cart.
   */
  app.post("/cart/update.js", async (c) => {
    const type = c.req.header("content-type") ?? "";
    let attributes: Record<string, unknown> | null = null;
    if (type.includes("application/json")) {
      const body = (await c.req.json().catch(() => null)) as { attributes?: unknown } | null;
      if (body?.attributes !== undefined) {
        if (typeof body.attributes !== "object" || body.attributes === null || Array.isArray(body.attributes))
          return cartError(c, 400, "Parameter Missing or Invalid: attributes must be an object");
        attributes = body.attributes as Record<string, unknown>;
      }
    } else {
      const form = await c.req.parseBody();
      attributes = {};
      for (const [key, value] of Object.entries(form)) {
        const name = /^attributes\[(.+)\]$/.exec(key)?.[1];
        if (name !== undefined) attributes[name] = value;
      }
    }
    const cart = cartOf(c, true);
    for (const [name, value] of Object.entries(attributes ?? {})) {
      const text = value === null || value === undefined ? "" : String(value);
      if (text.trim() === "") cart.attributes.delete(name);
      else cart.attributes.set(name, text);
    }
    return c.json(cartJson(c, cart));
  });
  app.post("/cart/clear", (c) => {
    cartOf(c, true).lines.length = 0;
    return c.redirect("/cart", 303);
  });
  /**
   * The cart permalink, `/cart/<variant id>:<quantity>,...` (what the customer account page links to): the
   * platform makes a cart of those lines and goes on to checkout; the stand-in adds them to the browser's cart
   * and shows it, where "Check out" goes on. An unknown or sold-out variant is refused, as the platform does.
   * Cart attributes ride along as `attributes[<name>]=<value>` (what the Storefront API stand-in's checkout links
   * carry: a guest's `_wishlist_list`); a blank value sets nothing, as `/cart/update.js` has it.
   */
  app.get("/cart/:lines{[0-9]+:[0-9]+(,[0-9]+:[0-9]+)*}", (c) => {
    const wanted = c.req
      .param("lines")
      .split(",")
      .map((pair) => ({ id: pair.split(":")[0], quantity: pair.split(":")[1] }));
    const added = addLines(c, wanted);
    if (added instanceof Response) return added;
    const { attributes } = cartOf(c, true);
    for (const [key, value] of new URL(c.req.url).searchParams) {
      const name = /^attributes\[(.+)\]$/.exec(key)?.[1];
      if (name !== undefined && value.trim() !== "") attributes.set(name, value);
    }
    return c.redirect("/cart", 303);
  });
  app.get("/cart", (c) => {
    const cart = cartJson(c, cartOf(c));
    const money = (amount: number) => formatMoney(amount, cart.currency);
    const error = c.req.query("error");
    return page(
      c,
      "Your cart",
      `<h1>Your cart</h1>${error ? `<p class="site-error" role="alert">${escapeHtml(error)}</p>` : ""}${
        cart.items.length === 0
          ? "<p>Your cart is empty.</p>"
          : `<table class="cart"><caption class="visually-hidden">Items in your cart</caption><thead><tr><th scope="col">Product</th><th scope="col">Quantity</th><th scope="col">Total</th></tr></thead><tbody>${cart.items
              .map(
                (item) =>
                  `<tr data-cart-line="${escapeHtml(String(item.variant_id))}"><td><a href="${escapeHtml(item.url)}">${escapeHtml(item.title)}</a></td><td data-quantity>${item.quantity}</td><td>${money(item.line_price)}</td></tr>`,
              )
              .join("")}</tbody></table>
            <p class="cart__total">Subtotal: ${money(cart.total_price)}${cart.currency === shopCurrency() ? "" : ` (${escapeHtml(cart.currency)})`}</p>
            <form method="post" action="/checkout"><button class="site-button">Check out</button></form>
            <form method="post" action="/cart/clear"><button class="site-button site-button--secondary">Empty the cart</button></form>
            <p class="site-hint">The platform's checkout stand-in: "Check out" places the order at once, paid, with no payment pages.</p>`
      }`,
    );
  });

  // ---- the checkout (the platform's, without payment pages) ------------------------------------------------
  /**
   * Places the order of the browser's cart, as the shopper who is logged in (or a guest), in their currency,
   * with the cart's attributes; the cart is then gone (the next one is new, as after the platform's checkout)
   * and the order's confirmation is shown. A cart that cannot be bought (empty, or an item sold out since)
   * goes back to the cart page, which says why.
   */
  app.post("/checkout", (c) => {
    const cart = cartOf(c);
    const { customer, currency, locale } = shopper(c);
    let order: StandInOrder;
    try {
      const input: CheckoutInput = {
        lines: cart.lines.map(({ variantId, quantity }) => ({ variantId, quantity })),
        attributes: [...cart.attributes].map(([name, value]) => ({ name, value })),
        customerId: customer?.id ?? null,
        presentmentCurrency: currency,
        cartToken: cart.token,
        locale,
      };
      order = options.checkout ? options.checkout(input) : placeOrder(shop, input);
    } catch (error) {
      return c.redirect(`/cart?error=${encodeURIComponent((error as Error).message)}`, 303);
    }
    carts.delete(cart.token);
    deleteCookie(c, "cart", { path: "/" });
    return c.redirect(`/checkouts/${order.token}/thank-you`, 303);
  });

  app.get("/checkouts/:token/thank-you", (c) => {
    const order = shop.orders?.find((candidate) => candidate.token === c.req.param("token"));
    if (!order) return c.text("Not found", 404);
    const customer = shop.customers.find((candidate) => candidate.id === order.customerId);
    const money = (amount: number) => formatMoney(amount, order.presentmentCurrency);
    const total = order.lines.reduce((sum, line) => sum + line.unitPresentment * line.quantity, 0);
    return page(
      c,
      `Order ${orderName(order)}`,
      `<h1>Thank you${customer ? `, ${escapeHtml(customer.firstName)}` : ""}!</h1>
      <p>Your order <strong data-order-name>${escapeHtml(orderName(order))}</strong> is confirmed (confirmation number ${escapeHtml(order.confirmationNumber)}).</p>
      <table class="cart"><caption class="visually-hidden">Items in your order</caption><thead><tr><th scope="col">Product</th><th scope="col">Quantity</th><th scope="col">Total</th></tr></thead><tbody>${order.lines
        .map(
          (line) =>
            `<tr><td>${escapeHtml(line.variantTitle === "Default Title" ? line.productTitle : `${line.productTitle} - ${line.variantTitle}`)}</td><td>${line.quantity}</td><td>${money(line.unitPresentment * line.quantity)}</td></tr>`,
        )
        .join("")}</tbody></table>
      <p class="cart__total">Total paid: ${money(total)}${order.presentmentCurrency === order.currency ? "" : ` (${escapeHtml(order.presentmentCurrency)})`}</p>
      <p><a href="/collections/all">Continue shopping</a></p>`,
      undefined,
      { checkout: true },
    );
  });

  // ---- the visitor's privacy answer and currency (the footer's switches) -----------------------------------
  /** Back to the page a switch was on (its path only: never another site). */
  const back = (c: Context) => {
    const from = URL.canParse(c.req.header("referer") ?? "") ? new URL(c.req.header("referer")!) : null;
    return c.redirect(from ? `/${from.pathname.replace(/^[/\\]+/, "")}${from.search}` : "/", 303);
  };
  app.post("/stand-in/consent", async (c) => {
    const form = await c.req.parseBody();
    const consent = String(form.consent ?? "");
    if (!CONSENT_STATES.includes(consent as ConsentState)) return c.text("Unknown consent state", 400);
    setCookie(c, "standin_consent", consent, { path: "/", sameSite: "Lax" });
    return back(c);
  });
  app.post("/stand-in/currency", async (c) => {
    const form = await c.req.parseBody();
    const currency = String(form.currency ?? "");
    if (!presentmentCurrencies(shopCurrency()).includes(currency)) return c.text("Unknown currency", 400);
    setCookie(c, "standin_currency", currency, { path: "/", sameSite: "Lax" });
    return back(c);
  });

  app.get("/extension-assets/:file", (c) => {
    const file = c.req.param("file");
    if (!/^[\w.-]+$/.test(file)) return c.text("Not found", 404);
    try {
      const body = readFileSync(path.join(EXTENSION, "assets", file));
      const type = file.endsWith(".js")
        ? "text/javascript"
        : file.endsWith(".css")
          ? "text/css"
          : "application/octet-stream";
      return c.body(body, 200, { "content-type": `${type}; charset=utf-8`, "cache-control": "no-cache" });
    } catch {
      return c.text("Not found", 404);
    }
  });
  app.get("/cdn/shop/files/:file", (c) => {
    const product = productOfImage(shop, c.req.param("file"));
    if (!product) return c.text("Not found", 404);
    return c.body(productImageSvg(product), 200, {
      "content-type": "image/svg+xml",
      "cache-control": "max-age=3600",
    });
  });
  app.get("/favicon.ico", () => new Response(null, { status: 204 }));

  // ---- the app proxy ----------------------------------------------------------------------------------
  app.all(`${PROXY_PREFIX}/*`, async (c) => {
    const url = new URL(c.req.url);
    const query = new URLSearchParams(url.search);
    for (const name of SIGNED_PARAMETERS) query.delete(name);
    const { customer } = shopper(c);
    query.set("shop", shop.domain);
    query.set("logged_in_customer_id", customer?.id ?? "");
    query.set("path_prefix", PROXY_PREFIX);
    query.set("timestamp", String(Math.floor(Date.now() / 1000)));
    query.set("signature", signProxyQuery(query, controls.tamperSignatures ? `${apiSecret}-tampered` : apiSecret));
    const target = `${appUrl}/proxy${url.pathname.slice(PROXY_PREFIX.length)}?${query}`;
    const headers = new Headers();
    for (const name of ["content-type", "accept-language", "user-agent"]) {
      const value = c.req.header(name);
      if (value) headers.set(name, value);
    }
    const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
    headers.set("x-forwarded-for", incoming?.socket?.remoteAddress ?? "127.0.0.1");
    const method = c.req.method;
    let answer: Response;
    try {
      answer = await fetch(target, {
        method,
        headers,
        body: method === "GET" || method === "HEAD" ? undefined : await c.req.arrayBuffer(),
        redirect: "manual",
      });
    } catch {
      // The platform answers with its own error page when the app cannot be reached.
      return c.text("The app did not answer the proxy request.", 502);
    }
    const passed = new Headers();
    for (const name of PASSED_HEADERS) {
      const value = answer.headers.get(name);
      if (value) passed.set(name, value);
    }
    for (const [name, value] of answer.headers) if (name.startsWith("x-ratelimit-")) passed.set(name, value);
    return new Response(answer.body, { status: answer.status, headers: passed });
  });

  return { app, controls };
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** A variant's price as themes print it: the compare-at price struck through before it, when there is one. */
const priceHtml = (variant: StandInVariant) =>
  `${variant.compareAtPrice ? `<s class="price__compare">$${escapeHtml(variant.compareAtPrice)}</s> ` : ""}$${escapeHtml(variant.price)}`;

const STYLES = `
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 Georgia, "Times New Roman", serif; color: #1f1f1f; background: #fff; }
  a { color: #1f1f1f; }
  .site-header { display: flex; flex-wrap: wrap; align-items: center; gap: 16px 24px; padding: 16px 32px; border-bottom: 1px solid #e5e5e5; }
  .site-name { font-size: 22px; font-weight: 700; text-decoration: none; }
  .site-account { margin-left: auto; font-size: 14px; }
  .site-locale { font-size: 14px; }
  .site-notice { margin: 0; padding: 8px 32px; background: #fff4d6; font-size: 14px; }
  main { max-width: 1100px; margin: 0 auto; padding: 24px 32px 48px; min-height: 60vh; }
  .grid { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 24px; }
  .card-wrapper { position: relative; }
  .card__media { aspect-ratio: 4 / 5; border-radius: 4px; }
  .card__heading { font-size: 17px; margin: 10px 0 2px; }
  .card__heading a { text-decoration: none; }
  .card__heading a::after { content: ""; position: absolute; inset: 0; }
  .card__price { margin: 0; color: #555; }
  .price__compare { color: #777; }
  .badge { display: inline-block; padding: 0 8px; border-radius: 10px; background: #1f1f1f; color: #fff; font-size: 13px; }
  .site-button:disabled { opacity: .5; cursor: not-allowed; }
  .product { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 40px; }
  .product__media { aspect-ratio: 1; border-radius: 4px; }
  .product__price { font-size: 20px; }
  .site-button { display: inline-block; min-height: 44px; padding: 0 20px; margin: 0 8px 12px 0; border: 1px solid #1f1f1f; border-radius: 4px; background: #1f1f1f; color: #fff; font: inherit; cursor: pointer; }
  .accounts { display: flex; flex-direction: column; align-items: flex-start; }
  .site-footer { padding: 24px 32px; border-top: 1px solid #e5e5e5; font-size: 13px; color: #555; }
  .site-footer form { margin-top: 8px; }
  .site-consent { position: fixed; left: 16px; bottom: 16px; max-width: 360px; padding: 16px; background: #fff; border: 1px solid #1f1f1f; border-radius: 6px; z-index: 10; }
  .cart { border-collapse: collapse; width: 100%; }
  .site-button--secondary { background: #fff; color: #1f1f1f; }
  .site-error { padding: 8px 12px; border-left: 4px solid #8e0b21; background: #fdecec; }
  .site-hint { font-size: 14px; color: #555; }
  .cart th, .cart td { text-align: left; padding: 8px; border-bottom: 1px solid #e5e5e5; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
`;
