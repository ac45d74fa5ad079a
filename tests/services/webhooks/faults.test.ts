import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { resetEnvCache } from "~/env.server";
import { JOBS, MAINTENANCE_QUEUE } from "~/jobs/definitions";
import { queuePrefix } from "~/jobs/queues.server";
import { fanOutEvents } from "~/services/webhooks/fanout.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { createShop, createWebhookEndpoint, storedEvent } from "../../factories";
import { freePort, startProcess } from "../../support/processes";
import { startRedis } from "../../support/services";
import { startReceiver } from "./receiver";
import { findAttempts, owedDeliveries, pendingEvents } from "../../support/webhook-rows";
import { until } from "../../support/poll";

Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
  WEBHOOK_RETRY_UNIT_MS: "20",
  OUTBOX_RELAY_INTERVAL_MS: "20",
});
resetEnvCache();

const anonymous = () => ({ kind: "anonymous" as const, anonymousId: randomUUID() });
const item = { productId: "1", handle: "one" };

describe("delivery guarantees under faults", () => {
  it("relaying the same events twice queues each delivery once", async () => {
    const shop = await createShop();
    const { endpoint } = await createWebhookEndpoint(shop.id);
    const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
    const queue = new Queue(JOBS.webhookDelivery.queue, { connection: redis, prefix: queuePrefix() });
    try {
      const event = storedEvent(shop.id);
      expect(await fanOutEvents(queue, [event])).toHaveLength(1);
      expect(await fanOutEvents(queue, [event])).toHaveLength(1);
      const counts = await queue.getJobCounts("wait", "prioritized", "delayed", "active", "completed", "failed");
      expect(Object.values(counts).reduce((sum, count) => sum + count, 0)).toBe(1);
      // Queued by priority (docs/decisions/026-fairness-between-shops.md): the shop's first owed delivery.
      const job = (await queue.getJobs(["prioritized"]))[0]!;
      expect(job.opts.priority).toBe(1);
      expect(job.id).toBe(`batch-${event.id}-${endpoint.id}-1`);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    }
  });

  it("an event written while Redis is down is delivered once Redis is back", async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    const receiver = await startReceiver();
    const worker = startProcess("worker/index.ts", { REDIS_URL: `redis://127.0.0.1:${port}` });
    try {
      await worker.waitForOutput(/worker ready/);
      const shop = await createShop();
      await createWebhookEndpoint(shop.id, receiver.url);
      const dead = new Promise((resolve) => redis.once("exit", resolve));
      redis.kill("SIGKILL");
      await dead; // no relay pass can reach it from here on
      await toggleItem({ shopId: shop.id, owner: anonymous(), item }); // the change and its event need no Redis
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(receiver.received).toHaveLength(0);
      expect(await pendingEvents(shop.id)).toBe(1);
      redis = await startRedis(port);
      const [request] = await receiver.waitFor(1, 90_000);
      expect(request!.headers["x-service-event"]).toBe("item.added");
      // The relay marks the event dispatched after handing it to the queue, so the worker may deliver it
      // first: wait for the mark rather than read it at once.
      await until(
        () => pendingEvents(shop.id),
        (count) => count === 0,
        "the event marked relayed",
      );
    } finally {
      await worker.stop(15_000).catch(() => worker.child.kill("SIGKILL"));
      redis.kill("SIGKILL");
      await receiver.close();
    }
  });

  it("a worker killed in the middle of a delivery leaves it to be retried by another, not lost", async () => {
    const receiver = await startReceiver((_request, index) => (index === 0 ? "hold" : undefined));
    // The first attempt is made under its batch's lease (docs/decisions/045-webhook-batching.md): the dead
    // worker's batch, taken over by the second worker once its lock lapses, sends nothing the lease holds, and
    // the reconciliation pass queues the delivery again a grace period after the last renewal. A short lock
    // and grace period (renewed every half of each, in time on a loaded machine: a late renewal would run
    // the delivery twice) keep that within seconds.
    const env = { WORKER_LOCK_DURATION_MS: "5000", WEBHOOK_TIMEOUT_MS: "10000", WEBHOOK_REQUEUE_AFTER_MS: "8000" };
    const first = startProcess("worker/index.ts", env);
    let second: ReturnType<typeof startProcess> | undefined;
    try {
      await first.waitForOutput(/worker ready/);
      const shop = await createShop();
      await createWebhookEndpoint(shop.id, receiver.url);
      await toggleItem({ shopId: shop.id, owner: anonymous(), item });
      await receiver.waitFor(1);
      first.child.kill("SIGKILL"); // mid-delivery: the receiver has the request and has not answered
      second = startProcess("worker/index.ts", env);
      await second.waitForOutput(/worker ready/);
      const [held, retried] = await receiver.waitFor(2, 90_000);
      expect(retried!.body.equals(held!.body)).toBe(true); // the same event: receivers dedupe by its id
      // The killed attempt left no log entry (it never finished); the retry is logged once it has its answer.
      const logged = await until(
        () => database().selectFrom("WebhookDelivery").selectAll().where("shopId", "=", shop.id).execute(),
        (rows) => rows.length > 0,
        "the retried attempt logged",
      );
      expect(logged.map((delivery) => delivery.status)).toEqual(["succeeded"]);
    } finally {
      if (first.child.exitCode === null) first.child.kill("SIGKILL");
      await second?.stop();
      await receiver.close();
    }
  });

  it(
    "a Redis that comes back empty loses no delivery: the owed ones are queued again from the database",
    {
      timeout: 240_000,
    },
    async () => {
      // Redis without persistence, as CI and the dev orchestrator start it: a restart empties it. The worker
      // takes the first deliveries and the receiver holds them; the rest wait in the queue, their events
      // already marked relayed. Then Redis is killed and started again, empty.
      const port = await freePort();
      let redis = await startRedis(port);
      let holding = true;
      const held: Array<() => void> = [];
      const receiver = await startReceiver((_request, _index, res) => {
        if (!holding) return;
        held.push(() => void res.writeHead(204).end());
        return "hold";
      });
      const worker = startProcess("worker/index.ts", {
        REDIS_URL: `redis://127.0.0.1:${port}`,
        WEBHOOK_TIMEOUT_MS: "60000",
        WEBHOOK_REQUEUE_AFTER_MS: "1000",
      });
      const events = 600;
      try {
        await worker.waitForOutput(/worker ready/);
        const shop = await createShop();
        const { endpoint } = await createWebhookEndpoint(shop.id, receiver.url);
        // Ten saves at a time, the pool's size: more would wait for a connection, and on a busy machine
        // past the pool's 5 s bound.
        for (let start = 0; start < events; start += 10) {
          const owner = anonymous(); // a list holds 500 at most: 10 saves per shopper
          await Promise.all(
            Array.from({ length: 10 }, (_, n) =>
              toggleItem({ shopId: shop.id, owner, item: { productId: `p${start + n}`, handle: `p${start + n}` } }),
            ),
          );
        }
        await until(
          () => pendingEvents(shop.id),
          (count) => count === 0,
          "every event marked relayed",
        );
        await receiver.waitFor(1, 90_000);
        expect(receiver.received.length).toBeLessThan(events); // the rest are jobs in Redis only
        expect(await owedDeliveries(shop.id)).toBe(events);

        const dead = new Promise((resolve) => redis.once("exit", resolve));
        redis.kill("SIGKILL");
        await dead;
        redis = await startRedis(port);
        holding = false;
        const inFlight = held.length;
        for (const release of held.splice(0)) release();

        // Every event arrives: the held ones finish, the lost ones are queued again. A delivery in flight when
        // Redis lost its job may be queued again before it finishes, and so sent twice (at least once,
        // docs/webhooks.md); no other delivery is.
        const delivered = () =>
          new Set(receiver.received.map((request) => (JSON.parse(request.body.toString("utf8")) as { id: string }).id))
            .size;
        await until(delivered, (count) => count === events, "every event delivered", 150_000);
        await until(
          () => owedDeliveries(shop.id),
          (count) => count === 0,
          "nothing owed any more",
        );
        expect(receiver.received.length).toBeLessThanOrEqual(events + inFlight);
        const log = await findAttempts(database(), shop.id, endpoint.id);
        const succeeded = log.filter((attempt) => attempt.status === "succeeded");
        expect(new Set(succeeded.map((attempt) => attempt.eventId)).size).toBe(events);
        expect(succeeded).toHaveLength(log.length);
        // The emptied Redis got its job schedules back when the worker reconnected.
        const probe = new Redis({ port, maxRetriesPerRequest: null });
        const maintenance = new Queue(MAINTENANCE_QUEUE, { connection: probe, prefix: queuePrefix() });
        try {
          await until(
            () => maintenance.getJobSchedulersCount(),
            (count) => count >= 7,
            "the maintenance schedules restored",
          );
        } finally {
          await maintenance.close();
          probe.disconnect();
        }
      } finally {
        holding = false;
        for (const release of held.splice(0)) release();
        await worker.stop(15_000).catch(() => worker.child.kill("SIGKILL"));
        redis.kill("SIGKILL");
        await receiver.close();
      }
    },
  );
});
