import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { describe, expect, it } from "vitest";
import { prisma } from "~/db.server";
import { resetEnvCache } from "~/env.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { createShopWithKey } from "../factories";
import { apiClient, OpenApiValidator } from "../support/api";
import { createTestApp } from "../support/http";
import { startReceiver, type Received } from "./receiver";
import { useWorker } from "../support/worker";

// Deliveries to a receiver on this machine: plain http and loopback allowed, as in the local demo; the
// retry unit is 20 ms instead of a minute, so the whole schedule (467 units) runs in under 10 s.
Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  WEBHOOK_RETRY_UNIT_MS: "20",
  WEBHOOK_TIMEOUT_MS: "500",
  OUTBOX_RELAY_INTERVAL_MS: "20",
});
resetEnvCache();

const app = await createTestApp();
const validator = await OpenApiValidator.load(app);

/** The receiver's side, written here independently of the service's code: spec 6's scheme. */
function verify(received: Received, secret: string, toleranceSeconds = 300): boolean {
  const header = String(received.headers["x-service-signature"] ?? "");
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const [, t, v1] = match;
  if (Math.abs(Date.now() / 1000 - Number(t)) > toleranceSeconds) return false;
  const expected = createHmac("sha256", secret).update(`${t}.`).update(received.body).digest();
  return timingSafeEqual(expected, Buffer.from(v1!, "hex"));
}

async function setupShop(url: string, events: string[] = ["item.added", "item.removed"]) {
  const { shop, secret: apiKey } = await createShopWithKey();
  const api = apiClient(app, validator, { Authorization: `Bearer ${apiKey}` });
  const created = await api.POST("/webhooks", { body: { url, events: events as never } });
  expect(created.response.status).toBe(201);
  return { shop, api, endpoint: created.data!, secret: created.data!.secret };
}

const anonymous = () => ({ kind: "anonymous" as const, anonymousId: randomUUID() });
const item = (productId: string) => ({ productId, handle: `p-${productId}`, title: `Product ${productId}` });

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() - started > timeoutMs) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

useWorker();

