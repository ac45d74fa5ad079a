import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import {
  completeIdempotencyKey,
  IDEMPOTENCY_WINDOW_MS,
  IN_FLIGHT_ABANDONED_MS,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
} from "~/services/idempotency/idempotency.server";
import { createApiKey } from "~/services/keys/api-keys.server";
import { createShopWithKey } from "../factories";
import { rawCall } from "../support/openapi-client";
import { apiHarness } from "../support/harness";

const { app, validator, callsOf } = await apiHarness();

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
  const count = async (label: string) =>
    Number(
      (
        await database()
          .selectFrom("ApiKey")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("shopId", "=", shop.id)
          .where("label", "=", label)
          .executeTakeFirstOrThrow()
      ).n,
    );
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
    await database()
      .updateTable("IdempotencyRecord")
      .set({ expiresAt: new Date(Date.now() - 1), createdAt: new Date(Date.now() - IDEMPOTENCY_WINDOW_MS - 1) })
      .where("shopId", "=", shop.id)
      .where("key", "=", "key-old")
      .execute();
    const again = await post("old", "key-old");
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(await count("old")).toBe(2);
  });

  it("takes a request still in flight after a minute for abandoned: the retry runs (a running one gets 409)", async () => {
    // As if the first request's process died, or lost the database before it could release the key.
    const { shop } = await createShopWithKey();
    const scope = { shopId: shop.id, credentialId: "abandoned-scope", key: "key-abandoned" };
    const started = new Date();
    const first = await reserveIdempotencyKey(scope, "hash-a", started);
    expect(first.kind).toBe("reserved");
    const later = (ms: number) => new Date(started.getTime() + ms);
    await expect(reserveIdempotencyKey(scope, "hash-a", later(IN_FLIGHT_ABANDONED_MS - 1))).rejects.toMatchObject({
      code: "idempotency_key_in_use",
    });
    // A different request under the key is still refused as such while the record stands.
    await expect(reserveIdempotencyKey(scope, "hash-b", later(IN_FLIGHT_ABANDONED_MS - 1))).rejects.toMatchObject({
      code: "idempotency_key_reused",
    });
    const retry = await reserveIdempotencyKey(scope, "hash-a", later(IN_FLIGHT_ABANDONED_MS));
    expect(retry).toMatchObject({ kind: "reserved" });
    expect(retry.kind === "reserved" && first.kind === "reserved" && retry.recordId !== first.recordId).toBe(true);
    // A completed record is never taken for abandoned, however old.
    if (retry.kind !== "reserved") throw new Error("expected a reservation");
    await completeIdempotencyKey(retry, { status: 201, headers: {}, body: "done" });
    expect(await reserveIdempotencyKey(scope, "hash-a", later(2 * IN_FLIGHT_ABANDONED_MS))).toEqual({
      kind: "replay",
      response: { status: 201, headers: {}, body: "done" },
    });
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
    await database()
      .updateTable("IdempotencyRecord")
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where("shopId", "=", shop.id)
      .where("key", "=", "stale")
      .execute();
    expect(await purgeExpiredIdempotencyKeys()).toBeGreaterThanOrEqual(1);
    const records = await database()
      .selectFrom("IdempotencyRecord")
      .select("key")
      .where("shopId", "=", shop.id)
      .execute();
    const keys = records.map((record) => record.key);
    expect(keys).toEqual(["fresh"]);
  });
});

