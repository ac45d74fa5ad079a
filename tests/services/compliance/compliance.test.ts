import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { Agent } from "undici";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { database, engine } from "~/data/database.server";
import { setAllowanceUsed } from "~/data/plan-rows.server";
import { upsertSession } from "~/data/session-rows.server";
import { resetEnvCache } from "~/env.server";
import { purgeProcessedPlatformWebhooks } from "~/services/shops/platform-webhook-ledger.server";
import { updateShopSettings } from "~/services/shops/shops.server";
import { countActiveOwners } from "~/data/daily-stat-rows.server";
import { WEBHOOK_EVENTS } from "~/api/v1/schemas";
import { type DeliverWebhookPayload, JOBS } from "~/jobs/definitions";
import { queuePrefix } from "~/jobs/queues.server";
import { REDACTED_EVENT_DATA } from "~/services/events/redacted-events";
import { deliverOnce } from "~/services/webhooks/delivery.server";
import { SUBSCRIBABLE_EVENTS } from "~/services/webhooks/endpoints.server";
import { envelope } from "~/services/webhooks/fanout.server";
import { finishMessage, insertAlerts, insertMessages, insertSuppression, markClicked } from "~/data/alert-rows.server";
import { newId } from "~/lib/ids";
import { recordEvent } from "~/services/events/outbox.server";
import { itemView } from "~/services/wishlists/views";
import { customerSearch, startFakeAdminApi, withProductLookups } from "../../../scripts/lib/fake-admin-api";
import { createShopWithKey, sessionRow } from "../../factories";
import { rawCall, signedProxyPath } from "../../support/openapi-client";
import { connectToPlatform, finished as jobFinished, runImport, upload, viaApp } from "../transfers/helpers";
import { BASE_URL } from "../../support/http";
import { platformWebhook } from "../../support/platform-webhooks";
import { useWorker } from "../../support/worker";
import { startReceiver } from "../webhooks/receiver";
import { until } from "../../support/poll";
import { apiHarness } from "../../support/harness";

// Deliveries to a receiver on this machine that always fails and echoes what it got, so the customer's id
// sits in the delivery log, in the queue's retrying jobs and in the outbox when the redaction runs.
// The platform's Admin API for imports (import rule 3): only OTHER_CUSTOMER is a customer of the shop, so an
// import's rows naming the redacted customer are reported with their id (`customer-id-not-found`).
const platform = await startFakeAdminApi();
Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  OUTBOX_RELAY_INTERVAL_MS: "50",
  SHOPIFY_ADMIN_API_ORIGIN: platform.origin,
});
resetEnvCache();

const { app, validator, clientFor } = await apiHarness();
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const receiver = await startReceiver((request, _index, res) => {
  res.writeHead(500, { "content-type": "application/json" }).end(request.body);
});
const webhookQueue = new Queue(JOBS.webhookDelivery.queue, {
  connection: new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null }),
  prefix: queuePrefix(),
});
afterAll(async () => {
  redis.disconnect();
  await webhookQueue.close();
  await receiver.close();
  await platform.close();
});

useWorker();

const send = (topic: string, shopDomain: string, body: object, webhookId?: string) =>
  app.request(
    `${BASE_URL}/webhooks/${topic}`,
    platformWebhook(topic, shopDomain, JSON.stringify(body), undefined, webhookId),
  );

const customerBody = (shop: { id: string; domain: string }, customerId: string, extra: object = {}) => ({
  shop_id: 1,
  shop_domain: shop.domain,
  customer: { id: Number(customerId), email: CUSTOMER_EMAIL, phone: "555-0100" },
  orders_to_redact: [],
  ...extra,
});

const requestsOf = (shopId: string) =>
  database().selectFrom("ComplianceRequest").selectAll().where("shopId", "=", shopId).orderBy("id").execute();

const finished = (rows: Array<{ status: string }>) =>
  rows.length > 0 && rows.every((row) => row.status !== "queued" && row.status !== "running");

/** Every row of every table of the app's database, as text (names and values). */
async function everyRow(): Promise<Array<{ table: string; text: string }>> {
  const tables =
    engine() === "sqlite"
      ? await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(database())
      : await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(database());
  const rows: Array<{ table: string; text: string }> = [];
  for (const { name } of tables.rows) {
    if (name === "_prisma_migrations") continue;
    const found = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(database());
    for (const row of found.rows) {
      rows.push({
        table: name,
        text: JSON.stringify(row, (_key, value) => (typeof value === "bigint" ? `${value}` : value)),
      });
    }
  }
  return rows;
}

