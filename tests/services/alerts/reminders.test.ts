import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { QueueEvents } from "bullmq";
import { parse } from "smol-toml";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { ROOT } from "../../../scripts/lib/databases";
import type { MailboxMessage } from "../../../stand-in/mailbox";
import { until } from "../../support/poll";

/**
 * The reminder rule (issue 30, docs/decisions/050-wishlist-alerts.md#reminders), end to end: customers save
 * products through the app proxy, their saves are moved back in time as days passing would leave them, and the
 * real worker's reminder runs (queued by the hourly sweep, or one run queued by hand) remind them through a
 * real SMTP server (the stand-in's mailbox), Flow (the platform stand-in) and a webhook receiver. Orders come
 * as the platform's signed orders/create webhooks.
 */
Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  OUTBOX_RELAY_INTERVAL_MS: "50",
  ALERT_GATHER_MS: "1000",
  ALERT_DIGEST_MS: "1000",
  ALERT_SEND_LEASE_MS: "5000",
  ALERT_RETRY_BASE_MS: "500",
});

const { getEnv } = await import("~/env.server");
const { startAlertStack } = await import("../../support/alert-stack");
const { app, callsOf, appUrl, platform, mailbox, alertShop } = await startAlertStack();

const { database } = await import("~/data/database.server");
const { insertSuppression } = await import("~/data/alert-rows.server");
const { JOBS, MAINTENANCE_QUEUE, sweepJob } = await import("~/jobs/definitions");
const { createQueue, queuePrefix } = await import("~/jobs/queues.server");
const { createRedis } = await import("~/redis.server");
const { WEBHOOK_EVENTS } = await import("~/api/v1/schemas");
const { MAX_DIGEST_ITEMS } = await import("~/services/alerts/alert-settings");
const { useWorker } = await import("../../support/worker");
const { startReceiver } = await import("../webhooks/receiver");
const { createEndpoint } = await import("~/services/webhooks/endpoints.server");
const { signedProxyPath } = await import("../../support/openapi-client");
const { platformWebhook } = await import("../../support/platform-webhooks");
const { insertItem } = await import("~/data/item-rows.server");
const { createList } = await import("../../factories");
type ReminderRun = Awaited<ReturnType<typeof import("~/services/alerts/reminders.server").runReminders>>;

useWorker({ SHOPIFY_ADMIN_API_ORIGIN: platform.origin });

const reminderQueue = createQueue(JOBS.alertRemind.queue);
const maintenance = createQueue(MAINTENANCE_QUEUE);
const reminderEvents = new QueueEvents(JOBS.alertRemind.queue, {
  connection: createRedis("worker"),
  prefix: queuePrefix(),
});
const maintenanceEvents = new QueueEvents(MAINTENANCE_QUEUE, {
  connection: createRedis("worker"),
  prefix: queuePrefix(),
});
afterAll(async () => {
  await Promise.all([reminderEvents.close(), maintenanceEvents.close(), reminderQueue.close(), maintenance.close()]);
});

beforeEach(() => {
  mailbox.rejectRecipients(null);
  mailbox.down(false);
});

const COAT = { productId: "8100000002", variantId: "9100000002", handle: "harbor-wool-coat" };
const HAT = { productId: "8100000003", variantId: "9100000003", handle: "meadow-sun-hat" };
const SCARF = { productId: "8100000009", variantId: "9100000009", handle: "ember-wool-scarf" };
const SHIRT = { productId: "8100000001", variantId: "9100000001", handle: "aurora-linen-shirt" };
const TOTE = { productId: "8100000008", variantId: "9100000008", handle: "pebble-canvas-tote" };
const CUSTOMERS = { ada: "7001", grace: "7002", alan: "7003", katherine: "7004", edsger: "7005" } as const;
const DAY = 24 * 60 * 60 * 1000;
const ON = { reminders: { enabled: true, afterDays: 14 } };

const to = (address: string) => (message: MailboxMessage) => message.to.includes(address);
const mailTo = (address: string) => mailbox.messages().filter(to(address));
type Shop = Awaited<ReturnType<typeof alertShop>>;

/** One run of the shop's reminders by the worker, queued by hand; its report. */
async function runOnce(shop: Shop): Promise<ReminderRun> {
  await idle();
  const job = await reminderQueue.add(
    JOBS.alertRemind.name,
    { shopId: shop.shop.id },
    { ...JOBS.alertRemind.options, removeOnComplete: false },
  );
  return (await job.waitUntilFinished(reminderEvents, 90_000)) as ReminderRun;
}

