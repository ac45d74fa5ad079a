import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Job } from "bullmq";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { insertProcessedWebhook } from "~/data/platform-webhook-rows.server";
import { upsertSession } from "~/data/session-rows.server";
import { findShopById } from "~/data/shop-rows.server";
import { parseEnv } from "~/env.server";
import { SHOPIFY_API_VERSION } from "~/shopify-api-version";
import { JOBS } from "~/jobs/definitions";
import { handleMaintenanceJob } from "../../worker/handlers/maintenance";
import { ROOT } from "../../scripts/lib/databases";
import { ensureShop } from "~/services/shops/shops.server";
import {
  PLATFORM_WEBHOOK_RETENTION_MS,
  purgeProcessedPlatformWebhooks,
} from "~/services/shops/platform-webhook-ledger.server";
import { createShop, createShopWithKey, sessionRow } from "../factories";
import { BASE_URL, createTestApp } from "../support/http";
import { platformWebhook } from "../support/platform-webhooks";

const app = await createTestApp();
const toml = parse(readFileSync(path.join(ROOT, "shopify.app.toml"), "utf8")) as {
  webhooks: {
    api_version: string;
    subscriptions: Array<{ topics?: string[]; compliance_topics?: string[]; uri: string }>;
  };
  app_proxy: { url: string; prefix: string; subpath: string };
  access_scopes: { scopes: string };
};

/** The app/uninstalled payload: the shop resource (`myshopify_domain`; `domain` is the primary domain). */
const uninstalledBody = (shop: string, primary = shop) =>
  JSON.stringify({ id: 1, name: "Shop", domain: primary, myshopify_domain: shop });

/** The same payload with the shop resource's `updated_at`, as the platform sends it. */
const uninstalledBodyAt = (shop: string, updatedAt: string) =>
  JSON.stringify({ id: 1, name: "Shop", domain: shop, myshopify_domain: shop, updated_at: updatedAt });

/** The same signed request under a fresh `X-Shopify-Webhook-Id` (the HMAC does not cover that header). */
const underNewId = (webhook: ReturnType<typeof platformWebhook>) => ({
  ...webhook,
  headers: { ...webhook.headers, "X-Shopify-Webhook-Id": randomUUID() },
});

/** What the shop's private key gets from GET /v1/shop: 200 while installed, 403 shop-uninstalled after. */
const keyStatus = async (secret: string) =>
  (await app.request(`${BASE_URL}/v1/shop`, { headers: { Authorization: `Bearer ${secret}` } })).status;

const uninstalledAt = async (shopId: string) => (await findShopById(database(), shopId))!.uninstalledAt;

/** The shop's offline session, as the platform library stores it after OAuth. */
const storeOfflineSession = (domain: string, accessToken: string) =>
  upsertSession(database(), sessionRow(domain, `offline_${domain}`, { accessToken }));

const sessionCount = async (domain: string) =>
  (await database().selectFrom("Session").select("id").where("shop", "=", domain).execute()).length;

/** Processed platform webhooks: by exact id, by id prefix, and of a shop. */
const processed = (where: { id?: string; idPrefix?: string; shopDomain?: string }) =>
  database()
    .selectFrom("PlatformWebhook")
    .selectAll()
    .$if(where.id !== undefined, (query) => query.where("id", "=", where.id!))
    .$if(where.idPrefix !== undefined, (query) => query.where("id", "like", `${where.idPrefix}%`))
    .$if(where.shopDomain !== undefined, (query) => query.where("shopDomain", "=", where.shopDomain!))
    .execute();
const processedCount = async (where: Parameters<typeof processed>[0]) => (await processed(where)).length;