/** Tables whose rows mention any of `needles`. */
async function tablesMentioning(needles: string[]): Promise<string[]> {
  return [
    ...new Set((await everyRow()).filter((row) => needles.some((n) => row.text.includes(n))).map((row) => row.table)),
  ];
}

/** Stored files (under the local driver's directory) whose name or content mentions any of `needles`. */
function filesMentioning(needles: string[]): string[] {
  const root = process.env.STORAGE_DIR!;
  let entries: string[];
  try {
    entries = readdirSync(root, { recursive: true }) as string[];
  } catch {
    return [];
  }
  return entries.filter((entry) => {
    const file = path.join(root, entry);
    let content = "";
    try {
      content = readFileSync(file, "utf8");
    } catch {
      content = ""; // a directory
    }
    return needles.some((needle) => entry.includes(needle) || content.includes(needle));
  });
}

/** Redis keys of this test file (the queue and rate limits) whose name or value mentions any of `needles`. */
async function redisMentioning(needles: string[]): Promise<string[]> {
  const hits: string[] = [];
  for await (const keys of redis.scanStream({ match: `${process.env.REDIS_PREFIX}:*`, count: 500 }) as AsyncIterable<
    string[]
  >) {
    for (const key of keys) {
      const type = await redis.type(key);
      const values =
        type === "hash"
          ? Object.values(await redis.hgetall(key))
          : type === "string"
            ? [(await redis.get(key)) ?? ""]
            : type === "list"
              ? await redis.lrange(key, 0, -1)
              : type === "zset"
                ? await redis.zrange(key, 0, -1)
                : type === "set"
                  ? await redis.smembers(key)
                  : type === "stream"
                    ? (await redis.xrange(key, "-", "+")).flatMap(([, fields]) => fields)
                    : [];
      if (needles.some((needle) => key.includes(needle) || values.some((value) => value.includes(needle))))
        hits.push(key);
    }
  }
  return hits;
}

/** Exports the shop's items through the API and waits for the worker to write the file. */
async function exportShop(secret: string) {
  const api = clientFor(secret);
  const { data, response } = await api.POST("/exports", { body: { format: "csv" } });
  expect(response.status).toBe(202);
  expect((await jobFinished(api, "exports", data!.jobId, 90_000)).status).toBe("succeeded");
}

/** A shop with a private key and a failing webhook endpoint subscribed to every event type. */
async function shopWithEndpoint() {
  const { shop, secret } = await createShopWithKey();
  const created = await app.request(`${BASE_URL}/v1/webhooks`, {
    method: "POST",
    headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
    body: JSON.stringify({ url: receiver.url, events: [...EVENT_TYPES] }),
  });
  expect(created.status).toBe(201);
  await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true } });
  return { shop, secret };
}