/** The hourly sweep, run now by the worker: the shops it queued. */
async function sweep(): Promise<string[]> {
  const job = await maintenance.add(sweepJob("alertRemind").name, {}, { removeOnComplete: false });
  return ((await job.waitUntilFinished(maintenanceEvents, 90_000)) as { shopIds: string[] }).shopIds;
}

/** No reminder run waits or runs (the sweep's runs done). */
async function idle() {
  await until(
    () => reminderQueue.getJobCounts("active", "waiting", "delayed", "prioritized"),
    (counts) => Object.values(counts).every((count) => count === 0),
    "no reminder run waiting",
  );
}

/** The customer's saves of the product moved `days` back, as if they had been made then. */
const savedDaysAgo = (s: Shop, productId: string, days: number) =>
  database()
    .updateTable("Item")
    .set({ addedAt: new Date(Date.now() - days * DAY) })
    .where("shopId", "=", s.shop.id)
    .where("productId", "=", productId)
    .execute();

const remindersOf = async (s: Shop) => (await s.alerts()).filter((alert) => alert.kind === "reminder");
const itemsOf = (s: Shop) =>
  database()
    .selectFrom("Item")
    .innerJoin("List", "List.id", "Item.listId")
    .select(["Item.productId", "Item.remindedAt", "Item.purchasedAt", "List.customerId"])
    .where("Item.shopId", "=", s.shop.id)
    .execute();

/** A shop whose products' readings are in: each customer's saves read as the platform has them. */
async function saved(s: Shop, saves: Array<[string, { productId: string; handle: string }]>) {
  for (const [customerId, product] of saves) await s.save(customerId, product);
  for (const productId of new Set(saves.map(([, product]) => product.productId))) {
    await s.read(productId, (rows) => rows.length > 0);
  }
}

let nextOrder = 6_000_000_000;
/** The platform's orders/create webhook for the customer's order of the product, at its price. */
async function order(s: Shop, customerId: string, product: { productId: string; variantId: string }, price: string) {
  const id = ++nextOrder;
  const money = {
    shop_money: { amount: price, currency_code: "USD" },
    presentment_money: { amount: price, currency_code: "USD" },
  };
  const body = JSON.stringify({
    id,
    created_at: new Date().toISOString(),
    currency: "USD",
    presentment_currency: "USD",
    customer: { id: Number(customerId), email: "someone@example.com" },
    line_items: [
      {
        id: ++nextOrder,
        product_id: Number(product.productId),
        variant_id: Number(product.variantId),
        quantity: 1,
        price,
        price_set: money,
        discount_allocations: [],
      },
    ],
  });
  const response = await app.request(
    `${appUrl}/webhooks/orders/create`,
    platformWebhook("orders/create", s.shop.domain, body, getEnv().SHOPIFY_API_SECRET, randomUUID()),
  );
  expect(response.status).toBe(200);
  return String(id);
}