describe("Idempotency-Key on storefront POSTs: scoped per shopper", () => {
  async function storefrontShop() {
    const { shop, secret } = await createShopWithKey();
    const calls = callsOf({ shop, secret });
    const proxy = (path: string, customer: string, body: unknown, key: string, query: Record<string, string> = {}) =>
      calls.proxyCall(path, customer, { method: "POST", body, headers: { "Idempotency-Key": key }, query });
    const publicCall = (path: string, key: string, body?: unknown) =>
      calls.publicCall(path, { method: "POST", body, headers: { "Idempotency-Key": key } });
    const privateCall = (path: string, key: string) =>
      calls.privateCall(path, { method: "POST", headers: { "Idempotency-Key": key } });
    const items = async (owner: { customerId: string } | { anonymousId: string }) => {
      const row = await database()
        .selectFrom("Item")
        .innerJoin("List", "List.id", "Item.listId")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("Item.shopId", "=", shop.id)
        .where("List.isDefault", "=", true)
        .$if("customerId" in owner, (query) =>
          query.where("List.customerId", "=", (owner as { customerId: string }).customerId),
        )
        .$if("anonymousId" in owner, (query) =>
          query.where("List.anonymousId", "=", (owner as { anonymousId: string }).anonymousId),
        )
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
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

    const row = await database()
      .selectFrom("IdempotencyRecord")
      .selectAll()
      .where("shopId", "=", shop.id)
      .where("key", "=", "key-secret")
      .executeTakeFirst();
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
    const rows = await database().selectFrom("IdempotencyRecord").selectAll().where("shopId", "=", shop.id).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(endpoint.secret.slice("whsec_".length));

    const replay = await create();
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.json()).toEqual(endpoint);
    const endpoints = await database()
      .selectFrom("WebhookEndpoint")
      .select("id")
      .where("shopId", "=", shop.id)
      .execute();
    expect(endpoints).toHaveLength(1);
  });

  it("does not replay a stored response under another scope (the scope is bound to the ciphertext)", async () => {
    const { shop, post } = await setup();
    await post("bound", "key-bound");
    const other = await createApiKey({ shopId: shop.id, label: "other" });
    // Moving the record to another credential makes it unreadable: it is dropped and the request runs anew.
    await database()
      .updateTable("IdempotencyRecord")
      .set({ credentialId: other.key.id })
      .where("shopId", "=", shop.id)
      .where("key", "=", "key-bound")
      .execute();
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

describe("Idempotency-Key records in the service's unit of work", () => {
  const response = (body: string) => ({ status: 201, headers: { "content-type": "application/json" }, body });
  const record = (shopId: string, key: string) =>
    database()
      .selectFrom("IdempotencyRecord")
      .selectAll()
      .where("shopId", "=", shopId)
      .where("key", "=", key)
      .executeTakeFirst();
  const keysLabelled = (shopId: string, label: string) =>
    database().selectFrom("ApiKey").select("id").where("shopId", "=", shopId).where("label", "=", label).execute();

  it("commits the completed record with the change: a retry replays it and the key exists once", async () => {
    const { shop } = await createShopWithKey();
    const scope = { shopId: shop.id, credentialId: "unit-scope", key: "unit-1" };
    const reservation = await reserveIdempotencyKey(scope, "hash-1");
    if (reservation.kind !== "reserved") throw new Error("expected a reservation");
    const created = await createApiKey(
      { shopId: shop.id, label: "in-unit" },
      { within: (tx, result) => completeIdempotencyKey(reservation, response(result.key.id), tx) },
    );
    // As if the process died now: nothing completes the record after the work, and it is complete anyway.
    expect(await record(shop.id, "unit-1")).toMatchObject({ state: "completed", responseStatus: 201 });
    expect(await keysLabelled(shop.id, "in-unit")).toEqual([{ id: created.key.id }]);
    const retry = await reserveIdempotencyKey(scope, "hash-1");
    expect(retry).toEqual({ kind: "replay", response: response(created.key.id) });

    // The middleware's later steps leave a record completed with the change alone.
    await completeIdempotencyKey(reservation, response("other"));
    await releaseIdempotencyKey(reservation);
    expect(await reserveIdempotencyKey(scope, "hash-1")).toEqual({
      kind: "replay",
      response: response(created.key.id),
    });
  });

  it("rolls the completed record back with the change: no key, the record still in flight, then released", async () => {
    const { shop } = await createShopWithKey();
    const scope = { shopId: shop.id, credentialId: "unit-scope", key: "unit-2" };
    const reservation = await reserveIdempotencyKey(scope, "hash-2");
    if (reservation.kind !== "reserved") throw new Error("expected a reservation");
    const failing = createApiKey(
      { shopId: shop.id, label: "rolled-back" },
      {
        within: async (tx, result) => {
          await completeIdempotencyKey(reservation, response(result.key.id), tx);
          throw new Error("the transaction fails after the record was written");
        },
      },
    );
    await expect(failing).rejects.toThrow("the transaction fails");
    expect(await keysLabelled(shop.id, "rolled-back")).toEqual([]);
    expect(await record(shop.id, "unit-2")).toMatchObject({ state: "in_flight", responseStatus: null });
    await releaseIdempotencyKey(reservation);
    expect(await record(shop.id, "unit-2")).toBeUndefined();
  });

  it("POST /v1/keys stores its response in the key's transaction: one key, one completed record, replayed", async () => {
    const { shop, post, count } = await setup();
    const first = await post("http-unit", "key-unit");
    expect(first.status).toBe(201);
    const stored = await record(shop.id, "key-unit");
    expect(stored).toMatchObject({ state: "completed", responseStatus: 201 });
    const retry = await post("http-unit", "key-unit");
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.text()).toBe(await first.text());
    expect(await count("http-unit")).toBe(1);
  });
});
