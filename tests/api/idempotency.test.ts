import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { prisma, sql } from "~/db.server";
import { IDEMPOTENCY_WINDOW_MS } from "~/services/idempotency/idempotency.server";
import { createApiKey } from "~/services/keys/keys.server";
import { createShopWithKey } from "../factories";
import { OpenApiValidator, rawCall, signedProxyPath } from "../support/api";
import { createTestApp } from "../support/http";

const app = await createTestApp();
const validator = await OpenApiValidator.load(app);

async function setup() {
  const { shop, secret } = await createShopWithKey();
  const post = (label: string, key?: string, credential = secret) =>
    rawCall(app, validator, "/v1/keys", {
      method: "POST",
      headers: {
        Authorization: `Bearer ${credential}`,
        "Content-Type": "application/json",
        ...(key ? { "Idempotency-Key": key } : {}),
      },
      body: JSON.stringify({ label }),
    });
  const count = (label: string) => prisma.apiKey.count({ where: { shopId: shop.id, label } });
  return { shop, secret, post, count };
}

describe("Idempotency-Key on POST", () => {
  it("replays the original status and body, marked, and creates nothing twice", async () => {
    const { post, count } = await setup();
    const first = await post("ci", "key-1");
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const original = await first.text();

    const retry = await post("ci", "key-1");
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await retry.text()).toBe(original);
    expect(await count("ci")).toBe(1);
  });

  it("refuses the same key with a different request: 422 idempotency-key-reused", async () => {
    const { post, count } = await setup();
    await post("first", "key-2");
    const other = await post("second", "key-2");
    expect(other.status).toBe(422);
    expect((await other.json()).type).toBe("http://localhost:3000/problems/idempotency-key-reused");
    expect(await count("second")).toBe(0);
  });

  it("replays client errors too, so a retried bad request stays the same answer", async () => {
    const { post } = await setup();
    const first = await post("", "key-bad");
    expect(first.status).toBe(422);
    const retry = await post("", "key-bad");
    expect(retry.status).toBe(422);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
  });

  it("scopes keys per shop and credential: the same string from another key or shop runs anew", async () => {
    const { shop, post, count } = await setup();
    await post("scoped", "shared-key");

    const sameShopOtherKey = await createApiKey({ shopId: shop.id, label: "second credential" });
    const fromOtherKey = await post("scoped", "shared-key", sameShopOtherKey.secret);
    expect(fromOtherKey.status).toBe(201);
    expect(fromOtherKey.headers.get("idempotent-replayed")).toBeNull();
    expect(await count("scoped")).toBe(2);

    const otherShop = await createShopWithKey();
    const fromOtherShop = await post("scoped", "shared-key", otherShop.secret);
    expect(fromOtherShop.status).toBe(201);
    expect(fromOtherShop.headers.get("idempotent-replayed")).toBeNull();
  });

  it("runs exactly one of N parallel identical requests; the others get 409 in-use or the replay", async () => {
    const { post, count } = await setup();
    const responses = await Promise.all(Array.from({ length: 12 }, () => post("parallel", "key-parallel")));
    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    expect(statuses.filter((status) => status === 201).length).toBeGreaterThanOrEqual(1);
    const conflicts = responses.filter((response) => response.status === 409);
    for (const conflict of conflicts) {
      expect((await conflict.json()).type).toBe("http://localhost:3000/problems/idempotency-key-in-use");
    }
    const bodies = new Set(await Promise.all(responses.filter((r) => r.status === 201).map((r) => r.text())));
    expect(bodies.size).toBe(1);
    expect(await count("parallel")).toBe(1);
  });

  it("forgets a key after 24 hours", async () => {
    const { shop, post, count } = await setup();
    await post("old", "key-old");
    await prisma.idempotencyRecord.updateMany({
      where: { shopId: shop.id, key: "key-old" },
      data: { expiresAt: new Date(Date.now() - 1), createdAt: new Date(Date.now() - IDEMPOTENCY_WINDOW_MS - 1) },
    });
    const again = await post("old", "key-old");
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(await count("old")).toBe(2);
  });

  it("refuses a malformed key with 400", async () => {
    const { post } = await setup();
    const response = await post("x", "has spaces in it");
    expect(response.status).toBe(400);
  });
});

