import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { findEndpoint } from "~/data/webhook-endpoint-rows.server";
import { resetEnvCache } from "~/env.server";
import { JOBS } from "~/jobs/definitions";
import { queuePrefix } from "~/jobs/queues.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { createShopWithKey } from "../../factories";
import { startReceiver, type Received } from "./receiver";
import { useWorker } from "../../support/worker";
import { findAttempts, pendingEvents, setEndpointHealth } from "../../support/webhook-rows";
import { until } from "../../support/poll";
import { apiHarness } from "../../support/harness";

// Deliveries to a receiver on this machine: plain http and loopback allowed, as in the local demo; the
// retry unit is 20 ms instead of a minute, so the whole schedule (467 units) runs in under 10 s. The
// delivery timeout stays the production one (10 s): a receiver that answers at once must never time out,
// however loaded the machine. The timeout case has a worker of its own below.
Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  WEBHOOK_RETRY_UNIT_MS: "20",
  OUTBOX_RELAY_INTERVAL_MS: "20",
});
delete process.env.WEBHOOK_TIMEOUT_MS;
resetEnvCache();

const { clientFor } = await apiHarness();
const queueRedis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
const queue = new Queue(JOBS.webhookDelivery.queue, { connection: queueRedis, prefix: queuePrefix() });
afterAll(async () => {
  await queue.close();
  queueRedis.disconnect();
});

/** The receiver's side, written here independently of the service's code: the scheme of docs/webhooks.md. */
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
  const api = clientFor(apiKey);
  const created = await api.POST("/webhooks", { body: { url, events: events as never } });
  expect(created.response.status).toBe(201);
  return { shop, api, endpoint: created.data!, secret: created.data!.secret };
}

const anonymous = () => ({ kind: "anonymous" as const, anonymousId: randomUUID() });
const item = (productId: string) => ({ productId, handle: `p-${productId}`, title: `Product ${productId}` });

/**
 * Waits until nothing more can be sent for the shop: every event is relayed (its delivery jobs are queued
 * before it is marked dispatched) and none of the shop's delivery jobs is waiting, running or due for a
 * retry. What the receivers got by then is all they will ever get, with no fixed sleep.
 */
async function settled(shopId: string, timeoutMs = 90_000): Promise<void> {
  const pending = async () => {
    const undispatched = await pendingEvents(shopId);
    const jobs = await queue.getJobs(["wait", "active", "delayed", "prioritized", "waiting-children"]);
    return undispatched + jobs.filter((job) => job?.data?.shopId === shopId).length;
  };
  await until(pending, (count) => count === 0, "no event or delivery of the shop pending", timeoutMs);
}

/** What one receiver got, as `type event-id`, sorted: which endpoint received which events. */
const sentTo = (received: Received[]) =>
  received
    .map((request) => {
      const body = JSON.parse(request.body.toString("utf8")) as { id: string; type: string };
      expect(request.headers["x-service-event"]).toBe(body.type);
      return `${body.type} ${body.id}`;
    })
    .sort();

