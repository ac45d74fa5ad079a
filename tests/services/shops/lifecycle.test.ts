import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { findShopById } from "~/data/shop-rows.server";
import { upsertSession } from "~/data/session-rows.server";
import { getEnv } from "~/env.server";
import { JOBS } from "~/jobs/definitions";
import { queuePrefix } from "~/jobs/queues.server";
import { demoShopData } from "../../../stand-in/demo-data";
import { startTestPlatform } from "../../support/platform-stand-in";
import { adminHost, signSessionToken } from "../../../stand-in/session-token";
import { createShopWithKey, sessionRow } from "../../factories";
import { rawCall, signedProxyPath } from "../../support/openapi-client";
import { BASE_URL } from "../../support/http";
import { platformWebhook } from "../../support/platform-webhooks";
import type { RunningProcess } from "../../support/processes";
import { manualWorkers } from "../../support/worker";
import { startReceiver } from "../webhooks/receiver";
import { until } from "../../support/poll";
import { apiHarness } from "../../support/harness";

// Deliveries to a receiver on this machine; retries a second apart, so a delivery that failed before the
// uninstall is retried (and dropped) after it within the test.
Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  WEBHOOK_RETRY_UNIT_MS: "1000",
  OUTBOX_RELAY_INTERVAL_MS: "50",
});

// The platform stand-in, for the reinstall's token exchange: the app's requests to a shop's https origin go
// there (app/services/platform/stand-in-routing.server.ts). It must be known before the app starts.
const platform = await startTestPlatform(BASE_URL);

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
const { app, validator, clientFor } = await apiHarness();
const queueRedis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
const queue = new Queue(JOBS.webhookDelivery.queue, { connection: queueRedis, prefix: queuePrefix() });

/** What the receiver does with a request: answer it now (a status), or hold it until `release`. */
let receiverMode: "ok" | "fail" | "hold" = "ok";
const held: Array<() => void> = [];
const receiver = await startReceiver((_request, _index, res) => {
  if (receiverMode === "ok") return;
  if (receiverMode === "fail") return void res.writeHead(500).end("down");
  held.push(() => res.writeHead(500).end("down"));
  return "hold";
});

afterAll(async () => {
  await queue.close();
  queueRedis.disconnect();
  await receiver.close();
  await platform.close();
});

const workers = manualWorkers();
const startWorker = () => workers.start();
const stopWorker = (worker: RunningProcess) => workers.stop(worker);

async function uninstall(domain: string) {
  const body = JSON.stringify({ id: 1, name: "Shop", domain, myshopify_domain: domain });
  const response = await app.request(
    `${BASE_URL}/webhooks/app/uninstalled`,
    platformWebhook("app/uninstalled", domain, body),
  );
  expect(response.status).toBe(200);
}

/** An installed shop: a private key, its offline session, and a webhook endpoint at the receiver. */
async function installedShop() {
  const { shop, secret } = await createShopWithKey();
  await upsertSession(database(), sessionRow(shop.domain, `offline_${shop.domain}`, { accessToken: "shpat_before" }));
  const api = clientFor(secret);
  const endpoint = await api.POST("/webhooks", { body: { url: receiver.url, events: ["item.added"] } });
  expect(endpoint.response.status).toBe(201);
  return { shop, secret, api, endpointId: endpoint.data!.id };
}

/** A customer's save through the app proxy, as the theme's heart button sends it. */
const proxySave = (shopDomain: string, customerId: string, productId: string) =>
  rawCall(
    app,
    validator,
    signedProxyPath("/proxy/v1/storefront/wishlist/items", { shop: shopDomain, logged_in_customer_id: customerId }),
    {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ productId, handle: `product-${productId}`, title: `Product ${productId}` }),
    },
  );

