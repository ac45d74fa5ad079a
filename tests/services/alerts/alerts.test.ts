import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { beforeEach, describe, expect, it } from "vitest";
import { ROOT } from "../../../scripts/lib/databases";
import type { MailboxMessage } from "../../../stand-in/mailbox";
import { until } from "../../support/poll";
import type { Received } from "../webhooks/receiver";

/**
 * The wishlist alerts end to end (docs/decisions/050-wishlist-alerts.md): the platform stand-in changes a
 * product as a merchant does and sends its signed webhooks to the app on loopback; the real worker reads the
 * product, makes the alerts and sends them to a real SMTP server (the stand-in's mailbox), to Flow and to a
 * webhook receiver. Every check waits for the state it expects.
 */
Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  OUTBOX_RELAY_INTERVAL_MS: "50",
  ALERT_GATHER_MS: "3000",
  ALERT_DIGEST_MS: "1500",
  ALERT_SEND_LEASE_MS: "5000",
  ALERT_RETRY_BASE_MS: "500",
});

const { getEnv } = await import("~/env.server");
const { startAlertStack } = await import("../../support/alert-stack");
const { app, callsOf, appUrl, platform, mailbox, alertShop } = await startAlertStack();

const { database } = await import("~/data/database.server");
const { insertAlerts, insertMessages } = await import("~/data/alert-rows.server");
const { newId } = await import("~/lib/ids");
const { MAX_DIGEST_ITEMS } = await import("~/services/alerts/alert-settings");
const { useWorker } = await import("../../support/worker");
const { startReceiver } = await import("../webhooks/receiver");
const { createEndpoint } = await import("~/services/webhooks/endpoints.server");
const { signedProxyPath } = await import("../../support/openapi-client");

useWorker({ SHOPIFY_ADMIN_API_ORIGIN: platform.origin });

beforeEach(() => {
  mailbox.rejectRecipients(null);
  mailbox.down(false);
});

const TOTE = { productId: "8100000008", variantId: "9100000008", handle: "pebble-canvas-tote" };
const COAT = { productId: "8100000002", variantId: "9100000002", handle: "harbor-wool-coat" };
const SCARF = { productId: "8100000009", variantId: "9100000009", handle: "ember-wool-scarf" };
const HAT = { productId: "8100000003", variantId: "9100000003", handle: "meadow-sun-hat" };
const CUSTOMERS = { ada: "7001", grace: "7002", alan: "7003", katherine: "7004" } as const;

const to = (address: string) => (message: MailboxMessage) => message.to.includes(address);
const mailTo = (address: string) => mailbox.messages().filter(to(address));