describe("the rule", () => {
  it("is off by default: a shop that never turned it on is not queued, and its run reminds of nothing", async () => {
    const s = await alertShop();
    await saved(s, [[CUSTOMERS.ada, COAT]]);
    await savedDaysAgo(s, COAT.productId, 30);
    expect((await s.messages()).length).toBe(0);
    expect(await sweep()).not.toContain(s.shop.id);
    expect(await runOnce(s)).toMatchObject({ skipped: "reminders are off", reminders: 0 });
    expect(await remindersOf(s)).toEqual([]);
    expect(await s.messages()).toEqual([]);
    expect((await itemsOf(s))[0]!.remindedAt).toBeNull();
  });

  it("reminds a customer once of the items saved N days ago, in one email whose link records the click, found by the hourly sweep", async () => {
    const s = await alertShop(ON);
    await saved(s, [
      [CUSTOMERS.ada, COAT],
      [CUSTOMERS.ada, HAT],
      [CUSTOMERS.grace, COAT],
    ]);
    await savedDaysAgo(s, COAT.productId, 15);
    await savedDaysAgo(s, HAT.productId, 20);
    // Grace's coat is Ada's product too: move hers back to 3 days, not yet due.
    await database()
      .updateTable("Item")
      .set({ addedAt: new Date(Date.now() - 3 * DAY) })
      .where("shopId", "=", s.shop.id)
      .where("listId", "in", (eb) =>
        eb.selectFrom("List").select("id").where("shopId", "=", s.shop.id).where("customerId", "=", CUSTOMERS.grace),
      )
      .execute();

    expect(await sweep()).toContain(s.shop.id);
    const email = await mailbox.waitFor(to(s.emailOf(CUSTOMERS.ada)), { timeoutMs: 90_000 });
    // Oldest saved first: the hat (20 days) before the coat (15 days).
    expect(email.subject).toBe("2 items are waiting on your wishlist");
    expect(email.html).toContain("Still on your wishlist");
    expect(email.html!.indexOf("Meadow Sun Hat")).toBeLessThan(email.html!.indexOf("Harbor Wool Coat"));
    expect(email.html).toContain("$36.00");
    expect(email.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");
    await idle();
    const reminders = await remindersOf(s);
    expect(reminders.map((alert) => [alert.customerId, alert.productId, alert.changeKey]).sort()).toEqual([
      [CUSTOMERS.ada, COAT.productId, "reminder"],
      [CUSTOMERS.ada, HAT.productId, "reminder"],
    ]);
    const [message] = await until(s.messages, (rows) => rows[0]?.state === "sent", "the email recorded sent");
    expect(reminders.every((alert) => alert.messageId === message!.id)).toBe(true);
    expect(email.messageId).toBe(`<${message!.id}@${new URL(getEnv().SHOPIFY_APP_URL!).hostname}>`);
    const items = await itemsOf(s);
    expect(items.filter((item) => item.customerId === CUSTOMERS.ada).every((item) => item.remindedAt)).toBe(true);
    expect(items.find((item) => item.customerId === CUSTOMERS.grace)!.remindedAt).toBeNull();
    expect(mailTo(s.emailOf(CUSTOMERS.grace))).toEqual([]);

    // A second run, and another a minute later as the sweep would make it: nothing more.
    expect(await runOnce(s)).toMatchObject({ reminders: 0 });
    expect(await runOnce(s)).toMatchObject({ reminders: 0 });
    expect(await remindersOf(s)).toHaveLength(2);
    expect(mailTo(s.emailOf(CUSTOMERS.ada))).toHaveLength(1);

    // The coat's link, through the app proxy on the shop's domain: recorded, then on to the product page.
    const tokens = [...email.html!.matchAll(/\/apps\/service\/alerts\/click\/([A-Za-z0-9_.-]+)/g)].map((m) => m[1]!);
    const coatToken = tokens.find((token) => {
      const claims = JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()) as { h: string };
      return claims.h === COAT.handle;
    })!;
    const click = await app.request(
      `${appUrl}${signedProxyPath(`/proxy/alerts/click/${coatToken}`, { shop: s.shop.domain })}`,
    );
    expect(click.status).toBe(302);
    expect(click.headers.get("location")).toBe(`/products/${COAT.handle}`);
    const coatReminder = (await remindersOf(s)).find((alert) => alert.productId === COAT.productId)!;
    expect(coatReminder.clickedAt).toBeInstanceOf(Date);

    // Ada buys the coat within the week: the order is credited to the reminder.
    const orderId = await order(s, CUSTOMERS.ada, COAT, "36.00");
    const [conversion] = await database()
      .selectFrom("Conversion")
      .selectAll()
      .where("shopId", "=", s.shop.id)
      .where("orderId", "=", orderId)
      .execute();
    expect(conversion).toMatchObject({ productId: COAT.productId, source: "reminder", alertId: coatReminder.id });
  });
});