describe("webhook deliveries through the real worker", () => {
  useWorker();

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
      const event = await database()
        .selectFrom("Event")
        .selectAll()
        .where("id", "=", body.id)
        .executeTakeFirstOrThrow();
      expect(event.type).toBe("item.added");
      // The delivery log names the same delivery id the receiver saw.
      const log = await until(
        () => findAttempts(database(), shop.id, endpoint.id),
        (rows) => rows.length === 1,
        "the attempt logged",
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

  it("sends only subscribed types, and a ping only to the endpoint tested (by endpoint and event id)", async () => {
    const removals = await startReceiver();
    const additions = await startReceiver();
    try {
      const { shop, api, endpoint, secret } = await setupShop(removals.url, ["item.removed"]);
      const other = await api.POST("/webhooks", { body: { url: additions.url, events: ["item.added"] } });
      expect(other.response.status).toBe(201);
      const owner = anonymous();
      await toggleItem({ shopId: shop.id, owner, item: item("1") }); // added: to `additions` only
      await toggleItem({ shopId: shop.id, owner, item: item("1") }); // removed: to `removals` only
      const ping = await api.POST("/webhooks/{id}/test", { params: { path: { id: endpoint.id } } });
      expect(ping.response.status).toBe(202);
      await settled(shop.id);

      const events = await database().selectFrom("Event").selectAll().where("shopId", "=", shop.id).execute();
      expect(events.map((event) => event.type).sort()).toEqual(["item.added", "item.removed", "ping"]);
      const idOf = (type: string) => events.find((event) => event.type === type)!.id;
      expect(sentTo(removals.received)).toEqual([`item.removed ${idOf("item.removed")}`, `ping ${idOf("ping")}`]);
      expect(sentTo(additions.received)).toEqual([`item.added ${idOf("item.added")}`]);
      // The delivery log agrees: each attempt is logged against the endpoint that got it.
      const log = await database().selectFrom("WebhookDelivery").selectAll().where("shopId", "=", shop.id).execute();
      const logged = (endpointId: string) =>
        log
          .filter((row) => row.endpointId === endpointId)
          .map((row) => row.eventId)
          .sort();
      expect(logged(endpoint.id)).toEqual([idOf("item.removed"), idOf("ping")].sort());
      expect(logged(other.data!.id)).toEqual([idOf("item.added")]);
      expect(log).toHaveLength(3);

      const pingRequest = removals.received.find((request) => request.headers["x-service-event"] === "ping")!;
      expect(verify(pingRequest, secret)).toBe(true);
      expect(verify(pingRequest, other.data!.secret)).toBe(false);
      expect(JSON.parse(pingRequest.body.toString()).data).toEqual({
        endpointId: endpoint.id,
        message: "Test event from the wishlist service.",
      });
    } finally {
      await Promise.all([removals.close(), additions.close()]);
    }
  });

  it(
    "retries a 500 five times on the published schedule, then stops; the log shows each attempt",
    {
      timeout: 120_000,
    },
    async () => {
      const receiver = await startReceiver((_request, _index, res) => void res.writeHead(500).end("x".repeat(5_000)));
      try {
        const { shop, api, endpoint } = await setupShop(receiver.url);
        await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("7") });
        await settled(shop.id, 90_000); // the last attempt failed: the job is given up, nothing more is due
        const requests = receiver.received;
        expect(requests).toHaveLength(6);
        // Retry n waits 360^((n-1)/4) units (+/-10%): 1, 4.36, 18.97, 82.64, 360 units of 20 ms. A busy
        // machine only adds to a gap, so the lower bounds are exact and the upper one is generous.
        const gaps = requests.slice(1).map((request, index) => request.at - requests[index]!.at);
        const units = [1, 4.36, 18.97, 82.64, 360];
        gaps.forEach((gap, index) => expect(gap).toBeGreaterThanOrEqual(units[index]! * 20 * 0.9 - 5));
        expect(gaps[4]!).toBeLessThan(360 * 20 * 1.1 + 30_000);
        const page = await until(
          () => api.GET("/webhooks/{id}/deliveries", { params: { path: { id: endpoint.id } } }),
          (result) => result.data!.data.length === 6,
          "six attempts logged",
        );
        const attempts = page.data!.data;
        expect(attempts.map((attempt) => attempt.attempt)).toEqual([6, 5, 4, 3, 2, 1]);
        expect(attempts.every((attempt) => attempt.status === "failed" && attempt.statusCode === 500)).toBe(true);
        expect(attempts.every((attempt) => attempt.responseSnippet!.length === 1_024)).toBe(true);
        expect(attempts[0]!.nextRetryAt).toBeNull();
        expect(attempts.slice(1).every((attempt) => attempt.nextRetryAt !== null)).toBe(true);
        const after = await api.GET("/webhooks");
        expect(after.data!.find((entry) => entry.id === endpoint.id)).toMatchObject({ failCount: 1, disabledAt: null });
      } finally {
        await receiver.close();
      }
    },
  );

  it("counts a delivery as failed on its last attempt only: the 20th failed delivery disables the endpoint", async () => {
    const receiver = await startReceiver((_request, _index, res) => void res.writeHead(503).end());
    try {
      const { shop, api, endpoint } = await setupShop(receiver.url);
      await setEndpointHealth(database(), shop.id, endpoint.id, { failCount: 19 }, new Date());
      await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("8") });
      // The log row and the count are written in one transaction: once the first attempt is logged, the
      // count is what that attempt made it. A retry is due, so it is not a failed delivery yet.
      await until(
        () => findAttempts(database(), shop.id, endpoint.id),
        (rows) => rows.length >= 1,
        "the first attempt logged",
      );
      expect(await findEndpoint(database(), shop.id, endpoint.id)).toMatchObject({ failCount: 19, disabledAt: null });
      // Waits for the delivery to end (its last attempt logged), whatever it did to the endpoint, then
      // checks the count: a wrong one fails here at once rather than after a poll's whole bound.
      await settled(shop.id);
      const disabled = (await findEndpoint(database(), shop.id, endpoint.id))!;
      expect(disabled).toMatchObject({ failCount: 20, disabledAt: expect.any(Date) });
      const attempts = await findAttempts(database(), shop.id, endpoint.id);
      expect(attempts).toHaveLength(6);
      expect(attempts.filter((attempt) => attempt.nextRetryAt === null)).toHaveLength(1);
      await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("9") });
      // The second event finds the endpoint disabled.
      await settled(shop.id);
      expect(receiver.received).toHaveLength(6);
      const test = await api.POST("/webhooks/{id}/test", { params: { path: { id: endpoint.id } } });
      expect(test.response.status).toBe(409);
      const enabled = await api.POST("/webhooks/{id}/enable", { params: { path: { id: endpoint.id } } });
      expect(enabled.data).toMatchObject({ failCount: 0, disabledAt: null });
    } finally {
      await receiver.close();
    }
  });

  it(
    "a dead endpoint ends disabled after 20 failed deliveries from a count of 0, and gets nothing after",
    {
      timeout: 180_000,
    },
    async () => {
      const receiver = await startReceiver((_request, _index, res) => void res.writeHead(500).end());
      try {
        const { shop, endpoint } = await setupShop(receiver.url);
        const owner = anonymous();
        for (let n = 1; n <= 20; n++) await toggleItem({ shopId: shop.id, owner, item: item(`dead-${n}`) });
        // Every delivery ended (each ran its whole schedule), then the count: a wrong one fails at once.
        await settled(shop.id, 120_000);
        expect(await findEndpoint(database(), shop.id, endpoint.id)).toMatchObject({
          failCount: 20,
          disabledAt: expect.any(Date),
        });
        // Every one of the 20 deliveries ran its whole schedule: 6 attempts each.
        expect(receiver.received).toHaveLength(120);
        await toggleItem({ shopId: shop.id, owner, item: item("dead-21") });
        await settled(shop.id);
        expect(receiver.received).toHaveLength(120);
      } finally {
        await receiver.close();
      }
    },
  );

  it(
    "a receiver that refuses the first 100 attempts of a burst of 50 events gets all 50 and stays enabled",
    {
      timeout: 180_000,
    },
    async () => {
      // Down for a while, as a receiver restarting during a burst is: its first 100 requests are refused
      // (every event's first attempt and many retries), then it answers 204. Counting attempts, the 20th
      // refusal switched it off and the retries were never sent.
      const receiver = await startReceiver((_request, index, res) => void res.writeHead(index < 100 ? 503 : 204).end());
      try {
        const { shop, api, endpoint } = await setupShop(receiver.url);
        const owner = anonymous();
        for (let n = 1; n <= 50; n++) await toggleItem({ shopId: shop.id, owner, item: item(`burst-${n}`) });
        await settled(shop.id, 120_000);
        expect(receiver.received).toHaveLength(150);
        const delivered = new Set(
          receiver.received
            .slice(100)
            .map((request) => (JSON.parse(request.body.toString("utf8")) as { id: string }).id),
        );
        expect(delivered.size).toBe(50);
        const after = await api.GET("/webhooks");
        expect(after.data!.find((entry) => entry.id === endpoint.id)).toMatchObject({ failCount: 0, disabledAt: null });
      } finally {
        await receiver.close();
      }
    },
  );

  it("resets the consecutive-failure count on any 2xx", async () => {
    const receiver = await startReceiver((_request, _index, res) => void res.writeHead(204).end());
    try {
      const { shop, endpoint } = await setupShop(receiver.url);
      await setEndpointHealth(database(), shop.id, endpoint.id, { failCount: 5 }, new Date());
      await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("3") });
      // The delivery ended (its attempt logged with the count it made), then the count: no poll for a value.
      await settled(shop.id);
      expect(receiver.received).toHaveLength(1);
      expect(await findEndpoint(database(), shop.id, endpoint.id)).toMatchObject({ failCount: 0, disabledAt: null });
    } finally {
      await receiver.close();
    }
  });

  it("logs a 2xx whose body holds a NUL as delivered, once, with the NUL replaced in the snippet", async () => {
    // PostgreSQL cannot store a NUL in text: the log write used to fail, so the attempt was neither logged
    // nor counted and the delivery was sent again and again.
    const receiver = await startReceiver((_request, _index, res) => void res.writeHead(200).end("ok\u0000!"));
    try {
      const { shop, endpoint } = await setupShop(receiver.url);
      await setEndpointHealth(database(), shop.id, endpoint.id, { failCount: 3 }, new Date());
      await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("5") });
      await receiver.waitFor(1);
      await settled(shop.id);
      expect(receiver.received).toHaveLength(1);
      const log = await findAttempts(database(), shop.id, endpoint.id);
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ attempt: 1, status: "succeeded", statusCode: 200, responseSnippet: "ok\uFFFD!" });
      expect((await findEndpoint(database(), shop.id, endpoint.id))!.failCount).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it("counts a refused connection and a redirect as failures", async () => {
    const redirecting = await startReceiver(
      (_request, _index, res) => void res.writeHead(302, { location: "/x" }).end(),
    );
    const closed = await startReceiver();
    const closedUrl = closed.url;
    await closed.close();
    try {
      const targets = [
        { url: closedUrl, error: "ECONNREFUSED" },
        { url: redirecting.url, error: "HTTP 302" },
      ];
      for (const target of targets) {
        const { shop, endpoint } = await setupShop(target.url);
        await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("5") });
        const [first] = await until(
          () => findAttempts(database(), shop.id, endpoint.id),
          (rows) => rows.length >= 1,
          "the first attempt logged",
        );
        expect(first).toMatchObject({ status: "failed", attempt: 1 });
        expect(first!.error).toContain(target.error);
        expect(first!.nextRetryAt).not.toBeNull();
      }
      expect(redirecting.received.every((request) => request.headers["x-service-event"] === "item.added")).toBe(true);
    } finally {
      await redirecting.close();
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
      await setEndpointHealth(
        database(),
        disabled.shop.id,
        disabled.endpoint.id,
        { disabledAt: new Date() },
        new Date(),
      );
      await toggleItem({ shopId: disabled.shop.id, owner: anonymous(), item: item("1") });
      await Promise.all([settled(deleted.shop.id), settled(disabled.shop.id)]);
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
        "the delivery logged",
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
      // Once finished, the redelivery leaves no job, and so no copy of the event's body, in Redis: the delivery
      // log keeps its record, and a customers/redact need not look for it there (issue 25 review).
      const redeliveryJobs = async () =>
        (await queue.getJobs(["completed", "failed", "waiting", "active", "delayed", "prioritized"])).filter((job) =>
          job.id?.startsWith(`redeliver-${deliveryId}-`),
        ).length;
      await expect.poll(redeliveryJobs).toBe(0);
      const missing = await api.POST("/webhooks/{id}/deliveries/{deliveryId}/redeliver", {
        params: { path: { id: endpoint.id, deliveryId: "dlv_01jd2x6c5ef0q8w3d0s8b2n7k4" } },
      });
      expect(missing.response.status).toBe(404);
    } finally {
      await receiver.close();
    }
  });
});

describe("a receiver that does not answer in time", () => {
  // A worker of its own with a 1 s timeout (production: 10 s, asserted in tests/services/webhooks/schedule.test.ts);
  // the receiver never answers, so no load can make this delivery succeed.
  useWorker({ WEBHOOK_TIMEOUT_MS: "1000" });

  it("counts the timeout as a failure, after the configured timeout and not before", async () => {
    const silent = await startReceiver(() => "hold");
    try {
      const { shop, endpoint } = await setupShop(silent.url);
      await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("5") });
      const [first] = await until(
        () => findAttempts(database(), shop.id, endpoint.id),
        (rows) => rows.length >= 1,
        "the timed-out attempt logged",
      );
      expect(first).toMatchObject({ status: "failed", attempt: 1, statusCode: null });
      expect(first!.error).toContain("timeout");
      expect(first!.durationMs).toBeGreaterThanOrEqual(1_000);
      expect(first!.nextRetryAt).not.toBeNull();
      expect(silent.received[0]!.headers["x-service-event"]).toBe("item.added");
    } finally {
      await silent.close();
    }
  });
});
