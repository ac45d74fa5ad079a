import { describe, expect, it } from "vitest";
import { prisma } from "~/db.server";
import { IDEMPOTENCY_WINDOW_MS } from "~/services/idempotency/idempotency.server";
import { createApiKey } from "~/services/keys/keys.server";
import { createShopWithKey } from "../factories";
import { OpenApiValidator, rawCall } from "../support/api";
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