describe("who is never reminded", () => {
  it("not of a bought or removed item, nor a guest, nor a customer on the suppression list; the email's consent rule holds", async () => {
    const s = await alertShop(ON);
    await saved(s, [
      [CUSTOMERS.ada, COAT],
      [CUSTOMERS.ada, HAT],
      [CUSTOMERS.ada, SCARF],
      [CUSTOMERS.alan, SCARF],
      [CUSTOMERS.edsger, SCARF],
    ]);
    const { publicCall } = callsOf({ shop: s.shop });
    const guest = await publicCall("/storefront/wishlist/items", {
      method: "POST",
      body: { productId: SCARF.productId, handle: SCARF.handle, anonymousId: "8a1e3c2b-4d5f-4a6b-9c7d-0e1f2a3b4c5d" },
    });
    expect(guest.status).toBeLessThan(300);
    // Ada bought the coat (the platform's order webhook marks it bought) and removed the hat.
    await order(s, CUSTOMERS.ada, COAT, "36.00");
    await s.remove(CUSTOMERS.ada, HAT.productId);
    // Alan unsubscribed from the shop's wishlist emails; Edsger's email marketing consent is UNSUBSCRIBED.
    await insertSuppression(database(), s.shop.id, {
      customerId: CUSTOMERS.alan,
      reason: "unsubscribed",
      at: new Date(),
    });
    for (const product of [COAT, SCARF]) await savedDaysAgo(s, product.productId, 20);
    expect((await itemsOf(s)).find((item) => item.productId === COAT.productId)!.purchasedAt).toBeInstanceOf(Date);

    const run = await runOnce(s);
    expect(run.reminders).toBe(2);
    const email = await mailbox.waitFor(to(s.emailOf(CUSTOMERS.ada)), { timeoutMs: 90_000 });
    expect(email.subject).toBe("Still thinking about Ember Wool Scarf?");
    expect(email.html).not.toContain("Harbor Wool Coat");
    expect(email.html).not.toContain("Meadow Sun Hat");
    const reminders = await remindersOf(s);
    expect(reminders.map((alert) => [alert.customerId, alert.productId]).sort()).toEqual([
      [CUSTOMERS.ada, SCARF.productId],
      [CUSTOMERS.edsger, SCARF.productId],
    ]);
    // Edsger's email is not sent: he did not agree to email marketing (the alert emails' default audience).
    const messages = await until(
      s.messages,
      (rows) => rows.length === 2 && rows.every((row) => row.state === "sent" || row.state === "skipped"),
      "both emails ended",
    );
    expect(messages.map((row) => [row.customerId, row.state, row.error]).sort()).toEqual([
      [CUSTOMERS.ada, "sent", null],
      [CUSTOMERS.edsger, "skipped", "no email marketing consent"],
    ]);
    expect(mailTo(s.emailOf(CUSTOMERS.alan))).toEqual([]);
    expect(mailTo(s.emailOf(CUSTOMERS.edsger))).toEqual([]);
    // The bought coat, Alan's and the guest's scarf are left as they were.
    const items = await itemsOf(s);
    expect(
      items
        .filter((item) => item.remindedAt)
        .map((item) => item.customerId)
        .sort(),
    ).toEqual([CUSTOMERS.ada, CUSTOMERS.edsger]);
  });

  it("not of a sold-out product: it waits, while the rest of the customer's items are reminded of", async () => {
    const s = await alertShop(ON);
    await saved(s, [
      [CUSTOMERS.grace, TOTE],
      [CUSTOMERS.grace, SHIRT],
    ]);
    await savedDaysAgo(s, TOTE.productId, 20);
    await savedDaysAgo(s, SHIRT.productId, 20);
    expect((await runOnce(s)).reminders).toBe(1);
    const email = await mailbox.waitFor(to(s.emailOf(CUSTOMERS.grace)), { timeoutMs: 90_000 });
    // Grace reads French.
    expect(email.subject).toBe("Toujours intéressé(e) par Aurora Linen Shirt\u00a0?");
    const items = await itemsOf(s);
    expect(items.find((item) => item.productId === TOTE.productId)!.remindedAt).toBeNull();
  });
});