describe("platform configuration", () => {
  it("uses one Admin API version in code and in shopify.app.toml", () => {
    expect(toml.webhooks.api_version).toBe(SHOPIFY_API_VERSION);
  });

  it("declares the app proxy so signed calls arrive at /proxy/v1/storefront/...", () => {
    expect(toml.app_proxy.prefix).toBe("apps");
    expect(toml.app_proxy.subpath).toBe("service");
    expect(new URL(toml.app_proxy.url).pathname).toBe("/proxy");
  });

  it("requests the same scopes as the app's default configuration", () => {
    expect(toml.access_scopes.scopes).toBe(parseEnv({}).SCOPES);
  });

  it("subscribes app/uninstalled, the subscription, product, stock and order topics and the three compliance topics, each to its route of the same topic", async () => {
    const topics = toml.webhooks.subscriptions.flatMap((sub) => [
      ...(sub.topics ?? []),
      ...(sub.compliance_topics ?? []),
    ]);
    expect(topics.sort()).toEqual([
      "app/uninstalled",
      "app_subscriptions/update",
      "customers/data_request",
      "customers/redact",
      "inventory_levels/update",
      "orders/cancelled",
      "orders/create",
      "orders/paid",
      "products/delete",
      "products/update",
      "refunds/create",
      "shop/redact",
    ]);
    for (const sub of toml.webhooks.subscriptions) {
      const [topic] = [...(sub.topics ?? []), ...(sub.compliance_topics ?? [])];
      expect(sub.uri).toBe(`/webhooks/${topic}`);
      // The route exists: unsigned, it is refused by the webhook verifier (not a 404 page).
      const response = await app.request(`${BASE_URL}${sub.uri}`, { method: "POST", body: "{}" });
      expect(response.status, sub.uri).toBe(401);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
    }
  });

  it("has a theme app extension", () => {
    const extension = parse(readFileSync(path.join(ROOT, "extensions/wishlist-theme/shopify.extension.toml"), "utf8"));
    expect(extension.type).toBe("theme");
  });
});

