import { createCipheriv, hkdfSync, randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { countEndpoints, replaceSealedSecret } from "~/data/webhook-endpoint-rows.server";
import { resetEnvCache } from "~/env.server";
import {
  decryptSecret,
  encryptSecret,
  endpointSecret,
  resealEndpointSecrets,
} from "~/services/webhooks/endpoint-secrets.server";
import type { Job } from "bullmq";
import { JOBS } from "~/jobs/definitions";
import { handleMaintenanceJob } from "../../../worker/handlers/maintenance";
import { createShopWithKey, createWebhookEndpoint } from "../../factories";
import { rawCall } from "../../support/openapi-client";
import { apiHarness } from "../../support/harness";

// Production rules: https only (WEBHOOK_ALLOW_HTTP unset).
const { app, validator, clientFor } = await apiHarness();
const { shop, secret: apiKey } = await createShopWithKey();
const api = clientFor(apiKey);
const endpointRow = (id: string) =>
  database().selectFrom("WebhookEndpoint").selectAll().where("id", "=", id).executeTakeFirst();
const post = (body: unknown) =>
  rawCall(app, validator, "/v1/webhooks", {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

describe("webhook endpoint management", () => {
  it("creates an endpoint and shows its secret once; the secret is stored encrypted", async () => {
    const created = await api.POST("/webhooks", {
      body: { url: "https://receiver.example/hooks", events: ["item.added", "list.shared", "item.added"] },
    });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({
      url: "https://receiver.example/hooks",
      events: ["item.added", "list.shared"],
      disabledAt: null,
      failCount: 0,
    });
    const { secret, id } = created.data!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const listed = await api.GET("/webhooks");
    const entry = listed.data!.find((endpoint) => endpoint.id === id)!;
    expect(entry).not.toHaveProperty("secret");
    const row = (await endpointRow(id))!;
    expect(row.secretCiphertext).not.toContain(secret.slice(6));
    expect(decryptSecret(row.secretCiphertext, { endpointId: id, shopId: shop.id })).toBe(secret);
  });

  it.each([
    [{ url: "http://receiver.example/hooks", events: ["item.added"] }, 422, "#/url"],
    [{ url: "ftp://receiver.example/hooks", events: ["item.added"] }, 422, "#/url"],
    [{ url: "https://user:pass@receiver.example/hooks", events: ["item.added"] }, 422, "#/url"],
    [{ url: "receiver.example/hooks", events: ["item.added"] }, 422, "#/url"],
    [{ url: "https://receiver.example/hooks", events: ["item.renamed"] }, 422, "#/events/0"],
    [{ url: "https://receiver.example/hooks", events: ["ping"] }, 422, "#/events/0"],
    [{ url: "https://receiver.example/hooks", events: [] }, 422, "#/events"],
    [{ url: "https://receiver.example/hooks" }, 422, "#/events"],
    [{ url: "https://receiver.example/hooks", events: ["item.added"], secret: "mine" }, 422, ""],
  ])("refuses %j with %i", async (body, status, pointer) => {
    const response = await post(body);
    expect(response.status).toBe(status);
    const problem = await response.json();
    expect(problem.type).toBe("http://localhost:3000/problems/validation-error");
    if (pointer) expect(problem.errors.map((error: { pointer: string }) => error.pointer)).toContain(pointer);
  });

  it("refuses a body that is not JSON (400) or not declared as JSON (415)", async () => {
    const headers = { Authorization: `Bearer ${apiKey}` };
    const malformed = await rawCall(app, validator, "/v1/webhooks", {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: "{",
    });
    expect(malformed.status).toBe(400);
    const text = await rawCall(app, validator, "/v1/webhooks", {
      method: "POST",
      headers: { ...headers, "Content-Type": "text/plain" },
      body: "{}",
    });
    expect(text.status).toBe(415);
  });

  it("answers 404 for another shop's endpoint and 400 for a wrong id prefix, changing nothing", async () => {
    const other = await createShopWithKey();
    const { endpoint } = await createWebhookEndpoint(other.shop.id);
    const path = { params: { path: { id: endpoint.id } } };
    expect((await api.DELETE("/webhooks/{id}", path)).response.status).toBe(404);
    expect((await api.POST("/webhooks/{id}/test", path)).response.status).toBe(404);
    expect((await api.POST("/webhooks/{id}/enable", path)).response.status).toBe(404);
    expect((await api.GET("/webhooks/{id}/deliveries", path)).response.status).toBe(404);
    expect(await endpointRow(endpoint.id)).toBeDefined();
    expect(await database().selectFrom("Event").select("id").where("shopId", "=", other.shop.id).execute()).toEqual([]);
    const wrongPrefix = await api.DELETE("/webhooks/{id}", {
      params: { path: { id: "lst_01jd2x6c5ef0q8w3d0s8b2n7k4" } },
    });
    expect(wrongPrefix.response.status).toBe(400);
    const bad = await api.GET("/webhooks/{id}/deliveries", {
      params: { path: { id: endpoint.id }, query: { cursor: "not-a-cursor" } },
    });
    expect(bad.response.status).toBe(400);
  });

  it("deletes an endpoint (204), then 404", async () => {
    const { endpoint } = await createWebhookEndpoint(shop.id);
    const path = { params: { path: { id: endpoint.id } } };
    expect((await api.DELETE("/webhooks/{id}", path)).response.status).toBe(204);
    expect((await api.DELETE("/webhooks/{id}", path)).response.status).toBe(404);
  });

  it("queues a ping through the outbox for the endpoint tested", async () => {
    const { endpoint } = await createWebhookEndpoint(shop.id);
    const response = await api.POST("/webhooks/{id}/test", { params: { path: { id: endpoint.id } } });
    expect(response.response.status).toBe(202);
    const events = await database()
      .selectFrom("Event")
      .selectAll()
      .where("shopId", "=", shop.id)
      .where("type", "=", "ping")
      .execute();
    expect(events.map((event) => JSON.parse(event.data))).toContainEqual({
      endpointId: endpoint.id,
      message: "Test event from the wishlist service.",
    });
  });

  it("pages the delivery log newest first", async () => {
    const { endpoint } = await createWebhookEndpoint(shop.id);
    const { createDelivery } = await import("../../factories");
    const made = [];
    for (let index = 0; index < 3; index++) made.push(await createDelivery(shop.id, endpoint.id));
    const first = await api.GET("/webhooks/{id}/deliveries", {
      params: { path: { id: endpoint.id }, query: { limit: 2 } },
    });
    expect(first.data!.data.map((delivery) => delivery.id)).toEqual([made[2]!.id, made[1]!.id]);
    const cursor = first.data!.pageInfo.nextCursor!;
    const second = await api.GET("/webhooks/{id}/deliveries", {
      params: { path: { id: endpoint.id }, query: { limit: 2, cursor } },
    });
    expect(second.data!.data.map((delivery) => delivery.id)).toEqual([made[0]!.id]);
    expect(second.data!.pageInfo.nextCursor).toBeNull();
    expect(second.data!.data[0]).toMatchObject({ eventType: "ping", attempt: 1, status: "failed", statusCode: 500 });
  });

  it("allows at most 20 endpoints per shop (409)", async () => {
    const { shop: full, secret } = await createShopWithKey();
    for (let index = 0; index < 20; index++) await createWebhookEndpoint(full.id, `https://r${index}.example/`);
    const response = await rawCall(app, validator, "/v1/webhooks", {
      method: "POST",
      headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
      body: JSON.stringify({ url: "https://one-more.example/", events: ["item.added"] }),
    });
    expect(response.status).toBe(409);
    expect(await countEndpoints(database(), full.id)).toBe(20);
  });
});

describe("the endpoint cap under concurrency", () => {
  it("never exceeds 20 endpoints, whatever the number of parallel creations", async () => {
    const { shop: busy, secret } = await createShopWithKey();
    for (let index = 0; index < 16; index++) await createWebhookEndpoint(busy.id, `https://r${index}.example/`);
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        rawCall(app, validator, "/v1/webhooks", {
          method: "POST",
          headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
          body: JSON.stringify({ url: `https://parallel-${index}.example/`, events: ["item.added"] }),
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(4).fill(201), ...Array(8).fill(409)]);
    expect(await countEndpoints(database(), busy.id)).toBe(20);
  });
});

describe("signing secrets at rest: bound to their endpoint, versioned for rotation", () => {
  const original = { current: process.env.SERVICE_SECRET, previous: process.env.SERVICE_SECRET_PREVIOUS };
  const setSecrets = (current: string | undefined, previous: string | undefined) => {
    if (current === undefined) delete process.env.SERVICE_SECRET;
    else process.env.SERVICE_SECRET = current;
    if (previous === undefined) delete process.env.SERVICE_SECRET_PREVIOUS;
    else process.env.SERVICE_SECRET_PREVIOUS = previous;
    resetEnvCache();
  };
  afterEach(() => setSecrets(original.current, original.previous));
  const owner = { endpointId: "whe_01jd2x6c5ef0q8w3d0s8b2n7k4", shopId: "shop_01jd2x6c5ef0q8w3d0s8b2n7k4" };

  it("does not decrypt a ciphertext copied onto another endpoint or another shop", () => {
    const stored = encryptSecret("whsec_bound", owner);
    expect(decryptSecret(stored, owner)).toBe("whsec_bound");
    expect(() => decryptSecret(stored, { ...owner, endpointId: "whe_01jd2x6c5ef0q8w3d0s8b2n7k5" })).toThrow(
      /cannot be decrypted/,
    );
    expect(() => decryptSecret(stored, { ...owner, shopId: "shop_01jd2x6c5ef0q8w3d0s8b2n7k5" })).toThrow(
      /cannot be decrypted/,
    );
  });

  /** The v1 format, written independently: AES-256-GCM under HKDF(SERVICE_SECRET, "webhook-secret-encryption"). */
  function legacyV1(
    plaintext: string,
    secret = process.env.SERVICE_SECRET ?? "local-dev-service-secret-change-me-0123456789",
  ) {
    const key = Buffer.from(hkdfSync("sha256", secret, "wishlist-service", "webhook-secret-encryption", 32));
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return ["v1", iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString("base64url")).join(".");
  }

  it("still decrypts values stored in the first format (v1, no associated data)", () => {
    const stored = legacyV1("whsec_legacy");
    expect(decryptSecret(stored, owner)).toBe("whsec_legacy");
    expect(endpointSecret(stored, owner)).toBe("whsec_legacy");
  });

  it("after a rotation, decrypts under SERVICE_SECRET_PREVIOUS what was sealed before, and seals anew", () => {
    const old = "old-service-secret-0123456789-0123456789";
    const next = "new-service-secret-0123456789-0123456789";
    setSecrets(old, undefined);
    const before = encryptSecret("whsec_rotated", owner);

    setSecrets(next, undefined);
    expect(() => decryptSecret(before, owner)).toThrow(/neither SERVICE_SECRET nor SERVICE_SECRET_PREVIOUS/);

    setSecrets(next, old);
    expect(decryptSecret(before, owner)).toBe("whsec_rotated");
    const after = encryptSecret("whsec_rotated", owner);
    expect(after.split(".")[1]).not.toBe(before.split(".")[1]); // a different key id
    setSecrets(next, undefined);
    expect(decryptSecret(after, owner)).toBe("whsec_rotated");
  });

  /** A shop with two endpoints sealed under an old SERVICE_SECRET: one in the first (v1) form, one in v2. */
  async function endpointsUnderOldSecret() {
    const old = "old-service-secret-0123456789-0123456789";
    const next = "new-service-secret-0123456789-0123456789";
    const { shop: rotated } = await createShopWithKey();
    setSecrets(old, undefined);
    const legacy = await createWebhookEndpoint(rotated.id, "https://legacy.example/");
    await replaceSealedSecret(
      database(),
      legacy.endpoint,
      legacy.endpoint.secretCiphertext,
      legacyV1(legacy.secret, old),
    );
    const sealedBefore = await createWebhookEndpoint(rotated.id, "https://sealed.example/");
    return { old, next, rotated, legacy, sealedBefore };
  }

  it("re-encrypts first-format and previous-secret values under the current secret, so the old one can go", async () => {
    const { old, next, rotated, legacy, sealedBefore } = await endpointsUnderOldSecret();

    setSecrets(next, old);
    const { resealed } = await resealEndpointSecrets();
    expect(resealed).toBeGreaterThanOrEqual(2);
    expect((await resealEndpointSecrets()).resealed).toBe(0);

    setSecrets(next, undefined);
    for (const { endpoint, secret } of [legacy, sealedBefore]) {
      const row = (await endpointRow(endpoint.id))!;
      expect(row.secretCiphertext.startsWith("v2.")).toBe(true);
      expect(decryptSecret(row.secretCiphertext, { endpointId: endpoint.id, shopId: rotated.id })).toBe(secret);
    }
  });

  it("the worker's hourly maintenance job reseals them, so SERVICE_SECRET_PREVIOUS can go after a rotation", async () => {
    const { old, next, rotated, legacy, sealedBefore } = await endpointsUnderOldSecret();
    // A value no secret opens is left as it is and counted, not a failure of the job.
    const lost = await createWebhookEndpoint(rotated.id, "https://lost.example/");
    await replaceSealedSecret(
      database(),
      lost.endpoint,
      lost.endpoint.secretCiphertext,
      legacyV1(lost.secret, "some-other-service-secret-0123456789-01"),
    );

    setSecrets(next, old);
    const job = { id: "maintenance-test", name: JOBS.idempotencyPurge.name } as Job;
    const result = await handleMaintenanceJob(job);
    expect(result.secrets?.resealed).toBeGreaterThanOrEqual(2);
    expect(result.secrets?.unreadable).toBeGreaterThanOrEqual(1);
    expect((await handleMaintenanceJob(job)).secrets?.resealed).toBe(0);

    setSecrets(next, undefined);
    for (const { endpoint, secret } of [legacy, sealedBefore]) {
      const row = (await endpointRow(endpoint.id))!;
      expect(row.secretCiphertext.startsWith("v2.")).toBe(true);
      expect(decryptSecret(row.secretCiphertext, { endpointId: endpoint.id, shopId: rotated.id })).toBe(secret);
    }
    const unchanged = (await endpointRow(lost.endpoint.id))!;
    expect(unchanged.secretCiphertext.startsWith("v1.")).toBe(true);
  });
});