describe("webhook deliveries through the real worker", () => {
  it("delivers a storefront change signed over the exact bytes, with the documented headers and envelope", async () => {
    const receiver = await startReceiver();
    try {
      const { shop, endpoint, secret } = await setupShop(receiver.url);
      const owner = anonymous();
      await toggleItem({ shopId: shop.id, owner, item: item("42") });
      const [request] = await receiver.waitFor(1);
      expect(verify(request!, secret)).toBe(true);
      expect(verify(request!, "whsec_wrong")).toBe(false);
      expect(request!.headers["content-type"]).toBe("application/json");
      expect(request!.headers["x-service-event"]).toBe("item.added");
      expect(request!.headers["user-agent"]).toMatch(/^WishlistService-Webhooks\//);
      const body = JSON.parse(request!.body.toString("utf8"));
      expect(Object.keys(body)).toEqual(["id", "type", "shopDomain", "createdAt", "data"]);
      expect(body).toMatchObject({ type: "item.added", shopDomain: shop.domain });
      expect(body.data).toMatchObject({
        customerId: null,
        anonymousId: owner.anonymousId,
        count: 1,
        item: { productId: "42", variantId: null, handle: "p-42", titleSnapshot: "Product 42" },
      });
      const event = await prisma.event.findUniqueOrThrow({ where: { id: body.id } });
      expect(event.type).toBe("item.added");
      // The delivery log names the same delivery id the receiver saw.
      const log = await until(
        () => prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id } }),
        (rows) => rows.length === 1,
      );
      expect(log[0]).toMatchObject({
        id: request!.headers["x-service-delivery"],
        eventId: body.id,
        attempt: 1,
        status: "succeeded",
        statusCode: 200,
        responseSnippet: "ok",
        nextRetryAt: null,
      });
    } finally {
      await receiver.close();
    }
  });

  it("sends only subscribed types, and a ping only to the endpoint tested", async () => {
    const receiver = await startReceiver();
    try {
      const { shop, api, endpoint, secret } = await setupShop(`${receiver.url}?a`, ["item.removed"]);
      const other = await api.POST("/webhooks", { body: { url: `${receiver.url}?b`, events: ["item.added"] } });
      const owner = anonymous();
      await toggleItem({ shopId: shop.id, owner, item: item("1") }); // added: to b only
      await toggleItem({ shopId: shop.id, owner, item: item("1") }); // removed: to a only
      const ping = await api.POST("/webhooks/{id}/test", { params: { path: { id: endpoint.id } } });
      expect(ping.response.status).toBe(202);
      const received = await receiver.waitFor(3);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toHaveLength(3);
      const types = received.map((request) => `${request.headers["x-service-event"]}`).sort();
      expect(types).toEqual(["item.added", "item.removed", "ping"]);
      const pingRequest = received.find((request) => request.headers["x-service-event"] === "ping")!;
      expect(verify(pingRequest, secret)).toBe(true);
      expect(JSON.parse(pingRequest.body.toString()).data).toEqual({
        endpointId: endpoint.id,
        message: "Test event from the wishlist service.",
      });
      expect(other.data!.id).not.toBe(endpoint.id);
    } finally {
      await receiver.close();
    }
  });

  it("retries a 500 five times on the published schedule, then stops; the log shows each attempt", async () => {
    const receiver = await startReceiver((_request, _index, res) => void res.writeHead(500).end("x".repeat(5_000)));
    try {
      const { shop, api, endpoint } = await setupShop(receiver.url);
      await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("7") });
      const requests = await receiver.waitFor(6, 20_000);
      // Retry n waits 360^((n-1)/4) units (+/-10%): 1, 4.36, 18.97, 82.64, 360 units of 20 ms.
      const gaps = requests.slice(1).map((request, index) => request.at - requests[index]!.at);
      const units = [1, 4.36, 18.97, 82.64, 360];
      gaps.forEach((gap, index) => expect(gap).toBeGreaterThanOrEqual(units[index]! * 20 * 0.9 - 5));
      expect(gaps[4]!).toBeLessThan(360 * 20 * 1.1 + 1_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.received).toHaveLength(6);
      const page = await until(
        () => api.GET("/webhooks/{id}/deliveries", { params: { path: { id: endpoint.id } } }),
        (result) => result.data!.data.length === 6,
      );
      const attempts = page.data!.data;
      expect(attempts.map((attempt) => attempt.attempt)).toEqual([6, 5, 4, 3, 2, 1]);
      expect(attempts.every((attempt) => attempt.status === "failed" && attempt.statusCode === 500)).toBe(true);
      expect(attempts.every((attempt) => attempt.responseSnippet!.length === 1_024)).toBe(true);
      expect(attempts[0]!.nextRetryAt).toBeNull();
      expect(attempts.slice(1).every((attempt) => attempt.nextRetryAt !== null)).toBe(true);
      const after = await api.GET("/webhooks");
      expect(after.data!.find((entry) => entry.id === endpoint.id)).toMatchObject({ failCount: 6, disabledAt: null });
    } finally {
      await receiver.close();
    }
  });

  it("disables the endpoint at exactly 20 consecutive failures and sends nothing after", async () => {
    const receiver = await startReceiver((_request, _index, res) => void res.writeHead(503).end());
    try {
      const { shop, api, endpoint } = await setupShop(receiver.url);
      await prisma.webhookEndpoint.update({ where: { id: endpoint.id }, data: { failCount: 18 } });
      await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("8") });
      await receiver.waitFor(2);
      const disabled = await until(
        () => prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } }),
        (row) => row.disabledAt !== null,
      );
      expect(disabled.failCount).toBe(20);
      await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("9") });
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // the 3rd retry of the first event is due by now
      expect(receiver.received).toHaveLength(2);
      const test = await api.POST("/webhooks/{id}/test", { params: { path: { id: endpoint.id } } });
      expect(test.response.status).toBe(409);
      const enabled = await api.POST("/webhooks/{id}/enable", { params: { path: { id: endpoint.id } } });
      expect(enabled.data).toMatchObject({ failCount: 0, disabledAt: null });
    } finally {
      await receiver.close();
    }
  });

  it("resets the consecutive-failure count on any 2xx", async () => {
    const receiver = await startReceiver((_request, _index, res) => void res.writeHead(204).end());
    try {
      const { shop, endpoint } = await setupShop(receiver.url);
      await prisma.webhookEndpoint.update({ where: { id: endpoint.id }, data: { failCount: 5 } });
      await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("3") });
      await receiver.waitFor(1);
      const row = await until(
        () => prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } }),
        (value) => value.failCount === 0,
      );
      expect(row.failCount).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it("counts a timeout, a refused connection and a redirect as failures", async () => {
    const slow = await startReceiver((_request, index, res) => {
      if (index === 0) {
        setTimeout(() => res.writeHead(200).end(), 1_500);
        return "hold";
      }
    });
    const redirecting = await startReceiver(
      (_request, _index, res) => void res.writeHead(302, { location: "/x" }).end(),
    );
    const closed = await startReceiver();
    const closedUrl = closed.url;
    await closed.close();
    try {
      const targets = [
        { url: slow.url, error: "timeout" },
        { url: closedUrl, error: "ECONNREFUSED" },
        { url: redirecting.url, error: "HTTP 302" },
      ];
      for (const target of targets) {
        const { shop, endpoint } = await setupShop(target.url);
        await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("5") });
        const [first] = await until(
          () => prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id }, orderBy: { attempt: "asc" } }),
          (rows) => rows.length >= 1,
        );
        expect(first).toMatchObject({ status: "failed", attempt: 1 });
        expect(first!.error).toContain(target.error);
        expect(first!.nextRetryAt).not.toBeNull();
      }
      expect(redirecting.received.every((request) => request.headers["x-service-event"] === "item.added")).toBe(true);
    } finally {
      await Promise.all([slow.close(), redirecting.close()]);
    }
  });

  it("sends nothing to a deleted endpoint, nor to a disabled one", async () => {
    const receiver = await startReceiver((_request, _index, res) => void res.writeHead(500).end());
    try {
      const deleted = await setupShop(`${receiver.url}?deleted`);
      await toggleItem({ shopId: deleted.shop.id, owner: anonymous(), item: item("1") });
      await receiver.waitFor(1); // first attempt fails; its retry is due 20 ms later
      const removal = await deleted.api.DELETE("/webhooks/{id}", { params: { path: { id: deleted.endpoint.id } } });
      expect(removal.response.status).toBe(204);
      const countAfterDelete = receiver.received.length;

      const disabled = await setupShop(`${receiver.url}?disabled`);
      await prisma.webhookEndpoint.update({ where: { id: disabled.endpoint.id }, data: { disabledAt: new Date() } });
      await toggleItem({ shopId: disabled.shop.id, owner: anonymous(), item: item("1") });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(receiver.received.filter((request) => request.body.includes(disabled.shop.domain))).toHaveLength(0);
      // At most the attempt already in flight when the endpoint was deleted.
      expect(receiver.received.length - countAfterDelete).toBeLessThanOrEqual(1);
    } finally {
      await receiver.close();
    }
  });

  it("redelivers one delivery on request: same body, new delivery id and signature", async () => {
    const receiver = await startReceiver();
    try {
      const { shop, api, endpoint, secret } = await setupShop(receiver.url);
      await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("11") });
      await receiver.waitFor(1);
      const log = await until(
        () => api.GET("/webhooks/{id}/deliveries", { params: { path: { id: endpoint.id } } }),
        (page) => page.data!.data.length === 1,
      );
      const deliveryId = log.data!.data[0]!.id;
      const again = await api.POST("/webhooks/{id}/deliveries/{deliveryId}/redeliver", {
        params: { path: { id: endpoint.id, deliveryId } },
      });
      expect(again.response.status).toBe(202);
      const [first, second] = await receiver.waitFor(2);
      expect(second!.body.equals(first!.body)).toBe(true);
      expect(second!.headers["x-service-delivery"]).not.toBe(first!.headers["x-service-delivery"]);
      expect(verify(second!, secret)).toBe(true);
      const missing = await api.POST("/webhooks/{id}/deliveries/{deliveryId}/redeliver", {
        params: { path: { id: endpoint.id, deliveryId: "dlv_01jd2x6c5ef0q8w3d0s8b2n7k4" } },
      });
      expect(missing.response.status).toBe(404);
    } finally {
      await receiver.close();
    }
  });
});
