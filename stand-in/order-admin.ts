/**
 * The stand-in admin's Orders page (`/store/<shop>/orders`) and what the platform does with an order: the
 * storefront's checkout places it (stand-in/online-store.ts) and the app is sent `orders/create`, then
 * `orders/paid`; the merchant cancels it ("Cancel order": `orders/cancelled`) or refunds one unit of a line
 * ("Refund one item": `refunds/create`). Each webhook is signed and sent as the platform sends it and
 * recorded with the app's answer (stand-in/platform-webhooks.ts), which the page lists. The bodies are
 * stand-in/orders.ts's.
 *
 * For tests and scripts, as the product page's forms are: `GET /store/<shop>/orders.json` (the orders' REST
 * bodies, newest first), `POST /store/<shop>/orders/<id>/cancel` and
 * `POST /store/<shop>/orders/<id>/line_items/<line item id>/refund` (optional `quantity`, 1 unless given).
 * A POST that accepts JSON is answered with `{ webhook }` (what was sent and the app's answer) or 422
 * `{ error }`; a form post goes back to the page.
 */
import { Hono, type Context } from "hono";
import { adminHeader, answerAdminAction, escapeHtml, html, type HeaderLink } from "./admin-chrome";
import type { StandInShop } from "./demo-data";
import { formatMoney } from "./money";
import {
  cancelOrder,
  currentQuantity,
  financialStatus,
  orderBody,
  orderName,
  placeOrder,
  refundBody,
  refundLine,
  type CheckoutInput,
  type StandInOrder,
} from "./orders";
import type { SentWebhook, WebhookLog } from "./platform-webhooks";

export interface OrderAdminOptions {
  shops: StandInShop[];
  /** Where the webhooks are sent from and recorded (shared with the product admin). */
  webhooks: WebhookLog;
  links: (store: string) => HeaderLink[];
  /** Called after the orders changed: the stand-in's state file keeps them. */
  changed: () => void;
}

const storeName = (domain: string) => domain.replace(/\.myshopify\.com$/, "");

