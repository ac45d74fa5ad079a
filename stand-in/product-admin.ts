/**
 * The stand-in admin's product page (`/store/<shop>/products/<id>`, where the app's list page links): the
 * merchant changes a variant's price, compare-at price or stock (or sells it out, or restocks it, in one
 * click), or deletes the product. Each change is applied to the catalogue, which the Admin API and the
 * storefront read, then sent to the app as the platform sends it (stand-in/platform-webhooks.ts):
 * `products/update` for any change, `inventory_levels/update` too for a stock change, `products/delete` for
 * a deletion. The page lists what was sent and how the app answered.
 */
import { Hono } from "hono";
import { adminHeader, escapeHtml, html, type HeaderLink } from "./admin-chrome";
import {
  applyVariantChange,
  findVariant,
  inventoryItemIdOf,
  isAvailableForSale,
  refuseChange,
  variantsOf,
  type VariantChange,
} from "./catalogue";
import type { StandInShop } from "./demo-data";
import { inventoryLevelUpdateBody, productUpdateBody, type SentWebhook, type WebhookLog } from "./platform-webhooks";

/** The stock "Restock" sets. */
const RESTOCK_QUANTITY = 20;

export interface ProductAdminOptions {
  shops: StandInShop[];
  /** Where the webhooks are sent from and recorded (shared with the order admin). */
  webhooks: WebhookLog;
  appHandle: string;
  appName: string;
  /** The stand-in's origin, where product images are served (known once it listens). */
  origin: () => string;
  links: (store: string) => HeaderLink[];
}

const storeName = (domain: string) => domain.replace(/\.myshopify\.com$/, "");