describe("back in stock", () => {
  it("emails a consenting customer once, with one-click unsubscribe and a signed product link; not again within the cooldown", async () => {
    const s = await alertShop();
    await s.save(CUSTOMERS.ada, TOTE);
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);

    await s.change(TOTE.variantId, { inventoryQuantity: 20 });
    const email = await mailbox.waitFor(to(s.emailOf(CUSTOMERS.ada)), { timeoutMs: 90_000 });
    expect(email.subject).toBe("Back in stock: Pebble Canvas Tote");
    expect(email.from).toContain("wishlist@demo-shop.example");
    expect(email.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");
    const unsubscribe = /<(http[^>]+\/alerts\/unsubscribe\/[^>]+)>/.exec(
      String(email.headers["list-unsubscribe"]),
    )?.[1];
    expect(unsubscribe?.startsWith(`${getEnv().SHOPIFY_APP_URL ?? ""}`)).toBe(true);
    const [message] = await until(s.messages, (rows) => rows[0]?.state === "sent", "the message recorded sent");
    expect(email.messageId).toBe(`<${message!.id}@${new URL(unsubscribe!).hostname}>`);
    const link = new RegExp(`https://${s.shop.domain}/apps/service/alerts/click/([A-Za-z0-9_.-]+)`).exec(
      email.html ?? "",
    );
    expect(link).not.toBeNull();
    const [alert] = await s.alerts();
    expect(alert).toMatchObject({
      kind: "back_in_stock",
      customerId: CUSTOMERS.ada,
      productId: TOTE.productId,
      messageId: message!.id,
    });

    // The link, through the app proxy on the shop's domain: recorded, then on to the product page.
    const click = await app.request(
      `${appUrl}${signedProxyPath(`/proxy/alerts/click/${link![1]}`, { shop: s.shop.domain })}`,
    );
    expect(click.status).toBe(302);
    expect(click.headers.get("location")).toBe(`/products/${TOTE.handle}`);
    expect((await s.alerts())[0]!.clickedAt).toBeInstanceOf(Date);

    // Sold out and back again within the cooldown: read, and no second alert.
    await s.change(TOTE.variantId, { inventoryQuantity: 0 });
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    await s.change(TOTE.variantId, { inventoryQuantity: 15 });
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 15);
    expect(await s.alerts()).toHaveLength(1);
    expect(mailTo(s.emailOf(CUSTOMERS.ada))).toHaveLength(1);
  });

  it("makes nothing for a guest, nor for a customer without consent unless the merchant chose every customer", async () => {
    const s = await alertShop();
    const { publicCall } = callsOf({ shop: s.shop });
    const guest = await publicCall("/storefront/wishlist/items", {
      method: "POST",
      body: { productId: TOTE.productId, handle: TOTE.handle, anonymousId: "5b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c11" },
    });
    expect(guest.status).toBeLessThan(300);
    await s.save(CUSTOMERS.katherine, TOTE);
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    await s.change(TOTE.variantId, { inventoryQuantity: 20 });
    const [message] = await until(s.messages, (rows) => rows[0]?.state === "skipped", "the message skipped");
    expect(message!.error).toBe("no email marketing consent");
    expect(await s.alerts()).toHaveLength(1); // Katherine's; the guest has none
    expect(mailTo(s.emailOf(CUSTOMERS.katherine))).toEqual([]);

    const all = await alertShop({ email: { audience: "all" } });
    await all.save(CUSTOMERS.katherine, TOTE);
    await all.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    await all.change(TOTE.variantId, { inventoryQuantity: 20 });
    await mailbox.waitFor(to(all.emailOf(CUSTOMERS.katherine)), { timeoutMs: 90_000 });
  });

  it("sends nothing for a product the customer removed before the email went", async () => {
    const s = await alertShop();
    await s.save(CUSTOMERS.ada, TOTE);
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    await s.change(TOTE.variantId, { inventoryQuantity: 20 });
    await until(s.alerts, (rows) => rows.length === 1, "the alert");
    await s.remove(CUSTOMERS.ada, TOTE.productId);
    const [message] = await until(s.messages, (rows) => rows[0]?.state === "skipped", "the message skipped");
    expect(message!.error).toBe("the products were removed from the wishlist");
    expect(mailTo(s.emailOf(CUSTOMERS.ada))).toEqual([]);
  });
});