export function createOrderAdmin(options: OrderAdminOptions) {
  const { shops, webhooks } = options;
  const byStore = (store: string) => shops.find((shop) => storeName(shop.domain) === store);
  const bodyOf = orderBody;

  function orderOf(shop: StandInShop, orderId: string): StandInOrder {
    const order = shop.orders?.find((candidate) => candidate.id === orderId);
    if (!order) throw new Error(`No order ${orderId} in ${shop.domain}`);
    return order;
  }

  /**
   * Places the checkout's order and sends the app `orders/create`, then `orders/paid` (in the background, as
   * the platform sends webhooks after the checkout has answered): `delivered` resolves with both.
   */
  function place(shop: StandInShop, input: CheckoutInput): { order: StandInOrder; delivered: Promise<SentWebhook[]> } {
    const order = placeOrder(shop, input);
    options.changed();
    const body = bodyOf(shop, order);
    const delivered = (async () => [
      await webhooks.send(shop.domain, "orders/create", order.id, body),
      await webhooks.send(shop.domain, "orders/paid", order.id, body),
    ])();
    return { order, delivered };
  }

  /** Cancels the order and sends `orders/cancelled` with the order as it now is; throws if it cannot be. */
  async function cancel(shop: StandInShop, orderId: string): Promise<SentWebhook> {
    const order = orderOf(shop, orderId);
    cancelOrder(order);
    options.changed();
    return webhooks.send(shop.domain, "orders/cancelled", order.id, bodyOf(shop, order));
  }

  /** Refunds `quantity` of a line and sends `refunds/create` with the refund; throws if it cannot be. */
  async function refund(shop: StandInShop, orderId: string, lineItemId: string, quantity = 1): Promise<SentWebhook> {
    const order = orderOf(shop, orderId);
    const made = refundLine(order, lineItemId, quantity);
    options.changed();
    return webhooks.send(shop.domain, "refunds/create", made.id, refundBody(order, made));
  }

  const app = new Hono();

  app.get("/store/:store/orders.json", (c) => {
    const shop = byStore(c.req.param("store"));
    if (!shop) return c.json({ errors: "Not Found" }, 404);
    return c.json({ orders: [...(shop.orders ?? [])].reverse().map((order) => bodyOf(shop, order)) });
  });

  app.get("/store/:store/orders", (c) => {
    const store = c.req.param("store");
    const shop = byStore(store);
    if (!shop) return c.text("No such shop in the platform stand-in", 404);
    const orders = [...(shop.orders ?? [])].reverse();
    const message = c.req.query("error");
    return c.html(
      html(
        `Orders · ${shop.name}`,
        `${adminHeader({ shopName: shop.name, badge: "Orders (platform stand-in)", links: options.links(store) })}
        <main class="editor wide"><h1>Orders</h1>
          ${message ? `<p class="status-bad" role="alert">${escapeHtml(message)}</p>` : ""}
          <p class="editor-hint">Orders placed with the local storefront's "Check out", newest first. The app was sent orders/create and orders/paid for each; "Cancel order" sends orders/cancelled, "Refund one item" sends refunds/create, signed as the platform signs them.</p>
          <div class="order-list">${orders.length ? orders.map((order) => orderCard(shop, store, order)).join("") : `<div class="editor-card"><p>None yet.</p></div>`}</div>
        </main>`,
      ),
    );
  });

  /** Where a POST goes once done: JSON for a caller that accepts it, else back to the page. */
  const act = (c: Context, run: (shop: StandInShop) => Promise<SentWebhook>) =>
    answerAdminAction(c, { shop: byStore(c.req.param("store")!), page: "orders" }, run);

  app.post("/store/:store/orders/:id/cancel", (c) => act(c, (shop) => cancel(shop, c.req.param("id"))));
  app.post("/store/:store/orders/:id/line_items/:lineItemId/refund", async (c) => {
    const type = c.req.header("content-type") ?? "";
    const body = (
      type.includes("application/json") ? await c.req.json().catch(() => ({})) : type ? await c.req.parseBody() : {}
    ) as { quantity?: unknown };
    const quantity = body.quantity === undefined || body.quantity === "" ? 1 : Number(body.quantity);
    return act(c, (shop) => refund(shop, c.req.param("id"), c.req.param("lineItemId"), quantity));
  });

  /** One order on the page: its lines with what is left of each, its attributes, its actions and its webhooks. */
  function orderCard(shop: StandInShop, store: string, order: StandInOrder) {
    const base = `/store/${escapeHtml(store)}/orders/${escapeHtml(order.id)}`;
    const customer = shop.customers.find((candidate) => candidate.id === order.customerId);
    const name = orderName(order);
    const status = order.cancelledAt !== null ? "Cancelled (refunded)" : financialStatus(order).replace("_", " ");
    const shopMoney = (minor: number) => formatMoney(minor, order.currency);
    const paid = (minor: number) => formatMoney(minor, order.presentmentCurrency);
    const sum = (pick: (line: StandInOrder["lines"][number]) => number) =>
      order.lines.reduce((total, line) => total + pick(line), 0);
    const rows = order.lines
      .map((line) => {
        const left = currentQuantity(order, line);
        const title =
          line.variantTitle === "Default Title" ? line.productTitle : `${line.productTitle} - ${line.variantTitle}`;
        return `<tr data-line-item="${escapeHtml(line.id)}"><th scope="row">${escapeHtml(title)}<br><small>line item ${escapeHtml(line.id)}</small></th>
          <td>${line.quantity}</td><td>${left}</td>
          <td>${shopMoney(line.unitShop)}${order.presentmentCurrency === order.currency ? "" : ` (${paid(line.unitPresentment)})`}</td>
          <td>${
            left > 0
              ? `<form method="post" action="${base}/line_items/${escapeHtml(line.id)}/refund" class="inline-form">
              <button type="submit" class="admin-button" aria-label="${escapeHtml(`Refund one item: ${title} (${name})`)}">Refund one item</button></form>`
              : ""
          }</td></tr>`;
      })
      .join("");
    const subjects = new Set([order.id, ...order.refunds.map((made) => made.id)]);
    const log = webhooks.sent
      .filter((entry) => entry.shopDomain === shop.domain && subjects.has(entry.subjectId))
      .reverse()
      .map(
        (
          entry,
        ) => `<tr><td><time datetime="${new Date(entry.deliveredAt).toISOString()}">${new Date(entry.deliveredAt).toISOString().slice(11, 19)} UTC</time></td>
          <td><code>${escapeHtml(entry.topic)}</code></td>
          <td class="${entry.status >= 200 && entry.status < 300 ? "status-ok" : "status-bad"}">${entry.status || "not delivered"}${entry.error ? ` (${escapeHtml(entry.error)})` : ""}</td></tr>`,
      )
      .join("");
    return `<section class="editor-card" data-order="${escapeHtml(order.id)}" aria-labelledby="order-${escapeHtml(order.id)}">
      <h2 id="order-${escapeHtml(order.id)}">${escapeHtml(name)} · ${escapeHtml(status)}</h2>
      <p>Placed <time datetime="${new Date(order.createdAt).toISOString()}">${new Date(order.createdAt).toISOString().replace("T", " ").slice(0, 19)} UTC</time>
        by ${customer ? `${escapeHtml(customer.firstName)} ${escapeHtml(customer.lastName)} (customer ${escapeHtml(customer.id)})` : "a guest"} ·
        order ${escapeHtml(order.id)} · total ${shopMoney(sum((line) => line.unitShop * line.quantity))}${
          order.presentmentCurrency === order.currency
            ? ""
            : `, paid in ${escapeHtml(order.presentmentCurrency)}: ${paid(sum((line) => line.unitPresentment * line.quantity))}`
        }</p>
      <table class="admin-table" aria-label="Lines of ${escapeHtml(name)}"><thead><tr><th scope="col">Item</th><th scope="col">Ordered</th><th scope="col">Left</th><th scope="col">Unit price</th><th scope="col">Refund</th></tr></thead><tbody>${rows}</tbody></table>
      ${
        order.attributes.length
          ? `<p>Cart attributes (note_attributes): ${order.attributes.map(({ name: key, value }) => `<code>${escapeHtml(key)}</code> = <code>${escapeHtml(value)}</code>`).join(", ")}</p>`
          : `<p class="editor-hint">No cart attributes.</p>`
      }
      ${
        order.cancelledAt === null
          ? `<form method="post" action="${base}/cancel"><button type="submit" class="admin-button admin-button--critical" aria-label="Cancel order ${escapeHtml(name)}">Cancel order</button></form>`
          : ""
      }
      ${log ? `<table class="admin-table" aria-label="Webhooks sent for ${escapeHtml(name)}"><thead><tr><th scope="col">Sent</th><th scope="col">Topic</th><th scope="col">App's answer</th></tr></thead><tbody>${log}</tbody></table>` : ""}
    </section>`;
  }

  return { app, place, cancel, refund };
}