/** A shopper through the app proxy: a guest with `aid` until they log in as a customer. */
function shopperOf(shop: { domain: string }) {
  const aid = randomUUID();
  const proxy = (route: string, customer: string | null, method = "GET", body?: unknown, headers = {}) =>
    rawCall(
      app,
      validator,
      signedProxyPath(`/proxy/v1${route}`, {
        shop: shop.domain,
        logged_in_customer_id: customer ?? "",
        ...(customer ? {} : { aid }),
      }),
      {
        method,
        headers: body === undefined ? headers : { "Content-Type": "application/json", ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
    );
  return {
    aid,
    proxy,
    save: (customer: string | null, productId: string, headers = {}) =>
      proxy(
        "/storefront/wishlist/items",
        customer,
        "POST",
        { productId, handle: `product-${productId}`, title: `Product ${productId}`, anonymousId: aid },
        headers,
      ),
    share: async (customer: string | null) =>
      (await (await proxy("/storefront/wishlist/share", customer, "POST")).json()) as { token: string },
    identify: (customer: string) => proxy("/storefront/identify", customer, "POST", { anonymousId: aid }),
    toggle: (customer: string | null, productId: string) =>
      proxy("/storefront/wishlist/toggle", customer, "POST", { productId, handle: `product-${productId}` }),
  };
}

/** An order of the customer's (the orders/create body, with the protected data a real one carries). */
function orderOf(customerId: string, orderId: string, productIds: string[]) {
  return {
    id: Number(orderId),
    created_at: new Date().toISOString(),
    cancelled_at: null,
    currency: "USD",
    presentment_currency: "USD",
    email: CUSTOMER_EMAIL,
    customer: { id: Number(customerId), email: CUSTOMER_EMAIL, first_name: "Some", last_name: "One" },
    note_attributes: [],
    line_items: productIds.map((productId, index) => ({
      id: Number(`${orderId}${index + 1}`),
      product_id: Number(productId),
      variant_id: null,
      quantity: 1,
      price_set: {
        shop_money: { amount: "10.00", currency_code: "USD" },
        presentment_money: { amount: "10.00", currency_code: "USD" },
      },
      discount_allocations: [],
    })),
  };
}

/** Order ids long enough never to appear by chance in another id, a time or a count. */
const ORDER_ID = "8164203957731";

// Customer ids long enough never to appear by chance in another id, a time or a count.
const CUSTOMER = "7391846502913";
/** The email the platform's customers/redact names the customer by (an import file may write it in any case). */
const CUSTOMER_EMAIL = "Someone.Redacted@Example.com";
const EMAIL_IN_FILE = "SOMEONE.REDACTED@example.COM";
const OTHER_CUSTOMER = "8402957613024";
platform.answer(withProductLookups(customerSearch({}, undefined, { ids: [OTHER_CUSTOMER] })));

/**
 * Every event an endpoint may subscribe to that names a customer: each one is erased with them. Not the plan's
 * plan.allowance_reached, which names the shop's plan and no customer (the shop's erasure takes it).
 */
const EVENT_TYPES = SUBSCRIBABLE_EVENTS.filter((type) => type !== "plan.allowance_reached");
/** A note the customer writes on a saved item (issue 28): their own words, erased with them. */
const NOTE = "note-7391846502913 for Sam";

/**
 * What the wishlist alerts keep of a customer (issue 29): an alert emailed and clicked, its message, an
 * unsubscription, and one event of each alert kind (as the evaluation writes them, naming the customer), on
 * the customer's list holding `productId`.
 */
async function seedAlerts(shop: { id: string }, customerId: string, productId: string) {
  const item = await database()
    .selectFrom("Item as i")
    .innerJoin("List as l", "l.id", "i.listId")
    .selectAll("i")
    .where("i.shopId", "=", shop.id)
    .where("l.customerId", "=", customerId)
    .where("i.productId", "=", productId)
    .executeTakeFirstOrThrow();
  const at = new Date();
  const messageId = newId("alertMessage");
  await insertMessages(database(), [{ id: messageId, shopId: shop.id, customerId, dueAt: at, createdAt: at }]);
  await finishMessage(database(), shop.id, messageId, { state: "sent", at });
  const [alert] = await insertAlerts(database(), [
    {
      id: newId("alert"),
      shopId: shop.id,
      customerId,
      listId: item.listId,
      itemId: item.id,
      productId,
      variantId: "",
      kind: "price_dropped",
      oldPriceMinor: 5_000,
      newPriceMinor: 4_000,
      quantity: null,
      currency: "USD",
      changeKey: "compliance",
      messageId,
      createdAt: at,
    },
  ]);
  await markClicked(database(), shop.id, alert!.id, at);
  await insertSuppression(database(), shop.id, { customerId, reason: "unsubscribed", at });
  for (const type of ["alert.back_in_stock", "alert.price_dropped", "alert.low_stock"] as const) {
    await recordEvent(database(), {
      shopId: shop.id,
      type,
      data: {
        alertId: alert!.id,
        listId: item.listId,
        customerId,
        item: itemView(item),
        product: { productId, title: "Product", handle: item.handle },
        variantId: null,
        currency: "USD",
        old: { available: true, price: "50.00", inventoryQuantity: 9 },
        new: { available: true, price: "40.00", inventoryQuantity: 4 },
      },
    });
  }
  // A reminder of the saved item (issue 30): its reminder.due event names the customer too.
  await recordEvent(database(), {
    shopId: shop.id,
    type: "reminder.due",
    data: {
      alertId: alert!.id,
      listId: item.listId,
      customerId,
      item: itemView(item),
      product: { productId, title: "Product", handle: item.handle },
      variantId: null,
      currency: "USD",
      price: "40.00",
      savedDays: 14,
    },
  });
  return { alertId: alert!.id, messageId };
}

/** The shop's events with their deliveries to the (failing) receiver: one delivery id per event. */
const deliveredEvents = (shopId: string) =>
  database()
    .selectFrom("Event as e")
    .innerJoin("WebhookDelivery as d", "d.eventId", "e.id")
    .select(["e.id", "e.type", "e.data", "e.createdAt", "d.id as deliveryId", "d.endpointId"])
    .where("e.shopId", "=", shopId)
    .orderBy("d.id")
    .execute();

describe("customers/redact", () => {
  it("erases the customer's lists, items, share tokens and idempotency records, and their id everywhere else", async () => {
    const { shop, secret } = await shopWithEndpoint();
    const shopper = shopperOf(shop);
    // A guest list, shared, merged into the customer's at login; more saves as the customer, a share link,
    // a save with an Idempotency-Key; then a data request about them (a file in storage).
    expect((await shopper.save(null, "101")).status).toBe(201);
    const guestToken = (await shopper.share(null)).token;
    expect((await shopper.identify(CUSTOMER)).status).toBe(200);
    expect((await shopper.save(CUSTOMER, "102", { "Idempotency-Key": randomUUID() })).status).toBe(201);
    const customerToken = (await shopper.share(CUSTOMER)).token;
    // Named lists (issue 28): one created and deleted, one kept with a noted item moved onto it.
    const named = async (name: string) =>
      (await (await shopper.proxy("/storefront/wishlists", CUSTOMER, "POST", { name })).json()) as { id: string };
    const gone = await named("Gone");
    expect((await shopper.proxy(`/storefront/wishlists/${gone.id}`, CUSTOMER, "DELETE")).status).toBe(204);
    const gifts = await named("Gifts");
    const noted = (await (await shopper.save(CUSTOMER, "105")).json()) as { id: string };
    const patched = await shopper.proxy(`/storefront/wishlist/items/${noted.id}`, CUSTOMER, "PATCH", { note: NOTE });
    expect(patched.status).toBe(200);
    const moved = await shopper.proxy(`/storefront/wishlist/items/${noted.id}/move`, CUSTOMER, "POST", {
      listId: gifts.id,
    });
    expect(moved.status).toBe(200);
    // A product saved and removed again (item.added, item.removed).
    expect((await shopper.toggle(CUSTOMER, "104")).status).toBe(200);
    expect((await shopper.toggle(CUSTOMER, "104")).status).toBe(200);
    // Wishlist alerts (issue 29) about the item saved as the customer.
    const alerts = await seedAlerts(shop, CUSTOMER, "102");
    const other = shopperOf(shop);
    expect((await other.save(OTHER_CUSTOMER, "103")).status).toBe(201);
    // An export of the shop's items (a file naming the customer).
    await exportShop(secret);
    // An import whose rows name the customer, who is no customer of the shop for the platform: the upload,
    // the report and the job's checkpoint (its first issues, kept for a retry) hold their id.
    await connectToPlatform(shop.domain);
    const api = clientFor(secret);
    const { fileUrl } = await upload(
      api,
      viaApp(app),
      `customer_id,anonymous_id,product_id,variant_id,handle,added_at\n${CUSTOMER},,501,,h,2024-01-01\n` +
        `${OTHER_CUSTOMER},,502,,h,2024-01-01\n`,
    );
    const imported = await runImport(api, { source: "csv", fileUrl });
    expect(imported).toMatchObject({ status: "succeeded", imported: 1, skipped: 1 });
    expect(await tablesMentioning([CUSTOMER])).toContain("TransferJob");
    // An import that names the customer by email alone (no id), in another case than the webhook's: the
    // platform knows no such customer, so the upload, the report and the checkpoint's issue hold the email.
    const byEmail = await upload(
      api,
      viaApp(app),
      `customer_id,anonymous_id,product_id,variant_id,handle,added_at,email\n,,503,,h,2024-01-01,${EMAIL_IN_FILE}\n`,
    );
    expect(await runImport(api, { source: "csv", fileUrl: byEmail.fileUrl })).toMatchObject({
      status: "succeeded",
      imported: 0,
      skipped: 1,
    });
    const emails = [EMAIL_IN_FILE, CUSTOMER_EMAIL, CUSTOMER_EMAIL.toLowerCase()];
    expect(await tablesMentioning(emails)).toEqual(["TransferJob"]);
    expect(filesMentioning(emails).length).toBeGreaterThanOrEqual(2); // the upload and the report
    expect(
      (await send("customers/data_request", shop.domain, customerBody(shop, CUSTOMER, { data_request: { id: 9001 } })))
        .status,
    ).toBe(200);
    await until(() => requestsOf(shop.id), finished, "the data request is done");
    // The failing receiver has the customer's events, and echoed them into the delivery log.
    await until(
      () => deliveredEvents(shop.id),
      (rows) => EVENT_TYPES.every((type) => rows.some((row) => row.type === type)),
      "a delivery of each event type attempted",
    );
    // An order of theirs bought a product saved as a guest (merged at login) and one saved as the customer.
    expect((await send("orders/create", shop.domain, orderOf(CUSTOMER, ORDER_ID, ["101", "102"]))).status).toBe(200);
    const purchases = () =>
      database().selectFrom("Conversion").select(["productId"]).where("shopId", "=", shop.id).execute();
    expect(await purchases()).toHaveLength(2);
    const needles = [CUSTOMER, guestToken, customerToken, NOTE, alerts.alertId, alerts.messageId, ORDER_ID];
    expect(await tablesMentioning(needles)).toContain("Conversion");
    expect(filesMentioning(needles)).not.toEqual([]);
    expect(await redisMentioning([CUSTOMER])).not.toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    const activeBefore = await countActiveOwners(database(), shop.id, today, today);
    const eventsBefore = await database().selectFrom("Event").select("id").where("shopId", "=", shop.id).execute();

    const webhookId = randomUUID();
    const answered = await send("customers/redact", shop.domain, customerBody(shop, CUSTOMER), webhookId);
    expect(answered.status).toBe(200);
    const requests = await until(() => requestsOf(shop.id), finished, "the redaction is done");
    expect(requests.map((row) => [row.topic, row.status])).toEqual([
      ["customers/data_request", "succeeded"],
      ["customers/redact", "succeeded"],
    ]);

    // No trace of the customer or their share tokens in any table, stored file or Redis key, nor of the email
    // that named them in an import (the request kept it sealed until now, and erased it with their id).
    expect(await tablesMentioning([...needles, ...emails])).toEqual([]);
    expect(filesMentioning([...needles, ...emails])).toEqual([]);
    expect(await redisMentioning([...needles, ...emails])).toEqual([]);
    expect(requests.map((row) => row.customerEmailSealed)).toEqual([null, null]);
    // Every event that named them is erased (docs/decisions/028-redacted-events.md); the others still match
    // their documented schema. An erased event of each type is not sent again: a redelivery is 410
    // `event-redacted` (as documented), and its queued delivery, rewritten without the customer, ends unsent.
    const after = await deliveredEvents(shop.id);
    let queuedRun = 0;
    for (const type of EVENT_TYPES) {
      const erased = after.find((row) => row.type === type && row.data === REDACTED_EVENT_DATA);
      expect(erased, type).toBeDefined();
      const redelivered = await rawCall(
        app,
        validator,
        `/v1/webhooks/${erased!.endpointId}/deliveries/${erased!.deliveryId}/redeliver`,
        { method: "POST", headers: { Authorization: `Bearer ${secret}` } },
      );
      expect(redelivered.status, type).toBe(410);
      expect((await redelivered.json()).type).toBe(`${BASE_URL}/problems/event-redacted`);
      const job = await webhookQueue.getJob(`${erased!.id}-${erased!.endpointId}`);
      if (job) {
        const received = receiver.received.length;
        const agent = new Agent();
        try {
          const outcome = await deliverOnce(job.data as DeliverWebhookPayload, { attemptsMade: 1, dispatcher: agent });
          expect(outcome).toEqual({ status: "skipped", reason: "event-redacted" });
        } finally {
          await agent.close();
        }
        expect(receiver.received).toHaveLength(received);
        queuedRun += 1;
      }
    }
    expect(queuedRun).toBeGreaterThan(0); // the receiver fails, so the deliveries are retrying in the queue
    for (const row of after.filter((event) => event.data !== REDACTED_EVENT_DATA)) {
      const schema = WEBHOOK_EVENTS[row.type as keyof typeof WEBHOOK_EVENTS];
      const body = JSON.parse(envelope({ ...row, shopId: shop.id, type: row.type as never }, shop.domain));
      expect(schema.safeParse(body).success, row.type).toBe(true);
    }
    // Their purchases are gone; the figures they made stay in the rollups, which name no customer or order.
    expect(await purchases()).toEqual([]);
    const revenue = await database()
      .selectFrom("DailyConversionStat")
      .select(["productId", "revenueMinor"])
      .where("shopId", "=", shop.id)
      .orderBy("productId")
      .execute();
    expect(revenue).toEqual([
      { productId: "101", revenueMinor: 1000 },
      { productId: "102", revenueMinor: 1000 },
    ]);
    // Both share links are dead; the other customer's list, the events and the rollups' counts stay.
    for (const token of [guestToken, customerToken]) {
      expect((await shopper.proxy(`/storefront/lists/${token}`, null)).status).toBe(404);
    }
    const otherList = await (await other.proxy("/storefront/wishlist", OTHER_CUSTOMER)).json();
    // 502 came from the import.
    expect(otherList.items.map((item: { productId: string }) => item.productId)).toEqual(["103", "502"]);
    expect(await countActiveOwners(database(), shop.id, today, today)).toBe(activeBefore);
    expect(await database().selectFrom("Event").select("id").where("shopId", "=", shop.id).execute()).toHaveLength(
      eventsBefore.length,
    );
    // The data request stays listed, without its file or the customer's id.
    const listed = await rawCall(app, validator, "/v1/compliance/data-requests", {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect((await listed.json()).data).toMatchObject([{ customerId: null, status: "succeeded", resultUrl: null }]);

    // The platform's retry of the same webhook, and the same body under a new id, do nothing twice.
    expect((await send("customers/redact", shop.domain, customerBody(shop, CUSTOMER), webhookId)).status).toBe(200);
    expect((await send("customers/redact", shop.domain, customerBody(shop, CUSTOMER))).status).toBe(200);
    expect(await requestsOf(shop.id)).toHaveLength(2);
  });

  it("answers 200 for a shop it does not hold and records nothing; refuses a body without a customer id", async () => {
    const domain = `unknown-${randomUUID().slice(0, 8)}.myshopify.com`;
    expect((await send("customers/redact", domain, customerBody({ id: "", domain }, CUSTOMER))).status).toBe(200);
    expect(await tablesMentioning([domain])).toEqual([]);
    const { shop } = await createShopWithKey();
    const noCustomer = await send("customers/redact", shop.domain, { shop_domain: shop.domain, customer: {} });
    expect(noCustomer.status).toBe(400);
    expect(noCustomer.headers.get("content-type")).toContain("application/problem+json");
    expect(await requestsOf(shop.id)).toEqual([]);
  });
});

describe("customers/data_request", () => {
  it("writes the customer's lists, items with dates and share links as a file the merchant downloads", async () => {
    const { shop, secret } = await createShopWithKey();
    const shopper = shopperOf(shop);
    expect((await shopper.save(CUSTOMER, "201")).status).toBe(201);
    expect((await shopper.save(CUSTOMER, "202")).status).toBe(201);
    const { token } = await shopper.share(CUSTOMER);
    const alerts = await seedAlerts(shop, CUSTOMER, "202");
    expect((await send("orders/create", shop.domain, orderOf(CUSTOMER, ORDER_ID, ["201"]))).status).toBe(200);

    expect(
      (await send("customers/data_request", shop.domain, customerBody(shop, CUSTOMER, { data_request: { id: 77 } })))
        .status,
    ).toBe(200);
    await until(() => requestsOf(shop.id), finished, "the data request is done");
    const auth = { headers: { Authorization: `Bearer ${secret}` } };
    const page = await (await rawCall(app, validator, "/v1/compliance/data-requests", auth)).json();
    expect(page.data).toHaveLength(1);
    const [request] = page.data;
    expect(request).toMatchObject({ customerId: CUSTOMER, platformRequestId: "77", status: "succeeded" });
    const one = await (await rawCall(app, validator, `/v1/compliance/data-requests/${request.id}`, auth)).json();
    expect(one.id).toBe(request.id);

    const file = await app.request(one.resultUrl);
    expect(file.status).toBe(200);
    const document = await file.json();
    expect(document).toMatchObject({ shopDomain: shop.domain, customerId: CUSTOMER, platformRequestId: "77" });
    expect(document.lists).toHaveLength(1);
    expect(document.lists[0].share).toEqual({ enabled: true, token });
    expect(document.lists[0].items.map((item: { productId: string; addedAt: string }) => item.productId)).toEqual([
      "201",
      "202",
    ]);
    for (const item of document.lists[0].items) expect(Number.isNaN(Date.parse(item.addedAt))).toBe(false);
    // The wishlist alerts: what they were told of, the email, the click, the unsubscription (issue 29).
    expect(document.alerts).toEqual([
      expect.objectContaining({
        kind: "price_dropped",
        productId: "202",
        oldPriceMinor: 5_000,
        newPriceMinor: 4_000,
        emailId: alerts.messageId,
        clickedAt: expect.any(String),
      }),
    ]);
    expect(document.alertEmails).toEqual([expect.objectContaining({ id: alerts.messageId, state: "sent" })]);
    expect(document.alertSuppression).toEqual({ reason: "unsubscribed", since: expect.any(String) });
    // Their purchases of saved products (issue 30), with the order's ids; the item shows it bought.
    expect(document.purchases).toEqual([
      expect.objectContaining({
        orderId: ORDER_ID,
        productId: "201",
        quantity: 1,
        amountMinor: 1000,
        currency: "USD",
        cancelledAt: null,
      }),
    ]);
    expect(document.lists[0].items[0]).toMatchObject({ productId: "201", purchasedAt: expect.any(String) });

    // Another shop's key sees none of it; a malformed id is a 400 problem.
    const { secret: otherSecret } = await createShopWithKey();
    const foreign = await rawCall(app, validator, `/v1/compliance/data-requests/${request.id}`, {
      headers: { Authorization: `Bearer ${otherSecret}` },
    });
    expect(foreign.status).toBe(404);
    expect((await rawCall(app, validator, "/v1/compliance/data-requests/job_1", auth)).status).toBe(400);

    // The same signed body again after the processed webhook ids expired (7 days), under a new webhook id:
    // the shop holds that data request already, so nothing new is recorded or written.
    await purgeProcessedPlatformWebhooks(new Date(Date.now() + 8 * 24 * 60 * 60 * 1000));
    expect(
      (await send("customers/data_request", shop.domain, customerBody(shop, CUSTOMER, { data_request: { id: 77 } })))
        .status,
    ).toBe(200);
    expect(await requestsOf(shop.id)).toHaveLength(1);
  });
});

describe("customers/data_request and customers/redact agree", () => {
  it("exports the purchases a redaction would erase: those of the guest list the customer merged at login", async () => {
    const { shop, secret } = await createShopWithKey();
    const shopper = shopperOf(shop);
    // As a guest: a save, then an order of it matched by the list the guest's cart named.
    expect((await shopper.save(null, "401")).status).toBe(201);
    const { cartAttribute } = (await (await shopper.proxy("/storefront/wishlist", null)).json()) as {
      cartAttribute: string;
    };
    const guestOrder = {
      ...orderOf(CUSTOMER, "8164203950001", ["401"]),
      customer: null,
      email: null,
      note_attributes: [{ name: "_wishlist_list", value: cartAttribute }],
    };
    expect((await send("orders/create", shop.domain, guestOrder)).status).toBe(200);
    // Then they log in (the guest list merges into the customer's), and buy a product saved as the customer.
    expect((await shopper.identify(CUSTOMER)).status).toBe(200);
    expect((await shopper.save(CUSTOMER, "402")).status).toBe(201);
    expect((await send("orders/create", shop.domain, orderOf(CUSTOMER, "8164203950002", ["402"]))).status).toBe(200);
    const purchases = () =>
      database()
        .selectFrom("Conversion")
        .select(["orderId", "productId"])
        .where("shopId", "=", shop.id)
        .orderBy("orderId")
        .execute();
    const held = await purchases();
    expect(held).toEqual([
      { orderId: "8164203950001", productId: "401" },
      { orderId: "8164203950002", productId: "402" },
    ]);

    const dataRequest = customerBody(shop, CUSTOMER, { data_request: { id: 78 } });
    expect((await send("customers/data_request", shop.domain, dataRequest)).status).toBe(200);
    const [request] = await until(() => requestsOf(shop.id), finished, "the data request is done");
    const one = await rawCall(app, validator, `/v1/compliance/data-requests/${request!.id}`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    const document = await (await app.request((await one.json()).resultUrl)).json();
    // The customer's file holds every purchase the redaction below erases as theirs.
    expect(
      (document.purchases as Array<{ orderId: string; productId: string }>).map(({ orderId, productId }) => ({
        orderId,
        productId,
      })),
    ).toEqual(held);

    expect((await send("customers/redact", shop.domain, customerBody(shop, CUSTOMER))).status).toBe(200);
    await until(
      () => requestsOf(shop.id),
      (rows) => rows.length === 2 && finished(rows),
      "the redaction is done",
    );
    expect(await purchases()).toEqual([]);
  });
});

describe("shop/redact", () => {
  it("leaves an installed shop's data alone and records why", async () => {
    const { shop } = await createShopWithKey();
    expect((await shopperOf(shop).save(CUSTOMER, "301")).status).toBe(201);
    expect((await send("shop/redact", shop.domain, { shop_id: 1, shop_domain: shop.domain })).status).toBe(200);
    const [request] = await until(() => requestsOf(shop.id), finished, "the shop redaction is done");
    expect(request!.status).toBe("skipped");
    expect(await database().selectFrom("Item").select("id").where("shopId", "=", shop.id).execute()).toHaveLength(1);
  });

  it("erases everything of an uninstalled shop: rows of every table, stored files, sessions", async () => {
    const { shop, secret } = await shopWithEndpoint();
    const kept = await createShopWithKey();
    const shopper = shopperOf(shop);
    expect((await shopper.save(CUSTOMER, "401")).status).toBe(201);
    expect((await shopperOf(kept.shop).save(CUSTOMER, "402")).status).toBe(201);
    await shopper.share(CUSTOMER);
    await upsertSession(database(), sessionRow(shop.domain, `offline_${shop.domain}`, { accessToken: "token" }));
    await exportShop(secret);
    expect((await send("orders/create", shop.domain, orderOf(CUSTOMER, ORDER_ID, ["401"]))).status).toBe(200);
    // The plan's counters of this month (names no customer; goes with the shop).
    await setAllowanceUsed(database(), { shopId: shop.id, period: "2026-11", allowance: "alert_emails" }, 3);
    expect(await tablesMentioning([shop.id])).toEqual(
      expect.arrayContaining([
        "Conversion",
        "DailyConversionStat",
        "DailyConversionOrder",
        "DailyConversionDelay",
        "PlanUsage",
      ]),
    );
    expect((await send("customers/data_request", shop.domain, customerBody(shop, CUSTOMER))).status).toBe(200);
    await until(() => requestsOf(shop.id), finished, "the data request is done");
    const needles = [shop.id, shop.domain];
    expect(filesMentioning([shop.id]).length).toBeGreaterThanOrEqual(2);
    expect(await redisMentioning(needles)).not.toEqual([]);

    const uninstall = JSON.stringify({ id: 1, domain: shop.domain, myshopify_domain: shop.domain });
    expect(
      (
        await app.request(
          `${BASE_URL}/webhooks/app/uninstalled`,
          platformWebhook("app/uninstalled", shop.domain, uninstall),
        )
      ).status,
    ).toBe(200);
    const webhookId = randomUUID();
    expect((await send("shop/redact", shop.domain, { shop_id: 1, shop_domain: shop.domain }, webhookId)).status).toBe(
      200,
    );
    await until(
      () => database().selectFrom("Shop").select("id").where("id", "=", shop.id).execute(),
      (rows) => rows.length === 0,
      "the shop is erased",
    );
    // Its rate-limit counters and queued jobs go from Redis just after the shop row: wait for that too.
    await until(
      () => redisMentioning(needles),
      (keys) => keys.length === 0,
      "the shop is gone from Redis",
    );

    expect(await tablesMentioning(needles)).toEqual([]);
    expect(filesMentioning(needles)).toEqual([]);
    expect(await redisMentioning(needles)).toEqual([]);
    // The other shop is untouched.
    expect(await database().selectFrom("Item").select("id").where("shopId", "=", kept.shop.id).execute()).toHaveLength(
      1,
    );
    // A replay finds no shop: 200, nothing recorded, still no trace.
    expect((await send("shop/redact", shop.domain, { shop_id: 1, shop_domain: shop.domain }, webhookId)).status).toBe(
      200,
    );
    expect(await tablesMentioning(needles)).toEqual([]);
    // The erased shop's key is refused.
    const refused = await app.request(`${BASE_URL}/v1/shop`, { headers: { Authorization: `Bearer ${secret}` } });
    expect(refused.status).toBe(401);
  });
});