describe("price drop and low stock", () => {
  it("alerts a drop of at least the threshold below the price seen, in the customer's language; not a smaller one", async () => {
    const s = await alertShop();
    await s.save(CUSTOMERS.grace, COAT);
    await s.read(COAT.productId, ([row]) => row!.priceMinor === 3_600);
    await s.change(COAT.variantId, { price: "34.00" }); // 5.6% below: under the 10% threshold
    await s.read(COAT.productId, ([row]) => row!.priceMinor === 3_400);
    expect(await s.alerts()).toEqual([]);

    await s.change(COAT.variantId, { price: "30.00" }); // 16.7% below the 36.00 seen
    const email = await mailbox.waitFor(to(s.emailOf(CUSTOMERS.grace)), { timeoutMs: 90_000 });
    expect(email.subject).toContain("Harbor Wool Coat");
    expect(email.headers["content-language"] ?? email.html).toContain("fr");
    expect(email.html).toContain("30,00");
    expect(email.html).toContain("36,00");
    const [alert] = await s.alerts();
    expect(alert).toMatchObject({ kind: "price_dropped", oldPriceMinor: 3_600, newPriceMinor: 3_000, currency: "USD" });
    // The unsubscribe page speaks the email's language.
    const unsubscribe = new URL(/<(http[^>]+)>/.exec(String(email.headers["list-unsubscribe"]))![1]!);
    const page = await (
      await app.request(`${appUrl}${unsubscribe.pathname}`, { headers: { accept: "text/html" } })
    ).text();
    expect(page).toContain('<html lang="fr">');
    expect(page).toContain("Me désabonner");
    expect(page).toContain("Demo Shop");
  });

  it("alerts low stock once until the stock is above the threshold again", async () => {
    const s = await alertShop();
    await s.save(CUSTOMERS.alan, SCARF);
    await s.read(SCARF.productId, ([row]) => row!.inventoryQuantity === 3);
    await s.change(SCARF.variantId, { inventoryQuantity: 2 });
    await until(s.alerts, (rows) => rows.length === 1, "the low-stock alert");
    await s.change(SCARF.variantId, { inventoryQuantity: 1 });
    await s.read(SCARF.productId, ([row]) => row!.inventoryQuantity === 1);
    const alerts = await s.alerts();
    expect(alerts.map((alert) => [alert.kind, alert.quantity])).toEqual([["low_stock", 2]]);
    const item = () =>
      database()
        .selectFrom("Item")
        .select("lowStockAlertedAt")
        .where("shopId", "=", s.shop.id)
        .executeTakeFirstOrThrow();
    expect((await item()).lowStockAlertedAt).toBeInstanceOf(Date);
    await s.change(SCARF.variantId, { inventoryQuantity: 30 });
    await s.read(SCARF.productId, ([row]) => row!.inventoryQuantity === 30);
    expect((await item()).lowStockAlertedAt).toBeNull();
    const email = await mailbox.waitFor(to(s.emailOf(CUSTOMERS.alan)), { timeoutMs: 90_000 });
    expect(email.html).toContain("Ember Wool Scarf");
  });

  it("puts the changes of one moment for one customer in one digest", async () => {
    const s = await alertShop();
    await s.save(CUSTOMERS.ada, TOTE);
    await s.save(CUSTOMERS.ada, COAT);
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    await s.read(COAT.productId, ([row]) => row!.priceMinor === 3_600);
    await Promise.all([
      s.change(TOTE.variantId, { inventoryQuantity: 9 }),
      s.change(COAT.variantId, { price: "20.00" }),
    ]);
    const email = await mailbox.waitFor(to(s.emailOf(CUSTOMERS.ada)), { timeoutMs: 90_000 });
    const messages = await until(s.messages, (rows) => rows.every((row) => row.state === "sent"), "the messages sent");
    const alerts = await s.alerts();
    expect(alerts.map((alert) => alert.kind).sort()).toEqual(["back_in_stock", "price_dropped"]);
    // Both alerts in the one email when they came within its gathering window; else the second waits the
    // digest window and goes in the next email. Either way no alert is sent twice or left unsent.
    expect(new Set(alerts.map((alert) => alert.messageId)).size).toBe(messages.length);
    if (messages.length === 1) expect(email.subject).toBe("2 updates on your wishlist");
    await until(
      () => mailTo(s.emailOf(CUSTOMERS.ada)),
      (mails) => mails.length === messages.length,
      "every email",
    );
  });
});

describe("digests", () => {
  it("puts no more alerts in one email than MAX_DIGEST_ITEMS: past that, an alert is made but not emailed", async () => {
    const s = await alertShop();
    await s.save(CUSTOMERS.ada, TOTE);
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    // Ada's open email, due later, already carries a sale's worth of price drops.
    const at = new Date();
    const messageId = newId("alertMessage");
    const later = new Date(at.getTime() + 10 * 60_000);
    await insertMessages(database(), [
      { id: messageId, shopId: s.shop.id, customerId: CUSTOMERS.ada, dueAt: later, createdAt: at },
    ]);
    await insertAlerts(
      database(),
      Array.from({ length: MAX_DIGEST_ITEMS }, (_, n) => ({
        id: newId("alert"),
        shopId: s.shop.id,
        customerId: CUSTOMERS.ada,
        listId: "list_sale",
        itemId: `item_sale_${n}`,
        productId: String(8_300_000_000 + n),
        variantId: "",
        kind: "price_dropped",
        oldPriceMinor: 2_000,
        newPriceMinor: 1_500,
        currency: "USD",
        changeKey: `sale-${n}`,
        messageId,
        createdAt: at,
      })),
    );
    await s.change(TOTE.variantId, { inventoryQuantity: 9 });
    const alerts = await until(
      s.alerts,
      (rows) => rows.some((row) => row.productId === TOTE.productId),
      "the tote's alert",
    );
    const tote = alerts.find((row) => row.productId === TOTE.productId)!;
    expect([tote.kind, tote.messageId]).toEqual(["back_in_stock", null]);
    expect(alerts.filter((row) => row.messageId === messageId)).toHaveLength(MAX_DIGEST_ITEMS);
    expect((await s.messages()).map((row) => [row.id, row.state])).toEqual([[messageId, "pending"]]);
  });
});