describe("purging expired idempotency records", () => {
  it("deletes only records past their 24 hours", async () => {
    const { purgeExpiredIdempotencyKeys } = await import("~/services/idempotency/idempotency.server");
    const { shop, post } = await setup();
    await post("keep", "fresh");
    await post("drop", "stale");
    await prisma.idempotencyRecord.updateMany({
      where: { shopId: shop.id, key: "stale" },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    expect(await purgeExpiredIdempotencyKeys()).toBeGreaterThanOrEqual(1);
    const keys = (await prisma.idempotencyRecord.findMany({ where: { shopId: shop.id } })).map((record) => record.key);
    expect(keys).toEqual(["fresh"]);
  });
});

describe("Idempotency-Key on storefront POSTs: scoped per shopper", () => {
  async function storefrontShop() {
    const { shop, secret } = await createShopWithKey();
    const proxy = (path: string, customer: string, body: unknown, key: string, query: Record<string, string> = {}) =>
      rawCall(
        app,
        validator,
        signedProxyPath(`/proxy/v1${path}`, { shop: shop.domain, logged_in_customer_id: customer, ...query }),
        {
          method: "POST",
          headers: { "Content-Type": "application/json", "Idempotency-Key": key },
          body: JSON.stringify(body),
        },
      );
    const publicCall = (path: string, key: string, body?: unknown) =>
      rawCall(app, validator, `/v1${path}`, {
        method: "POST",
        headers: {
          "X-Service-Shop": shop.domain,
          "X-Service-Public-Key": shop.publicKey,
          "Idempotency-Key": key,
          ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
    const privateCall = (path: string, key: string) =>
      rawCall(app, validator, `/v1${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Idempotency-Key": key },
      });
    const items = (owner: { customerId: string } | { anonymousId: string }) =>
      prisma.item.count({ where: { shopId: shop.id, list: { ...owner, isDefault: true } } });
    return { shop, proxy, publicCall, privateCall, items };
  }

  it("two app proxy customers sending the same key each get their own toggle, and each save happens", async () => {
    const { proxy, items } = await storefrontShop();
    const body = { productId: "4242", handle: "mug" };
    const first = await proxy("/storefront/wishlist/toggle", "7001", body, "same-key");
    const second = await proxy("/storefront/wishlist/toggle", "7002", body, "same-key");
    for (const response of [first, second]) {
      expect(response.status).toBe(200);
      expect(response.headers.get("idempotent-replayed")).toBeNull();
      expect(await response.json()).toMatchObject({ added: true, count: 1 });
    }
    expect(await items({ customerId: "7001" })).toBe(1);
    expect(await items({ customerId: "7002" })).toBe(1);

    // The first customer's own retry, forwarded again with a fresh timestamp and signature, is a replay.
    const retry = await proxy("/storefront/wishlist/toggle", "7001", body, "same-key", {
      timestamp: String(Math.floor(Date.now() / 1000) - 7),
    });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await items({ customerId: "7001" })).toBe(1);
  });

  it("two public-key guests sending the same key each get their own share link and their own toggle", async () => {
    const { publicCall, items } = await storefrontShop();
    const guests = [randomUUID(), randomUUID()];
    const links = [];
    for (const aid of guests) {
      const toggled = await publicCall("/storefront/wishlist/toggle", "guest-key", {
        productId: "77",
        handle: "hat",
        anonymousId: aid,
      });
      expect(toggled.status).toBe(200);
      expect(toggled.headers.get("idempotent-replayed")).toBeNull();
      expect(await items({ anonymousId: aid })).toBe(1);

      const shared = await publicCall(`/storefront/wishlist/share?aid=${aid}`, "guest-share-key");
      expect(shared.status).toBe(200);
      expect(shared.headers.get("idempotent-replayed")).toBeNull();
      links.push(await shared.json());
    }
    expect(links[0].token).not.toBe(links[1].token);
    expect(links[0].listId).not.toBe(links[1].listId);
  });

  it("refuses the same key with another query string: 422 idempotency-key-reused", async () => {
    const { privateCall, proxy } = await storefrontShop();
    const first = await privateCall("/storefront/wishlist/share?customerId=501", "query-key");
    expect(first.status).toBe(200);
    const other = await privateCall("/storefront/wishlist/share?customerId=502", "query-key");
    expect(other.status).toBe(422);
    expect((await other.json()).type).toBe("http://localhost:3000/problems/idempotency-key-reused");

    const body = { productId: "5", handle: "five" };
    expect((await proxy("/storefront/wishlist/toggle", "7003", body, "q-key", { note: "a" })).status).toBe(200);
    const changed = await proxy("/storefront/wishlist/toggle", "7003", body, "q-key", { note: "b" });
    expect(changed.status).toBe(422);
  });
});

describe("stored responses hold no one-time secret in clear", () => {
  it("keeps a created key's secret out of the idempotency record; the replay still returns the working key", async () => {
    const { shop, post } = await setup();
    const created = await post("secret-keeper", "key-secret");
    expect(created.status).toBe(201);
    const { secret, id } = await created.json();
    expect(secret).toMatch(/^svc_sk_/);

    const [row] = await sql().all<Record<string, unknown>>(
      `SELECT * FROM "IdempotencyRecord" WHERE "shopId" = ? AND "key" = ?`,
      [shop.id, "key-secret"],
    );
    expect(row).toBeDefined();
    const raw = JSON.stringify(row);
    expect(raw).not.toContain(secret);
    expect(raw).not.toContain(secret.slice("svc_sk_".length));

    const replay = await post("secret-keeper", "key-secret");
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.json()).toMatchObject({ id, secret });
    const withKey = await rawCall(app, validator, "/v1/keys", { headers: { Authorization: `Bearer ${secret}` } });
    expect(withKey.status).toBe(200);
  });

  it("keeps a webhook endpoint's signing secret out of the record; the replay returns the same endpoint", async () => {
    const { shop, secret: apiKey } = await setup();
    const create = () =>
      rawCall(app, validator, "/v1/webhooks", {
        method: "POST",
        headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json", "Idempotency-Key": "wh-1" },
        body: JSON.stringify({ url: "https://receiver.example/hooks", events: ["item.added"] }),
      });
    const created = await create();
    expect(created.status).toBe(201);
    const endpoint = await created.json();
    expect(endpoint.secret).toMatch(/^whsec_/);
    const rows = await sql().all<Record<string, unknown>>(`SELECT * FROM "IdempotencyRecord" WHERE "shopId" = ?`, [
      shop.id,
    ]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(endpoint.secret.slice("whsec_".length));

    const replay = await create();
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.json()).toEqual(endpoint);
    expect(await prisma.webhookEndpoint.count({ where: { shopId: shop.id } })).toBe(1);
  });

  it("does not replay a stored response under another scope (the scope is bound to the ciphertext)", async () => {
    const { shop, post } = await setup();
    await post("bound", "key-bound");
    const other = await createApiKey({ shopId: shop.id, label: "other" });
    // Moving the record to another credential makes it unreadable: it is dropped and the request runs anew.
    await prisma.idempotencyRecord.updateMany({
      where: { shopId: shop.id, key: "key-bound" },
      data: { credentialId: other.key.id },
    });
    const moved = await rawCall(app, validator, "/v1/keys", {
      method: "POST",
      headers: {
        Authorization: `Bearer ${other.secret}`,
        "Content-Type": "application/json",
        "Idempotency-Key": "key-bound",
      },
      body: JSON.stringify({ label: "bound" }),
    });
    expect(moved.status).toBe(201);
    expect(moved.headers.get("idempotent-replayed")).toBeNull();
  });
});