describe("platform webhooks", () => {
  it("app/uninstalled with a valid HMAC: 200, sessions removed, shop marked uninstalled", async () => {
    const shop = await createShop();
    await storeOfflineSession(shop.domain, "shpat_test");
    const response = await app.request(
      `${BASE_URL}/webhooks/app/uninstalled`,
      platformWebhook("app/uninstalled", shop.domain, uninstalledBody(shop.domain, "www.example-shop.com")),
    );
    expect(response.status).toBe(200);
    expect(await sessionCount(shop.domain)).toBe(0);
    expect(await uninstalledAt(shop.id)).toBeInstanceOf(Date);
  });

  it("refuses a tampered body or a wrong secret with 401 and changes nothing", async () => {
    const shop = await createShop();
    const signed = platformWebhook("app/uninstalled", shop.domain, uninstalledBody(shop.domain));
    const tampered = await app.request(`${BASE_URL}/webhooks/app/uninstalled`, {
      ...signed,
      body: uninstalledBody(shop.domain).replace('"id":1', '"id":2'),
    });
    expect(tampered.status).toBe(401);
    const wrongSecret = await app.request(
      `${BASE_URL}/webhooks/app/uninstalled`,
      platformWebhook("app/uninstalled", shop.domain, uninstalledBody(shop.domain), "not-the-secret"),
    );
    expect(wrongSecret.status).toBe(401);
    const unsigned = await app.request(`${BASE_URL}/webhooks/app/uninstalled`, {
      ...signed,
      headers: { ...signed.headers, "X-Shopify-Hmac-Sha256": "" },
    });
    expect(unsigned.status).toBe(401);
    expect(await uninstalledAt(shop.id)).toBeNull();
  });

  it("answers a topic it does not receive, or a trailing slash, with a 404 problem and changes nothing", async () => {
    // The attacker review of issue 26: these reached the admin's HTML 404 page, which logs a stack trace each time.
    const shop = await createShop();
    for (const [path, topic] of [
      ["/webhooks/carts/update", "carts/update"],
      ["/webhooks/app/uninstalled/", "app/uninstalled"],
    ] as const) {
      const response = await app.request(
        `${BASE_URL}${path}`,
        platformWebhook(topic, shop.domain, uninstalledBody(shop.domain)),
      );
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(await response.json()).toMatchObject({ status: 404, detail: expect.stringContaining(path) });
    }
    expect(await uninstalledAt(shop.id)).toBeNull();
  });

  it("takes the shop from the signed body: a captured webhook replayed with another shop's header changes nothing", async () => {
    const captured = await createShop();
    const victim = await createShop();
    const replayed = platformWebhook("app/uninstalled", victim.domain, uninstalledBody(captured.domain));
    const response = await app.request(`${BASE_URL}/webhooks/app/uninstalled`, replayed);
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect((await response.json()).detail).toMatch(/X-Shopify-Shop-Domain/);
    expect(await uninstalledAt(victim.id)).toBeNull();
    expect(await uninstalledAt(captured.id)).toBeNull();
    // Nor is the id spent: the platform's own delivery of that webhook id still works.
    const genuine = platformWebhook("app/uninstalled", captured.domain, uninstalledBody(captured.domain));
    genuine.headers["X-Shopify-Webhook-Id"] = replayed.headers["X-Shopify-Webhook-Id"];
    expect((await app.request(`${BASE_URL}/webhooks/app/uninstalled`, genuine)).status).toBe(200);
    expect(await uninstalledAt(captured.id)).toBeInstanceOf(Date);
  });

  it("processes each webhook id once: a replay answers 200 and does not uninstall the reinstalled shop", async () => {
    const shop = await createShop();
    const webhook = platformWebhook("app/uninstalled", shop.domain, uninstalledBody(shop.domain));
    expect((await app.request(`${BASE_URL}/webhooks/app/uninstalled`, webhook)).status).toBe(200);
    expect(await uninstalledAt(shop.id)).toBeInstanceOf(Date);

    // The merchant installs the app again; then the first webhook arrives again (retry or replay).
    await ensureShop({ domain: shop.domain });
    expect(await uninstalledAt(shop.id)).toBeNull();
    const replays = await Promise.all(
      [1, 2, 3].map(() => app.request(`${BASE_URL}/webhooks/app/uninstalled`, webhook)),
    );
    expect(replays.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(await uninstalledAt(shop.id)).toBeNull();
    expect(await processedCount({ id: webhook.headers["X-Shopify-Webhook-Id"] })).toBe(1);
  });

  it("processes each signed body once: the captured uninstall under a new webhook id leaves the reinstalled shop installed", async () => {
    const { shop, secret } = await createShopWithKey();
    await storeOfflineSession(shop.domain, "shpat_test");
    const captured = platformWebhook("app/uninstalled", shop.domain, uninstalledBody(shop.domain));
    expect((await app.request(`${BASE_URL}/webhooks/app/uninstalled`, captured)).status).toBe(200);
    expect(await keyStatus(secret)).toBe(403);

    await ensureShop({ domain: shop.domain });
    await storeOfflineSession(shop.domain, "shpat_again");
    expect(await keyStatus(secret)).toBe(200);
    // Same body and HMAC, another X-Shopify-Webhook-Id (which the HMAC does not cover), sent at once.
    const replays = await Promise.all(
      [1, 2, 3].map(() => app.request(`${BASE_URL}/webhooks/app/uninstalled`, underNewId(captured))),
    );
    expect(replays.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(await uninstalledAt(shop.id)).toBeNull();
    expect(await keyStatus(secret)).toBe(200);
    expect(await sessionCount(shop.domain)).toBe(1);
    expect(await processedCount({ idPrefix: "sha256:", shopDomain: shop.domain })).toBe(1);
  });

  it("ignores an uninstall whose signed updated_at is not after the last one applied, past the ids' retention too", async () => {
    const { shop, secret } = await createShopWithKey();
    const url = `${BASE_URL}/webhooks/app/uninstalled`;
    const older = platformWebhook(
      "app/uninstalled",
      shop.domain,
      uninstalledBodyAt(shop.domain, "2030-01-01T09:00:00-05:00"),
    );
    const captured = platformWebhook(
      "app/uninstalled",
      shop.domain,
      uninstalledBodyAt(shop.domain, "2030-03-01T10:00:00-05:00"),
    );
    expect((await app.request(url, captured)).status).toBe(200);
    expect(await keyStatus(secret)).toBe(403);
    await ensureShop({ domain: shop.domain });

    // Eight days later the processed ids and digests are forgotten; the captured body comes back.
    expect(
      await purgeProcessedPlatformWebhooks(new Date(Date.now() + PLATFORM_WEBHOOK_RETENTION_MS + 86_400_000)),
    ).toBeGreaterThan(0);
    expect((await app.request(url, underNewId(captured))).status).toBe(200);
    // A body signed before the applied one (an earlier uninstall, or the platform's late retry of one).
    expect((await app.request(url, older)).status).toBe(200);
    expect(await uninstalledAt(shop.id)).toBeNull();
    expect(await keyStatus(secret)).toBe(200);

    // The merchant uninstalls again: the platform signs the shop resource as it is now, a later updated_at
    // (the same instant written in UTC must not be read as a later one).
    const sameInstant = platformWebhook(
      "app/uninstalled",
      shop.domain,
      uninstalledBodyAt(shop.domain, "2030-03-01T15:00:00Z"),
    );
    expect((await app.request(url, sameInstant)).status).toBe(200);
    expect(await uninstalledAt(shop.id)).toBeNull();
    const genuine = platformWebhook(
      "app/uninstalled",
      shop.domain,
      uninstalledBodyAt(shop.domain, "2030-03-01T15:00:01Z"),
    );
    expect((await app.request(url, genuine)).status).toBe(200);
    expect(await uninstalledAt(shop.id)).toBeInstanceOf(Date);
    expect(await keyStatus(secret)).toBe(403);
  });

  it("a genuine second uninstall after a reinstall (a new signed body) uninstalls again", async () => {
    const { shop, secret } = await createShopWithKey();
    const url = `${BASE_URL}/webhooks/app/uninstalled`;
    const first = platformWebhook(
      "app/uninstalled",
      shop.domain,
      uninstalledBodyAt(shop.domain, "2030-01-01T00:00:00Z"),
    );
    expect((await app.request(url, first)).status).toBe(200);
    await ensureShop({ domain: shop.domain });
    expect(await keyStatus(secret)).toBe(200);
    const second = platformWebhook(
      "app/uninstalled",
      shop.domain,
      uninstalledBodyAt(shop.domain, "2030-01-02T00:00:00Z"),
    );
    expect((await app.request(url, second)).status).toBe(200);
    expect(await uninstalledAt(shop.id)).toBeInstanceOf(Date);
    expect(await keyStatus(secret)).toBe(403);
    // Without updated_at (or with one that is no time) only the content and id checks apply.
    await ensureShop({ domain: shop.domain });
    const undated = platformWebhook("app/uninstalled", shop.domain, uninstalledBodyAt(shop.domain, "yesterday"));
    expect((await app.request(url, undated)).status).toBe(200);
    expect(await uninstalledAt(shop.id)).toBeInstanceOf(Date);
  });

  it("answers concurrent first deliveries of one webhook id with 200 and records the id once", async () => {
    const shop = await createShop();
    const webhook = platformWebhook("app/uninstalled", shop.domain, uninstalledBody(shop.domain));
    const responses = await Promise.all(
      [1, 2, 3, 4].map(() => app.request(`${BASE_URL}/webhooks/app/uninstalled`, webhook)),
    );
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect(await uninstalledAt(shop.id)).toBeInstanceOf(Date);
    expect(await processedCount({ shopDomain: shop.domain })).toBe(2);
    expect(await processedCount({ id: webhook.headers["X-Shopify-Webhook-Id"] })).toBe(1);
  });

  it.each([
    ["a body that names no shop", "app/uninstalled", (shop: string) => ({ id: 1, domain: shop })],
    [
      "a body whose shop is not a shop domain",
      "app/uninstalled",
      () => ({ myshopify_domain: "a\u0000.myshopify.com" }),
    ],
    ["a compliance body shape on app/uninstalled", "app/uninstalled", (shop: string) => ({ shop_domain: shop })],
    ["an app/uninstalled body on a compliance route", "shop/redact", (shop: string) => ({ myshopify_domain: shop })],
  ])("refuses %s with 400 (signed, but nothing to act on)", async (_name, topic, body) => {
    const shop = await createShop();
    const response = await app.request(
      `${BASE_URL}/webhooks/${topic}`,
      platformWebhook(topic, shop.domain, JSON.stringify(body(shop.domain))),
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await uninstalledAt(shop.id)).toBeNull();
  });

  it("refuses a signed webhook sent to another topic's route, a bad shop header, a non-JSON body", async () => {
    const shop = await createShop();
    const redact = JSON.stringify({ shop_id: 1, shop_domain: shop.domain });
    // A captured shop/redact (whose body names the shop) sent to app/uninstalled, with the topic header changed.
    const moved = await app.request(
      `${BASE_URL}/webhooks/app/uninstalled`,
      platformWebhook("shop/redact", shop.domain, redact),
    );
    expect(moved.status).toBe(400);
    const retopiced = await app.request(
      `${BASE_URL}/webhooks/app/uninstalled`,
      platformWebhook("app/uninstalled", shop.domain, redact),
    );
    expect(retopiced.status).toBe(400);
    const badHeader = await app.request(
      `${BASE_URL}/webhooks/app/uninstalled`,
      platformWebhook("app/uninstalled", "not a shop", uninstalledBody(shop.domain)),
    );
    expect(badHeader.status).toBe(400);
    const notJson = await app.request(
      `${BASE_URL}/webhooks/shop/redact`,
      platformWebhook("shop/redact", shop.domain, "shop_domain=x"),
    );
    expect(notJson.status).toBe(400);
    const noId = platformWebhook("app/uninstalled", shop.domain, uninstalledBody(shop.domain));
    const { "X-Shopify-Webhook-Id": _omitted, ...withoutId } = noId.headers;
    expect((await app.request(`${BASE_URL}/webhooks/app/uninstalled`, { ...noId, headers: withoutId })).status).toBe(
      400,
    );
    expect(await uninstalledAt(shop.id)).toBeNull();
  });

  it.each(["customers/data_request", "customers/redact", "shop/redact"])(
    "compliance topic %s: 200 when signed (once per webhook id), 401 when not, 400 for another shop's header",
    async (topic) => {
      const { domain } = await createShop();
      const url = `${BASE_URL}/webhooks/${topic}`;
      const body = JSON.stringify({ shop_id: 1, shop_domain: domain, customer: { id: 7 }, request: topic });
      const signed = platformWebhook(topic, domain, body);
      expect((await app.request(url, signed)).status).toBe(200);
      expect((await app.request(url, signed)).status).toBe(200);
      expect(await processed({ id: signed.headers["X-Shopify-Webhook-Id"] })).toEqual([
        expect.objectContaining({ topic, shopDomain: domain }),
      ]);
      // The same signed body under another webhook id is that webhook again: 200, not recorded again.
      const again = underNewId(signed);
      expect((await app.request(url, again)).status).toBe(200);
      expect(await processedCount({ id: again.headers["X-Shopify-Webhook-Id"] })).toBe(0);
      const digest = `sha256:${createHash("sha256").update(body).digest("hex")}`;
      expect(await processed({ id: digest })).toEqual([expect.objectContaining({ topic, shopDomain: domain })]);
      // One request recorded for the worker (tests/services/compliance/compliance.test.ts runs them).
      const requests = await database().selectFrom("ComplianceRequest").select("topic").execute();
      expect(requests.filter((request) => request.topic === topic)).toHaveLength(1);
      expect((await app.request(url, platformWebhook(topic, domain, body, "wrong"))).status).toBe(401);
      expect((await app.request(url, platformWebhook(topic, "b.myshopify.com", body))).status).toBe(400);
      // A shop this app does not hold: 200, and nothing recorded.
      const unknown = platformWebhook(topic, "a.myshopify.com", body.replace(domain, "a.myshopify.com"));
      expect((await app.request(url, unknown)).status).toBe(200);
      expect(await processedCount({ shopDomain: "a.myshopify.com" })).toBe(0);
    },
  );

  it("forgets processed webhook ids after the retention (the worker's hourly maintenance job)", async () => {
    const now = Date.now();
    const old = new Date(now - PLATFORM_WEBHOOK_RETENTION_MS - 60_000);
    const recent = new Date(now - PLATFORM_WEBHOOK_RETENTION_MS + 600_000);
    const webhook = { topic: "shop/redact", shopDomain: "a.myshopify.com" };
    await insertProcessedWebhook(database(), { id: `old-${randomUUID()}`, ...webhook }, old);
    await insertProcessedWebhook(database(), { id: `recent-${randomUUID()}`, ...webhook }, recent);
    const job = { id: "maintenance-test", name: JOBS.idempotencyPurge.name } as Job;
    expect(await handleMaintenanceJob(job)).toMatchObject({ platformWebhooks: 1 });
    expect(await processedCount({ idPrefix: "old-" })).toBe(0);
    expect(await processedCount({ idPrefix: "recent-" })).toBe(1);
  });
});