describe("deliverability", () => {
  it("suppresses an address the server refuses with a 5xx, and sends nothing to it again", async () => {
    const s = await alertShop();
    mailbox.rejectRecipients(s.emailOf(CUSTOMERS.ada));
    await s.save(CUSTOMERS.ada, TOTE);
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    await s.change(TOTE.variantId, { inventoryQuantity: 20 });
    const [message] = await until(s.messages, (rows) => rows[0]?.state === "failed", "the message failed");
    expect(message!.error).toContain("550");
    const suppression = await database()
      .selectFrom("AlertSuppression")
      .selectAll()
      .where("shopId", "=", s.shop.id)
      .execute();
    expect(suppression).toEqual([expect.objectContaining({ customerId: CUSTOMERS.ada, reason: "bounced" })]);
    mailbox.rejectRecipients(null);
    await s.save(CUSTOMERS.ada, HAT);
    await s.read(HAT.productId, (rows) => rows.length > 0);
    await s.change(HAT.variantId, { price: "1.00" });
    const next = await until(
      s.messages,
      (rows) => rows.length === 2 && rows[1]!.state === "skipped",
      "the next skipped",
    );
    expect(next[1]!.error).toBe("address refused earlier");
    expect(mailTo(s.emailOf(CUSTOMERS.ada))).toEqual([]);
  });

  it("keeps an email through a minute of SMTP outage and sends it once the server is back", async () => {
    const s = await alertShop();
    await s.save(CUSTOMERS.ada, TOTE);
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    mailbox.down(true);
    const downSince = Date.now();
    await s.change(TOTE.variantId, { inventoryQuantity: 20 });
    await until(
      s.messages,
      (rows) => Date.now() - downSince >= 60_000 && (rows[0]?.attempts ?? 0) >= 3,
      "a minute of retries while the server is down",
      180_000,
    );
    expect((await s.messages())[0]).toMatchObject({ state: "pending" });
    mailbox.down(false);
    await mailbox.waitFor(to(s.emailOf(CUSTOMERS.ada)), { timeoutMs: 120_000 });
    await until(s.messages, (rows) => rows[0]?.state === "sent", "the message sent");
    expect(mailTo(s.emailOf(CUSTOMERS.ada))).toHaveLength(1);
  });

  it("keeps to the shop's pace: no more emails in a minute than its rate", async () => {
    const s = await alertShop({ email: { ratePerMinute: 2, audience: "all" } });
    for (const customer of Object.values(CUSTOMERS)) await s.save(customer, TOTE);
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    await s.change(TOTE.variantId, { inventoryQuantity: 20 });
    const ours = () => Object.values(CUSTOMERS).flatMap((customer) => mailTo(s.emailOf(customer)));
    await until(ours, (mails) => mails.length >= 2, "the first two emails");
    // The other two are due, and held for the next minute.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(ours()).toHaveLength(2);
    const messages = await s.messages();
    expect(messages.map((message) => message.state).sort()).toEqual(["pending", "pending", "sent", "sent"]);
    for (const message of messages) expect(message.dueAt.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("unsubscribes with the signed one-click link, idempotently, and refuses a tampered one", async () => {
    const s = await alertShop();
    await s.save(CUSTOMERS.ada, TOTE);
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    await s.change(TOTE.variantId, { inventoryQuantity: 20 });
    const email = await mailbox.waitFor(to(s.emailOf(CUSTOMERS.ada)), { timeoutMs: 90_000 });
    const url = new URL(/<(http[^>]+)>/.exec(String(email.headers["list-unsubscribe"]))![1]!);
    const page = await app.request(`${appUrl}${url.pathname}`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post">');
    // A GET never unsubscribes: link scanners follow links.
    expect(
      await database().selectFrom("AlertSuppression").selectAll().where("shopId", "=", s.shop.id).execute(),
    ).toEqual([]);
    const oneClick = () =>
      app.request(`${appUrl}${url.pathname}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      });
    expect((await oneClick()).status).toBe(200);
    expect((await oneClick()).status).toBe(200);
    // Opened again, the page says it is done rather than offering the button again.
    const again = await (await app.request(`${appUrl}${url.pathname}`, { headers: { accept: "text/html" } })).text();
    expect(again).toContain("You are unsubscribed");
    expect(again).not.toContain("<form");
    expect(again).toContain(`href="https://${s.shop.domain}/"`);
    expect(
      await database()
        .selectFrom("AlertSuppression")
        .select(["customerId", "reason"])
        .where("shopId", "=", s.shop.id)
        .execute(),
    ).toEqual([{ customerId: CUSTOMERS.ada, reason: "unsubscribed" }]);
    const token = url.pathname.split("/").pop()!;
    const [body, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(body!, "base64url").toString()) as Record<string, unknown>;
    const forged = `${Buffer.from(JSON.stringify({ ...claims, c: CUSTOMERS.grace })).toString("base64url")}.${signature}`;
    const refused = await app.request(`${appUrl}/alerts/unsubscribe/${forged}`, {
      method: "POST",
      body: "List-Unsubscribe=One-Click",
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(((await refused.json()) as { type: string }).type).toMatch(/\/problems\/alert-link-invalid$/);
    expect(
      await database().selectFrom("AlertSuppression").select("customerId").where("shopId", "=", s.shop.id).execute(),
    ).toHaveLength(1);
    // Unsubscribed: the next alert's email is not sent.
    await s.save(CUSTOMERS.ada, HAT);
    await s.read(HAT.productId, (rows) => rows.length > 0);
    await s.change(HAT.variantId, { price: "1.00" });
    const next = await until(
      s.messages,
      (rows) => rows.length === 2 && rows[1]!.state === "skipped",
      "the next skipped",
    );
    // Skipped as it is made: nothing waits to be sent to them, even if they are taken off the list later.
    expect(next[1]).toMatchObject({ error: "unsubscribed", attempts: 0, open: null });
    expect(mailTo(s.emailOf(CUSTOMERS.ada))).toHaveLength(1);
  });

  it("refuses a product link signed for another shop, or through another shop's proxy", async () => {
    const s = await alertShop();
    const other = await alertShop();
    await s.save(CUSTOMERS.ada, TOTE);
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    await s.change(TOTE.variantId, { inventoryQuantity: 20 });
    const email = await mailbox.waitFor(to(s.emailOf(CUSTOMERS.ada)), { timeoutMs: 90_000 });
    const token = /\/apps\/service\/alerts\/click\/([A-Za-z0-9_.-]+)/.exec(email.html ?? "")![1]!;
    const viaOther = await app.request(
      `${appUrl}${signedProxyPath(`/proxy/alerts/click/${token}`, { shop: other.shop.domain })}`,
    );
    expect(viaOther.status).toBe(400);
    const unsigned = await app.request(`${appUrl}/proxy/alerts/click/${token}?shop=${s.shop.domain}`);
    expect(unsigned.status).toBe(401);
    expect((await s.alerts())[0]!.clickedAt).toBeNull();
  });
});

describe("Flow and webhooks", () => {
  it("sends the Flow trigger of a workflow the shop uses, with the fields its extension declares", async () => {
    const s = await alertShop({ email: { enabled: false } });
    expect(await platform.setFlowWorkflow(s.shop.domain, "wishlist-back-in-stock", true)).toBe(200);
    const { privateCall } = callsOf({ shop: s.shop, secret: s.secret });
    const overview = await privateCall("/shop");
    expect(
      ((await overview.json()) as { settings: { integrationConfigured: boolean } }).settings.integrationConfigured,
    ).toBe(true);

    await s.save(CUSTOMERS.ada, TOTE);
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    await s.change(TOTE.variantId, { inventoryQuantity: 20 });
    const call = await until(
      () => platform.flowTriggers.find((trigger) => trigger.shopDomain === s.shop.domain),
      (found) => found !== undefined,
      "the Flow trigger",
    );
    expect(call!.handle).toBe("wishlist-back-in-stock");
    const extension = parse(
      readFileSync(path.join(ROOT, "extensions/wishlist-flow-back-in-stock/shopify.extension.toml"), "utf8"),
    ) as { extensions: Array<{ handle: string }>; settings: { fields: Array<{ type: string; key?: string }> } };
    expect(extension.extensions[0]!.handle).toBe(call!.handle);
    const declared = new Map(
      extension.settings.fields.map((field) => [
        field.key ?? { customer_reference: "customer_id", product_reference: "product_id" }[field.type]!,
        field.type,
      ]),
    );
    const payload = call!.payload as Record<string, unknown>;
    expect(Object.keys(payload).sort()).toEqual([...declared.keys()].sort());
    const typeOf = {
      customer_reference: "number",
      product_reference: "number",
      number_decimal: "number",
      number_integer: "number",
      single_line_text_field: "string",
    } as Record<string, string>;
    for (const [key, value] of Object.entries(payload)) expect(typeof value, key).toBe(typeOf[declared.get(key)!]);
    expect(payload).toMatchObject({
      customer_id: 7001,
      product_id: 8100000008,
      "Variant id": TOTE.variantId,
      Price: 78,
      Currency: "USD",
    });
    await until(s.alerts, (rows) => rows[0]?.flowState === "sent", "the trigger recorded sent");
    expect(await s.messages()).toEqual([]); // the email channel is off

    // The workflow turned off: no trigger for the next alert, and no alert at all without a channel.
    expect(await platform.setFlowWorkflow(s.shop.domain, "wishlist-back-in-stock", false)).toBe(200);
    await s.save(CUSTOMERS.grace, COAT);
    await s.read(COAT.productId, (rows) => rows.length > 0);
    await s.change(COAT.variantId, { price: "10.00" });
    await s.read(COAT.productId, ([row]) => row!.priceMinor === 1_000);
    expect(await s.alerts()).toHaveLength(1);
  });

  it("refuses a lifecycle callback that is not signed with the app's secret, and ignores an older one", async () => {
    const s = await alertShop();
    const send = (body: object, secret = getEnv().SHOPIFY_API_SECRET) => {
      const text = JSON.stringify(body);
      return app.request(`${appUrl}/flow/lifecycle`, {
        method: "POST",
        body: text,
        headers: {
          "content-type": "application/json",
          "x-shopify-hmac-sha256": createHmac("sha256", secret).update(text).digest("base64"),
        },
      });
    };
    const body = {
      flow_trigger_definition_id: "wishlist-low-stock",
      has_enabled_flow: true,
      shopify_domain: s.shop.domain,
      timestamp: "2026-11-01T10:00:00Z",
    };
    expect((await send(body, "not-the-secret")).status).toBe(401);
    expect((await send({ ...body, flow_trigger_definition_id: "someone-else" })).status).toBe(404);
    expect(await (await send(body)).json()).toEqual({ applied: true, reason: null });
    expect(await (await send({ ...body, has_enabled_flow: false, timestamp: "2026-10-01T10:00:00Z" })).json()).toEqual({
      applied: false,
      reason: "older than the one applied",
    });
    const uses = await database().selectFrom("FlowTriggerUse").selectAll().where("shopId", "=", s.shop.id).execute();
    expect(uses).toEqual([expect.objectContaining({ trigger: "wishlist-low-stock", enabled: true })]);
  });

  it("delivers alert.* events, signed with the endpoint's secret, to an endpoint subscribed to them", async () => {
    const s = await alertShop({ email: { enabled: false } });
    const receiver = await startReceiver();
    try {
      const { secret } = await createEndpoint({ shopId: s.shop.id, url: receiver.url, events: ["alert.low_stock"] });
      await s.save(CUSTOMERS.alan, SCARF);
      await s.read(SCARF.productId, ([row]) => row!.inventoryQuantity === 3);
      await s.change(SCARF.variantId, { inventoryQuantity: 2 });
      await receiver.waitFor(1);
      const delivered: Received = receiver.received[0]!;
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivered.headers["x-service-signature"]))!;
      const expected = createHmac("sha256", secret).update(`${t}.`).update(delivered.body).digest();
      expect(timingSafeEqual(expected, Buffer.from(v1!, "hex"))).toBe(true);
      const event = JSON.parse(delivered.body.toString()) as { type: string; data: Record<string, unknown> };
      expect(event.type).toBe("alert.low_stock");
      expect(event.data).toMatchObject({
        customerId: CUSTOMERS.alan,
        variantId: SCARF.variantId,
        currency: "USD",
        old: { available: true, inventoryQuantity: 3 },
        new: { available: true, inventoryQuantity: 2 },
        product: { productId: SCARF.productId, handle: SCARF.handle },
      });
    } finally {
      await receiver.close();
    }
  });
});