export function createProductAdmin(options: ProductAdminOptions) {
  const { shops, webhooks, appHandle, appName } = options;
  const { sent } = webhooks;
  const byStore = (store: string) => shops.find((shop) => storeName(shop.domain) === store);
  const send = (shop: StandInShop, topic: string, subjectId: string, body: unknown) =>
    webhooks.send(shop.domain, topic, subjectId, body);

  /** The product leaves the catalogue (the Admin API and the storefront stop knowing it); the app is told. */
  async function deleteProduct(shop: StandInShop, productId: string): Promise<number> {
    const index = shop.products.findIndex((product) => product.id === productId);
    if (index >= 0) shop.products.splice(index, 1);
    return (await send(shop, "products/delete", productId, { id: Number(productId) })).status;
  }

  /** Applies the change, then sends `products/update` and, for a stock change, `inventory_levels/update`. */
  async function updateVariant(shop: StandInShop, variantId: string, change: VariantChange): Promise<SentWebhook[]> {
    const before = findVariant(shop, variantId)?.variant.inventoryQuantity;
    const { product, variant } = applyVariantChange(shop, variantId, change);
    const at = Date.now();
    const stockChanged = change.inventoryQuantity !== undefined;
    const results = [
      await send(
        shop,
        "products/update",
        product.id,
        productUpdateBody(product, {
          imageOrigin: options.origin(),
          at,
          oldQuantities: stockChanged && before !== undefined ? { [variant.id]: before } : {},
        }),
      ),
    ];
    if (stockChanged) {
      results.push(
        await send(
          shop,
          "inventory_levels/update",
          inventoryItemIdOf(variant.id),
          inventoryLevelUpdateBody(variant, at),
        ),
      );
    }
    return results;
  }

  const app = new Hono();

  app.get("/store/:store/products/:id", (c) => {
    const store = c.req.param("store");
    const shop = byStore(store);
    const product = shop?.products.find((candidate) => candidate.id === c.req.param("id"));
    if (!shop || !product) return c.text("No such product in the platform stand-in", 404);
    const base = `/store/${escapeHtml(store)}/products/${escapeHtml(product.id)}`;
    const variants = variantsOf(product);
    const about = new Set([product.id, ...variants.map((variant) => inventoryItemIdOf(variant.id))]);
    const log = sent.filter((entry) => entry.shopDomain === shop.domain && about.has(entry.subjectId)).reverse();
    const field = (variantId: string, name: string, label: string, value: string, type = "text") =>
      `<form method="post" action="${base}/variants/${escapeHtml(variantId)}" class="inline-form">
        <label>${label} <input name="${name}" value="${escapeHtml(value)}" ${type === "number" ? 'type="number" step="1"' : 'inputmode="decimal"'}></label>
        <button type="submit" class="admin-button">Save</button></form>`;
    const oneClick = (variantId: string, title: string, label: string, quantity: number) =>
      `<form method="post" action="${base}/variants/${escapeHtml(variantId)}" class="inline-form">
        <input type="hidden" name="inventoryQuantity" value="${quantity}">
        <button type="submit" class="admin-button" aria-label="${escapeHtml(`${label} ${title}`)}">${label}</button></form>`;
    const rows = variants
      .map(
        (variant) => `<tr data-variant="${escapeHtml(variant.id)}">
          <th scope="row">${escapeHtml(variant.title)}<br><small>${isAvailableForSale(variant) ? "For sale" : "Sold out"} · stock ${variant.inventoryQuantity ?? "not tracked"}</small></th>
          <td>${field(variant.id, "price", "Price", variant.price)}
            ${field(variant.id, "compareAtPrice", "Compare-at price", variant.compareAtPrice ?? "")}
            ${field(variant.id, "inventoryQuantity", "Stock", String(variant.inventoryQuantity ?? ""), "number")}
            ${oneClick(variant.id, variant.title, "Sell out", 0)}
            ${oneClick(variant.id, variant.title, "Restock", RESTOCK_QUANTITY)}
            <small>Restock sets the stock to ${RESTOCK_QUANTITY}.</small></td>
        </tr>`,
      )
      .join("");
    const logRows = log
      .map(
        (
          entry,
        ) => `<tr><td><time datetime="${new Date(entry.at).toISOString()}">${new Date(entry.at).toISOString().slice(11, 19)} UTC</time></td>
          <td><code>${escapeHtml(entry.topic)}</code></td>
          <td class="${entry.status >= 200 && entry.status < 300 ? "status-ok" : "status-bad"}">${entry.status || "not delivered"}${entry.error ? ` (${escapeHtml(entry.error)})` : ""}</td></tr>`,
      )
      .join("");
    const message = c.req.query("error");
    return c.html(
      html(
        `${product.title} · ${shop.name}`,
        `${adminHeader({ shopName: shop.name, badge: "Products (platform stand-in)", links: options.links(store) })}
        <main class="editor wide"><h1>${escapeHtml(product.title)}</h1>
          ${message ? `<p class="status-bad" role="alert">${escapeHtml(message)}</p>` : ""}
          <div class="editor-card"><p>Handle: ${escapeHtml(product.handle)} · Price: ${escapeHtml(product.price)}</p>
            <p class="editor-hint">A change here is made in this stand-in's catalogue (its Admin API and storefront show it) and sent to the app as products/update, with inventory_levels/update for a stock change, signed as the platform signs them.</p>
            <table class="admin-table" aria-label="Variants"><thead><tr><th scope="col">Variant</th><th scope="col">Change</th></tr></thead><tbody>${rows}</tbody></table>
            <h2>Webhooks sent</h2>
            ${log.length ? `<table class="admin-table" aria-label="Webhooks sent"><thead><tr><th scope="col">Sent</th><th scope="col">Topic</th><th scope="col">App's answer</th></tr></thead><tbody>${logRows}</tbody></table>` : `<p class="editor-hint">None yet.</p>`}
            <a class="admin-button" href="/store/${escapeHtml(store)}/apps/${escapeHtml(appHandle)}">Back to ${escapeHtml(appName)}</a>
            <form method="post" action="${base}/delete">
              <button type="submit" class="admin-button">Delete product</button>
              <p class="editor-hint">Removes it from this stand-in's catalogue and sends the app products/delete.</p>
            </form></div></main>`,
      ),
    );
  });

  app.post("/store/:store/products/:id/variants/:variantId", async (c) => {
    const store = c.req.param("store");
    const shop = byStore(store);
    const found = shop ? findVariant(shop, c.req.param("variantId")) : null;
    if (!shop || !found || found.product.id !== c.req.param("id")) {
      return c.text("No such variant in the platform stand-in", 404);
    }
    const change = changeOf(await c.req.parseBody());
    const back = `/store/${store}/products/${found.product.id}`;
    const refused = refuseChange(change);
    if (refused) return c.redirect(`${back}?error=${encodeURIComponent(refused)}`, 303);
    await updateVariant(shop, found.variant.id, change);
    return c.redirect(back, 303);
  });

  app.post("/store/:store/products/:id/delete", async (c) => {
    const shop = byStore(c.req.param("store"));
    if (!shop) return c.text("No such shop in the platform stand-in", 404);
    await deleteProduct(shop, c.req.param("id"));
    return c.redirect(`/store/${c.req.param("store")}/apps/${appHandle}`, 303);
  });

  return { app, deleteProduct, updateVariant };
}

/** The fields a product page form carries; an absent field is no change ("" compare-at price removes it). */
function changeOf(form: Record<string, unknown>): VariantChange {
  const text = (name: string) => (typeof form[name] === "string" ? (form[name] as string).trim() : undefined);
  const change: VariantChange = {};
  const price = text("price");
  const compareAtPrice = text("compareAtPrice");
  const quantity = text("inventoryQuantity");
  if (price !== undefined) change.price = price;
  if (compareAtPrice !== undefined) change.compareAtPrice = compareAtPrice;
  if (quantity !== undefined) change.inventoryQuantity = /^-?\d+$/.test(quantity) ? Number(quantity) : Number.NaN;
  return change;
}
