/**
 * The local storefront of the platform stand-in (development and tests only; docs/storefront.md): a small
 * online store for one shop, on an origin of its own as a shop's domain is, rendered around the theme app
 * extension's real Liquid files (extensions/wishlist-theme) with liquidjs and serving its real built script.
 *  - `/`, `/collections/all`: a product grid (cards in the markup most themes use);
 *  - `/products/<handle>`: a product page with the wishlist button block; `/products/<handle>.js` its JSON
 *    (the platform's Ajax API product: prices in cents, images as protocol-relative URLs);
 *  - `/cdn/shop/files/<handle>.svg`: a product's image (a swatch of its colour), as the platform's CDN serves it;
 *  - `/pages/<handle>`: a page with the wishlist page block (the shop's share page);
 *  - `/account/login`: browse as a guest or as one of the shop's customers (a cookie, as the platform's
 *    customer session is);
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
import { variantsOf } from "./admin-graphql";
import type { StandInProduct, StandInShop } from "./demo-data";

const EXTENSION = path.resolve(import.meta.dirname, "../extensions/wishlist-theme");
export const PROXY_PREFIX = "/apps/service";
const LOCALES = ["en", "fr", "de", "es"] as const;
type Locale = (typeof LOCALES)[number];
/** What the platform adds to a proxied query; a shopper's own copies are dropped, as the platform does. */
const SIGNED_PARAMETERS = ["shop", "logged_in_customer_id", "path_prefix", "timestamp", "signature"];
/** Response headers the proxy passes back to the browser. */
const PASSED_HEADERS = ["content-type", "content-language", "retry-after", "vary", "x-request-id"];

export interface StorefrontOptions {
  appUrl: string;
  apiSecret: string;
  shop: StandInShop;
  /** The app embed's block type and whether the theme has it on. */
  embed: () => { enabled: boolean; settings: Record<string, unknown> };
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

const cents = (price: string) => Math.round(Number(price) * 100);

/**
 * The platform's `/products/<handle>.js` (Ajax API) for a product: money in the shop's currency as integer
 * cents, `featured_image` and `images` as protocol-relative URLs, each variant's `featured_image` an object.
 */
function productJson(product: StandInProduct, host: string) {
  const image = `//${host}/cdn/shop/files/${product.handle}.svg`;
  const variants = variantsOf(product).map((variant, index) => ({
    id: Number(variant.id),
    title: variant.title,
    option1: variant.title,
    price: cents(variant.price),
    compare_at_price: null,
    available: variant.available !== false,
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
    compare_at_price: null,
    available: variants.some((variant) => variant.available),
    featured_image: image,
    images: [image],
    options: [{ name: "Size", position: 1, values: variants.map((variant) => variant.title) }],
    variants,
  };
}

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

  function shopper(c: Context) {
    const id = getCookie(c, "standin_customer");
    const customer = shop.customers.find((candidate) => candidate.id === id) ?? null;
    const asked = c.req.query("locale");
    const locale = (LOCALES.includes(asked as Locale) ? asked : getCookie(c, "standin_locale")) as Locale | undefined;
    if (asked && LOCALES.includes(asked as Locale))
      setCookie(c, "standin_locale", asked, { path: "/", sameSite: "Lax" });
    return { customer, locale: locale && LOCALES.includes(locale) ? locale : "en" };
  }

  function liquidProduct(product: StandInProduct) {
    const variant = variantsOf(product).find((candidate) => candidate.available !== false) ?? variantsOf(product)[0]!;
    return {
      id: Number(product.id),
      handle: product.handle,
      title: product.title,
      selected_or_first_available_variant: { id: Number(variant.id) },
    };
  }

  async function page(c: Context, title: string, main: string, product?: StandInProduct) {
    const { customer, locale } = shopper(c);
    const embed = options.embed();
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
</head>
<body>
<header class="site-header">
  <a class="site-name" href="/">${escapeHtml(shop.name)}</a>
  <nav aria-label="Main"><a href="/collections/all">Catalog</a> <a href="/pages/wishlist">Wishlist</a></nav>
  <span class="site-account">${
    customer
      ? `Logged in as ${escapeHtml(customer.firstName)} ${escapeHtml(customer.lastName)} · <a href="/account/logout">Log out</a>`
      : `Browsing as a guest · <a href="/account/login">Log in</a>`
  }</span>
  <form class="site-locale" method="get"><label>Language <select name="locale" onchange="this.form.submit()">${LOCALES.map(
    (code) => `<option value="${code}"${code === locale ? " selected" : ""}>${code}</option>`,
  ).join("")}</select></label><noscript><button>Change</button></noscript></form>
</header>
${embed.enabled ? "" : `<p class="site-notice" role="note">The Wishlist app embed is off in this theme: turn it on from the app's Home page (Setup guide) to see the hearts.</p>`}
<main id="main">
${rendered}
</main>
<footer class="site-footer">Local storefront of the platform stand-in: theme app extension rendered from extensions/wishlist-theme.</footer>
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
        .map(
          (product) => `<li class="grid__item"><div class="card-wrapper">
            <div class="card__media" style="background:${escapeHtml(product.colour)}" role="img" aria-label="${escapeHtml(product.title)}"></div>
            <h2 class="card__heading"><a href="/products/${escapeHtml(product.handle)}">${escapeHtml(product.title)}</a></h2>
            <p class="card__price">$${escapeHtml(product.price)}</p></div></li>`,
        )
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
    // A product with options has a variant picker (the `id` field themes' product forms carry).
    const picker =
      variants.length > 1
        ? `<label>Size <select name="id" onchange="this.form.closest('.product__info').querySelector('.product__price').textContent='$'+this.selectedOptions[0].dataset.price">${variants
            .map(
              (variant) =>
                `<option value="${escapeHtml(variant.id)}" data-price="${escapeHtml(variant.price)}"${variant === chosen ? " selected" : ""}${variant.available === false ? " disabled" : ""}>${escapeHtml(variant.title)}</option>`,
            )
            .join("")}</select></label> `
        : `<input type="hidden" name="id" value="${escapeHtml(variantIdOf(product))}">`;
    return page(
      c,
      product.title,
      `<div class="product"><div class="product__media" style="background:${escapeHtml(product.colour)}" role="img" aria-label="${escapeHtml(product.title)}"></div>
      <div class="product__info"><h1>${escapeHtml(product.title)}</h1><p class="product__price">$${escapeHtml(chosen.price)}</p>
      <form method="post" action="/cart/add">${picker}<button type="button" class="site-button">Add to cart</button></form>
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
    const product = shop.products.find((candidate) => `${candidate.handle}.svg` === c.req.param("file"));
    if (!product) return c.text("Not found", 404);
    return c.body(
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 800"><rect width="800" height="800" fill="${escapeHtml(product.colour)}"/></svg>`,
      200,
      { "content-type": "image/svg+xml", "cache-control": "max-age=3600" },
    );
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
  .product { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 40px; }
  .product__media { aspect-ratio: 1; border-radius: 4px; }
  .product__price { font-size: 20px; }
  .site-button { display: inline-block; min-height: 44px; padding: 0 20px; margin: 0 8px 12px 0; border: 1px solid #1f1f1f; border-radius: 4px; background: #1f1f1f; color: #fff; font: inherit; cursor: pointer; }
  .accounts { display: flex; flex-direction: column; align-items: flex-start; }
  .site-footer { padding: 24px 32px; border-top: 1px solid #e5e5e5; font-size: 13px; color: #555; }
`;