describe("at most once a week per customer", () => {
  it("holds the items that came due meanwhile until the week is over, then reminds of them", async () => {
    const s = await alertShop(ON);
    await saved(s, [[CUSTOMERS.ada, COAT]]);
    await savedDaysAgo(s, COAT.productId, 16);
    expect((await runOnce(s)).reminders).toBe(1);
    await mailbox.waitFor(to(s.emailOf(CUSTOMERS.ada)), { timeoutMs: 90_000 });

    // Two days later the hat she saved comes due: she was reminded within the week, so it waits.
    await saved(s, [[CUSTOMERS.ada, HAT]]);
    await savedDaysAgo(s, HAT.productId, 15);
    expect((await runOnce(s)).reminders).toBe(0);
    expect((await itemsOf(s)).find((item) => item.productId === HAT.productId)!.remindedAt).toBeNull();

    // A week after her reminder, the weekly pass looks at her again.
    await database()
      .updateTable("Alert")
      .set({ createdAt: new Date(Date.now() - 8 * DAY) })
      .where("shopId", "=", s.shop.id)
      .where("kind", "=", "reminder")
      .execute();
    const run = await runOnce(s);
    expect(run).toMatchObject({ reminders: 1, revisited: 1 });
    await until(
      () => mailTo(s.emailOf(CUSTOMERS.ada)),
      (mails) => mails.length === 2,
      "the second reminder",
    );
    expect(mailTo(s.emailOf(CUSTOMERS.ada))[1]!.subject).toBe("Still thinking about Meadow Sun Hat?");
    expect((await remindersOf(s)).map((alert) => alert.productId).sort()).toEqual([COAT.productId, HAT.productId]);
  });

  it(`puts ${MAX_DIGEST_ITEMS} items in a reminder at most: the rest wait for the next week`, async () => {
    const s = await alertShop({ ...ON, email: { enabled: false } });
    // Alan's 27 saved products, as the alerts' readings of the shop's catalogue keep them (written with the
    // data layer: the platform stand-in's catalogue has 12 products).
    const { receiver, secret } = await eventsTo(s);
    try {
      const products = Array.from({ length: MAX_DIGEST_ITEMS + 2 }, (_, n) => String(8_400_000_000 + n));
      const at = new Date();
      await database()
        .insertInto("CatalogueVariant")
        .values(
          products.map((productId) => ({
            shopId: s.shop.id,
            productId,
            variantId: productId.replace(/^84/, "94"),
            title: "Default Title",
            priceMinor: 1_000,
            currency: "USD",
            available: true,
            readAt: at,
          })),
        )
        .execute();
      const list = await createList(s.shop.id, { customerId: CUSTOMERS.alan }, { isDefault: true });
      for (const productId of products) {
        await insertItem(database(), s.shop.id, {
          listId: list.id,
          productId,
          variantId: "",
          handle: `p-${productId}`,
          titleSnapshot: `Product ${productId}`,
          addedAt: new Date(at.getTime() - 30 * DAY),
        });
      }
      expect((await runOnce(s)).reminders).toBe(MAX_DIGEST_ITEMS);
      await receiver.waitFor(MAX_DIGEST_ITEMS);
      expect(receiver.received.every((delivery) => verified(delivery, secret))).toBe(true);
      expect((await itemsOf(s)).filter((item) => item.remindedAt === null)).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });
});

/** An endpoint of the shop subscribed to reminder.due, on a real receiver. */
async function eventsTo(s: Shop) {
  const receiver = await startReceiver();
  const { secret } = await createEndpoint({ shopId: s.shop.id, url: receiver.url, events: ["reminder.due"] });
  return { receiver, secret };
}

/** The delivery's signature: `t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` under the endpoint's secret. */
function verified(delivery: { headers: Record<string, unknown>; body: Buffer }, secret: string) {
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivery.headers["x-service-signature"])) ?? [];
  if (!t || !v1) return false;
  const expected = createHmac("sha256", secret).update(`${t}.`).update(delivery.body).digest();
  return timingSafeEqual(expected, Buffer.from(v1, "hex"));
}