/** The calls of every calling mode, each answering its status. */
function callsOf(shop: { domain: string; publicKey: string }, secret: string) {
  return {
    private: async () =>
      (await rawCall(app, validator, "/v1/shop", { headers: { Authorization: `Bearer ${secret}` } })).status,
    public: async () =>
      (
        await rawCall(app, validator, `/v1/storefront/wishlist?aid=${randomUUID()}`, {
          headers: { "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey },
        })
      ).status,
    proxy: async () =>
      (
        await rawCall(
          app,
          validator,
          signedProxyPath("/proxy/v1/storefront/wishlist", { shop: shop.domain, logged_in_customer_id: "7" }),
        )
      ).status,
  };
}

const counts = async (shopId: string) => ({
  lists: (await database().selectFrom("List").select("id").where("shopId", "=", shopId).execute()).length,
  items: (await database().selectFrom("Item").select("id").where("shopId", "=", shopId).execute()).length,
  keys: (await database().selectFrom("ApiKey").select("id").where("shopId", "=", shopId).execute()).length,
  endpoints: (await database().selectFrom("WebhookEndpoint").select("id").where("shopId", "=", shopId).execute())
    .length,
});

const sessionsOf = async (domain: string) =>
  database().selectFrom("Session").selectAll().where("shop", "=", domain).execute();

const attemptsOf = (shopId: string) =>
  database().selectFrom("WebhookDelivery").selectAll().where("shopId", "=", shopId).execute();

describe("app/uninstalled", () => {
  it("refuses every calling mode at once, drops sessions, stops queued jobs and new deliveries; data stays", async () => {
    const { shop, secret, api } = await installedShop();
    // With no worker running, the save's event waits in the outbox and the export waits in the queue.
    expect((await proxySave(shop.domain, "7", "101")).status).toBe(201);
    const exported = await api.POST("/exports", { body: { format: "csv" } });
    expect(exported.response.status).toBe(202);
    const before = await counts(shop.id);

    await uninstall(shop.domain);

    const calls = callsOf(shop, secret);
    for (const [mode, call] of Object.entries(calls)) expect(await call(), mode).toBe(403);
    expect(await sessionsOf(shop.domain)).toEqual([]);

    const worker = await startWorker();
    const job = await until(
      async () =>
        database()
          .selectFrom("TransferJob")
          .selectAll()
          .where("shopId", "=", shop.id)
          .where("id", "=", exported.data!.jobId)
          .executeTakeFirstOrThrow(),
      (row) => row.status !== "queued" && row.status !== "running",
      "the queued export ended",
    );
    expect(job).toMatchObject({ status: "failed", error: expect.stringMatching(/uninstalled/) });
    // The relay handles the event (it leaves the outbox) without a delivery: the receiver hears nothing.
    await until(
      async () =>
        database()
          .selectFrom("Event")
          .select("id")
          .where("shopId", "=", shop.id)
          .where("dispatchedAt", "is", null)
          .execute(),
      (pending) => pending.length === 0,
      "the event relayed",
    );
    await stopWorker(worker);
    expect(await attemptsOf(shop.id)).toEqual([]);
    expect(receiver.received).toHaveLength(0);
    // Nothing of the shop's data went: it stays until shop/redact.
    expect(await counts(shop.id)).toEqual(before);
    expect(before).toEqual({ lists: 1, items: 1, keys: 1, endpoints: 1 });
  });

  it("drops a delivery that was retrying when the app was uninstalled", async () => {
    const { shop, endpointId } = await installedShop();
    const worker = await startWorker();
    receiverMode = "hold";
    const sent = receiver.received.length;
    expect((await proxySave(shop.domain, "8", "202")).status).toBe(201);
    // The first attempt is on the wire (held by the receiver) when the uninstall arrives; it then fails.
    await until(
      async () => receiver.received.length,
      (count) => count > sent,
      "the first attempt arrived",
    );
    await uninstall(shop.domain);
    receiverMode = "ok";
    for (const release of held.splice(0)) release();

    const job = await until(
      async () => (await queue.getJobs(["completed"])).find((candidate) => candidate.data.endpointId === endpointId),
      (found) => found !== undefined,
      "the retry ran",
    );
    expect(job!.returnvalue).toEqual({ status: "skipped", reason: "shop-uninstalled" });
    expect(job!.attemptsMade).toBeGreaterThanOrEqual(1);
    await stopWorker(worker);
    // One attempt (the failed one) is logged; the receiver got nothing after the uninstall.
    expect((await attemptsOf(shop.id)).map((attempt) => attempt.statusCode)).toEqual([500]);
    expect(receiver.received.length).toBe(sent + 1);
  });
});

describe("reinstall", () => {
  it("a new token exchange reactivates the shop with its data, keys and endpoints as they were", async () => {
    const { shop, secret, api } = await installedShop();
    expect((await proxySave(shop.domain, "9", "303")).status).toBe(201);
    const before = await counts(shop.id);
    const listBefore = await api.GET("/lists", { params: { query: { customerId: "9" } } });
    await uninstall(shop.domain);
    const calls = callsOf(shop, secret);
    expect(await calls.private()).toBe(403);

    // The merchant installs the app again: the platform opens it in the admin with a session token, and
    // the platform library trades that token for a new offline token (the stand-in's token exchange).
    platform.shops.push(demoShopData({ domain: shop.domain, accessToken: "shpat_after_reinstall" }));
    const idToken = await signSessionToken({
      shopDomain: shop.domain,
      apiKey: getEnv().SHOPIFY_API_KEY,
      apiSecret: getEnv().SHOPIFY_API_SECRET,
    });
    const query = new URLSearchParams({
      embedded: "1",
      shop: shop.domain,
      host: adminHost(shop.domain),
      id_token: idToken,
    });
    const opened = await app.request(`${BASE_URL}/app?${query}`, {
      headers: { "User-Agent": BROWSER, Accept: "text/html" },
    });
    expect(opened.status, await opened.clone().text()).toBe(200);
    // The page's loaders (the layout's and the page's) run at once and may each exchange the token.
    expect(platform.tokenExchanges.length).toBeGreaterThan(0);
    expect(new Set(platform.tokenExchanges.map((exchange) => exchange.shopDomain))).toEqual(new Set([shop.domain]));

    const sessions = await sessionsOf(shop.domain);
    expect(sessions.map((session) => [session.id, session.accessToken])).toEqual([
      [`offline_${shop.domain}`, "shpat_after_reinstall"],
    ]);
    expect((await findShopById(database(), shop.id))!.uninstalledAt).toBeNull();
    for (const [mode, call] of Object.entries(calls)) expect(await call(), mode).toBe(200);
    expect(await counts(shop.id)).toEqual(before);
    expect((await api.GET("/lists", { params: { query: { customerId: "9" } } })).data).toEqual(listBefore.data);

    // The endpoint delivers again: a new save reaches the receiver. (The save of 303 was made while the shop
    // was installed and no worker ran; it is delivered now too.)
    receiverMode = "ok";
    const worker = await startWorker();
    expect((await proxySave(shop.domain, "9", "304")).status).toBe(201);
    const productsDelivered = () =>
      receiver.received.map(
        (request) => JSON.parse(request.body.toString()) as { type: string; data: { item?: { productId: string } } },
      );
    await until(
      async () => productsDelivered(),
      (bodies) => bodies.some((body) => body.type === "item.added" && body.data.item?.productId === "304"),
      "the new event delivered",
    );
    await stopWorker(worker);
  });
});