describe("Flow and webhooks", () => {
  it("sends the Wishlist reminder due trigger and the signed reminder.due event, with nothing else on", async () => {
    const s = await alertShop({ ...ON, email: { enabled: false } });
    // No channel carries reminders yet: the run makes none, and passes over nothing.
    await saved(s, [[CUSTOMERS.grace, COAT]]);
    await savedDaysAgo(s, COAT.productId, 15);
    expect(await runOnce(s)).toMatchObject({ skipped: "no channel", reminders: 0 });

    expect(await platform.setFlowWorkflow(s.shop.domain, "wishlist-reminder-due", true)).toBe(200);
    const { receiver, secret } = await eventsTo(s);
    try {
      const { privateCall } = callsOf({ shop: s.shop, secret: s.secret });
      const overview = await privateCall("/shop");
      expect(
        ((await overview.json()) as { settings: { integrationConfigured: boolean } }).settings.integrationConfigured,
      ).toBe(true);
      expect((await runOnce(s)).reminders).toBe(1);

      const call = await until(
        () => platform.flowTriggers.find((trigger) => trigger.shopDomain === s.shop.domain),
        (found) => found !== undefined,
        "the Flow trigger",
      );
      expect(call!.handle).toBe("wishlist-reminder-due");
      const extension = parse(
        readFileSync(path.join(ROOT, "extensions/wishlist-flow-reminder-due/shopify.extension.toml"), "utf8"),
      ) as {
        extensions: Array<{ handle: string; name: string; type: string }>;
        settings: { fields: Array<{ type: string; key?: string }> };
      };
      expect(extension.extensions[0]).toMatchObject({
        handle: call!.handle,
        name: "Wishlist reminder due",
        type: "flow_trigger",
      });
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
        single_line_text_field: "string",
      } as Record<string, string>;
      for (const [key, value] of Object.entries(payload)) expect(typeof value, key).toBe(typeOf[declared.get(key)!]);
      expect(payload).toMatchObject({
        customer_id: 7002,
        product_id: 8100000002,
        "Variant id": COAT.variantId,
        Price: 36,
        Currency: "USD",
      });
      const [reminder] = await until(
        () => remindersOf(s),
        (rows) => rows[0]?.flowState === "sent",
        "the trigger recorded sent",
      );
      expect(reminder).toMatchObject({ webhookEvent: true, messageId: null });
      expect(await s.messages()).toEqual([]);

      await receiver.waitFor(1);
      const delivery = receiver.received[0]!;
      expect(verified(delivery, secret)).toBe(true);
      expect(verified(delivery, "whsec_not-the-secret")).toBe(false);
      expect(delivery.headers["x-service-event"]).toBe("reminder.due");
      const event = JSON.parse(delivery.body.toString()) as { type: string; data: Record<string, unknown> };
      expect(WEBHOOK_EVENTS["reminder.due"].parse(event)).toBeTruthy();
      expect(event).toMatchObject({
        type: "reminder.due",
        shopDomain: s.shop.domain,
        data: {
          alertId: reminder!.id,
          customerId: CUSTOMERS.grace,
          product: { productId: COAT.productId, handle: COAT.handle, title: "Harbor Wool Coat" },
          variantId: COAT.variantId,
          currency: "USD",
          price: "36.00",
          savedDays: 15,
          item: { productId: COAT.productId },
        },
      });
    } finally {
      await receiver.close();
    }
  });
});

describe("privacy", () => {
  it("puts the reminders in the customer's data request and erases them with the customer", async () => {
    const s = await alertShop(ON);
    await saved(s, [[CUSTOMERS.katherine, SHIRT]]);
    await savedDaysAgo(s, SHIRT.productId, 15);
    expect((await runOnce(s)).reminders).toBe(1);
    const send = (topic: string, extra: object = {}) =>
      app.request(
        `${appUrl}/webhooks/${topic}`,
        platformWebhook(
          topic,
          s.shop.domain,
          JSON.stringify({
            shop_id: 1,
            shop_domain: s.shop.domain,
            customer: { id: Number(CUSTOMERS.katherine), email: "katherine@example.com" },
            orders_to_redact: [],
            ...extra,
          }),
          getEnv().SHOPIFY_API_SECRET,
        ),
      );
    const requests = () =>
      database().selectFrom("ComplianceRequest").selectAll().where("shopId", "=", s.shop.id).orderBy("id").execute();
    const done = (rows: Array<{ status: string }>) => rows.every((row) => row.status === "succeeded");

    expect((await send("customers/data_request", { data_request: { id: 31 } })).status).toBe(200);
    await until(requests, (rows) => rows.length === 1 && done(rows), "the data request done");
    const { privateCall } = callsOf({ shop: s.shop, secret: s.secret });
    const [request] = (
      (await (await privateCall("/compliance/data-requests")).json()) as { data: Array<{ resultUrl: string }> }
    ).data;
    const document = (await (await app.request(request!.resultUrl)).json()) as {
      lists: Array<{ items: Array<{ productId: string; remindedAt: string | null }> }>;
      alerts: Array<{ kind: string; productId: string }>;
    };
    expect(document.alerts).toEqual([expect.objectContaining({ kind: "reminder", productId: SHIRT.productId })]);
    expect(document.lists[0]!.items).toEqual([
      expect.objectContaining({ productId: SHIRT.productId, remindedAt: expect.any(String) }),
    ]);

    expect((await send("customers/redact")).status).toBe(200);
    await until(requests, (rows) => rows.length === 2 && done(rows), "the redact done");
    expect(await remindersOf(s)).toEqual([]);
    expect(await itemsOf(s)).toEqual([]);
    expect(await database().selectFrom("AlertMessage").select("id").where("shopId", "=", s.shop.id).execute()).toEqual(
      [],
    );
  });
});
