/**
 * Batch jobs of first attempts (docs/decisions/045-webhook-batching.md) under attack: what changes while a
 * batch's deliveries wait for the shop's slots, with the real batch service, the worker's real slots, the
 * real database and a real receiver.
 */
import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { Agent } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { database, transaction } from "~/data/database.server";
import { updateEventData } from "~/data/compliance-rows.server";
import { insertEvent, markEventsRelayed } from "~/data/event-rows.server";
import { markUninstalled } from "~/data/shop-rows.server";
import {
  countDueDeliveriesByShop,
  deferDeliveryDue,
  deleteDeliveryDues,
  insertDeliveryDues,
} from "~/data/webhook-delivery-due-rows.server";
import { addFailures } from "~/data/webhook-endpoint-rows.server";
import { resetEnvCache } from "~/env.server";
import { JOBS } from "~/jobs/definitions";
import { queuePrefix } from "~/jobs/queues.server";
import { newId } from "~/lib/ids";
import { REDACTED_EVENT_DATA } from "~/services/events/redacted-events";
import { BATCH_STATE_MAX_AGE_MS, deliverBatch, deliverOnce } from "~/services/webhooks/delivery.server";
import { requeueOverdueDeliveries } from "~/services/webhooks/reconcile.server";
import { deleteEndpoint } from "~/services/webhooks/endpoints.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { AUTO_DISABLE_AFTER } from "~/services/webhooks/schedule";
import { ShopSlots } from "../../../worker/shop-slots";
import { createShop, createWebhookEndpoint } from "../../factories";
import { startProcess } from "../../support/processes";
import { until } from "../../support/poll";
import { findAttempts } from "../../support/webhook-rows";
import { startReceiver } from "./receiver";

Object.assign(process.env, { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128" });
resetEnvCache();

const agent = new Agent();
afterAll(() => agent.close());

/** An event as the relay leaves it: recorded as relayed (its deliveries' owed rows are the test's to insert). */
async function storeEvent(shopId: string, customerId: string) {
  const id = newId("event");
  const data = JSON.stringify({
    listId: newId("list"),
    customerId,
    anonymousId: null,
    item: { productId: "p1" },
    count: 1,
  });
  const at = new Date();
  await insertEvent(database(), { id, shopId, type: "item.added", data, createdAt: at });
  await markEventsRelayed(database(), [id], at);
  return id;
}

type Change = (setup: { shop: { id: string; domain: string }; endpointId: string; eventId: string }) => Promise<void>;

const changes: Array<[string, Change]> = [
  [
    "its event is erased by customers/redact",
    ({ shop, eventId }) => transaction((tx) => updateEventData(tx, shop.id, eventId, REDACTED_EVENT_DATA)),
  ],
  ["its endpoint is deleted", ({ shop, endpointId }) => deleteEndpoint({ shopId: shop.id, endpointId })],
  [
    "its endpoint is disabled (20 failed deliveries of other jobs)",
    ({ endpointId }) =>
      addFailures(
        database(),
        endpointId,
        { failures: AUTO_DISABLE_AFTER, afterSuccess: false, disableAt: AUTO_DISABLE_AFTER },
        new Date(),
      ),
  ],
  [
    "its shop uninstalls the app",
    async ({ shop }) => {
      await markUninstalled(database(), shop.domain, new Date(), null);
    },
  ],
];

describe("a batch's delivery waiting for the shop's slot", () => {
  it.each(changes)("is not sent once %s", async (_name, change) => {
    // GIVEN a batch of two deliveries of one shop, which has one slot: the first hangs at its receiver
    const setup = await hangingBatch(120_000);
    try {
      // WHEN the second delivery's event, endpoint or shop changes while it waits, and then the slot frees
      // (after the window in which a delivery may go on a read older than its slot)
      await change({ shop: setup.shop, ...setup.waiting });
      await new Promise((resolve) => setTimeout(resolve, 2 * BATCH_STATE_MAX_AGE_MS));
      setup.answerFirst();
      const outcome = await setup.batch;

      // THEN it is not sent (docs/webhooks.md: "enabled when the attempt starts"; an erased event is never sent)
      expect(outcome).toMatchObject({ succeeded: 1, skipped: 1 });
      expect(setup.other.received).toHaveLength(0);
      // and it is owed no more: the reconciliation pass does not queue it again
      expect(await countDueDeliveriesByShop(database(), [setup.shop.id])).toEqual(new Map());
    } finally {
      await setup.close();
    }
  });
});

/** How long the slow receiver takes: far longer than a retry 1 s after a failure, even on a busy machine. */
const SLOW_ANSWER_MS = 20_000;

describe("a batch's first attempt that fails", () => {
  it(
    "is retried when its log says, not a retry's delay after the batch's slowest delivery",
    { timeout: 240_000 },
    async () => {
      // GIVEN a shop with a receiver that fails at once and one that takes 20 s to answer: one event is a batch
      // of two deliveries, made side by side (two slots); the retry unit is 1 s, so retry 1 is due 0.9-1.1 s later
      const failing = await startReceiver((_request, _index, res) => void res.writeHead(500).end());
      const slow = await startReceiver((_request, _index, res) => {
        setTimeout(() => res.writeHead(200).end(), SLOW_ANSWER_MS);
        return "hold";
      });
      const shop = await createShop();
      const { endpoint } = await createWebhookEndpoint(shop.id, failing.url);
      await createWebhookEndpoint(shop.id, slow.url);
      await toggleItem({
        shopId: shop.id,
        owner: { kind: "anonymous", anonymousId: randomUUID() },
        item: { productId: "p1", handle: "p1" },
      });
      const worker = startProcess("worker/index.ts", {
        OUTBOX_RELAY_INTERVAL_MS: "20",
        WEBHOOK_RETRY_UNIT_MS: "1000",
        WEBHOOK_TIMEOUT_MS: "30000",
        WEBHOOK_SHOP_CONCURRENCY: "2",
      });
      try {
        await worker.waitForOutput(/worker ready/, 90_000);

        // WHEN the first attempt fails and is retried
        const [first, retry] = await failing.waitFor(2, 90_000);

        // THEN the retry comes while the slow delivery is still at its receiver (its log entry said so too):
        // queued when the first attempt was logged, not when the batch's slowest delivery ended
        const [logged] = await until(
          () => findAttempts(database(), shop.id, endpoint.id),
          (rows) => rows.length >= 1,
          "the first attempt logged",
        );
        const [slowRequest] = await slow.waitFor(1, 90_000);
        const slowAnsweredAt = slowRequest!.at + SLOW_ANSWER_MS;
        expect(logged!.nextRetryAt).not.toBeNull();
        expect(logged!.nextRetryAt!.getTime()).toBeLessThan(slowAnsweredAt);
        expect(retry!.at).toBeGreaterThan(first!.at);
        expect(retry!.at).toBeLessThan(slowAnsweredAt);
      } finally {
        expect(await worker.stop(60_000)).toBe(0);
        await failing.close();
        await slow.close();
      }
    },
  );
});

describe("a batch job forged or replayed in Redis", () => {
  it("delivers nothing that is not the named shop's own event to its own endpoint", async () => {
    // GIVEN two shops, each with an event and an endpoint
    const receiverOfB = await startReceiver();
    try {
      const shopA = await createShop();
      const shopB = await createShop();
      const { endpoint: endpointOfA } = await createWebhookEndpoint(shopA.id, receiverOfB.url);
      const { endpoint: endpointOfB } = await createWebhookEndpoint(shopB.id, receiverOfB.url);
      const eventOfA = await storeEvent(shopA.id, "9101");
      const eventOfB = await storeEvent(shopB.id, "9102");

      // WHEN a batch of shop A names B's event, B's endpoint, or both (ids read from another job's payload)
      const outcome = await deliverBatch(
        {
          shopId: shopA.id,
          deliveries: [
            { eventId: eventOfA, endpointId: endpointOfB.id },
            { eventId: eventOfB, endpointId: endpointOfA.id },
            { eventId: eventOfB, endpointId: endpointOfB.id },
          ],
        },
        {
          dispatcher: agent,
          take: () => new ShopSlots(10).take(shopA.id),
          queuedAt: new Date(),
          requeueAfterMs: 120_000,
        },
      );

      // THEN none is sent
      expect(outcome).toMatchObject({ succeeded: 0, failed: 0, skipped: 3 });
      expect(receiverOfB.received).toHaveLength(0);
    } finally {
      await receiverOfB.close();
    }
  });
});

/**
 * A batch of two deliveries of one shop that has one slot, the first hanging at its receiver until
 * `answerFirst`: the second waits for the slot as long as the test wants.
 */
async function hangingBatch(requeueAfterMs: number) {
  let answerFirst = () => {};
  const slow = await startReceiver((_request, _index, res) => {
    answerFirst = () => {
      answerFirst = () => {};
      res.writeHead(200).end();
    };
    return "hold";
  });
  const other = await startReceiver();
  const shop = await createShop();
  const { endpoint: slowEndpoint } = await createWebhookEndpoint(shop.id, slow.url);
  const { endpoint } = await createWebhookEndpoint(shop.id, other.url);
  const keys = [
    { eventId: await storeEvent(shop.id, "9201"), endpointId: slowEndpoint.id },
    { eventId: await storeEvent(shop.id, "9202"), endpointId: endpoint.id },
  ];
  await insertDeliveryDues(
    database(),
    keys.map((key) => ({ ...key, shopId: shop.id })),
    new Date(),
  );
  const slots = new ShopSlots(1);
  const batch = deliverBatch(
    { shopId: shop.id, deliveries: keys },
    { dispatcher: agent, take: () => slots.take(shop.id), queuedAt: new Date(), requeueAfterMs },
  );
  await slow.waitFor(1);
  return {
    shop,
    keys,
    waiting: keys[1]!,
    batch,
    other,
    answerFirst: () => answerFirst(),
    close: async () => {
      answerFirst();
      await slow.close();
      await other.close();
    },
  };
}

describe("a batch's lease on its deliveries (docs/decisions/045-webhook-batching.md)", () => {
  // The pass queues into a queue of its own here: no worker of another test takes its jobs.
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
  const queue = new Queue(JOBS.webhookDelivery.queue, { connection: redis, prefix: `${queuePrefix()}-lease` });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    redis.disconnect();
  });

  it(
    "keeps the reconciliation pass from queueing again what a live batch holds, however long it waits",
    { timeout: 120_000 },
    async () => {
      // GIVEN a batch whose second delivery waits for the slot, with a grace period of 3 s
      const graceMs = 3_000;
      const setup = await hangingBatch(graceMs);
      try {
        // WHEN the pass runs every 200 ms for two and a half grace periods while it waits
        const end = Date.now() + 2.5 * graceMs;
        while (Date.now() < end) {
          await requeueOverdueDeliveries(queue, { graceMs });
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        setup.answerFirst();
        const outcome = await setup.batch;

        // THEN the pass queued neither delivery, and the batch sent each once and ended it
        for (const { eventId, endpointId } of setup.keys) {
          expect(await queue.getJobState(`${eventId}-${endpointId}`)).toBe("unknown");
        }
        expect(outcome).toMatchObject({ succeeded: 2, failed: 0, skipped: 0 });
        expect(setup.other.received).toHaveLength(1);
        expect(await countDueDeliveriesByShop(database(), [setup.shop.id])).toEqual(new Map());
      } finally {
        await setup.close();
      }
    },
  );

  it(
    "does not send what the pass took over while it waited: the pass's job sends it",
    { timeout: 120_000 },
    async () => {
      // GIVEN a batch whose second delivery waits for the slot, with a grace period of 1 s
      const setup = await hangingBatch(1_000);
      try {
        // WHEN the pass claims its deliveries (its clock a minute on: as if the lease's renewals had stopped)
        // and the slot frees a grace period later
        await requeueOverdueDeliveries(queue, { graceMs: 1_000, now: new Date(Date.now() + 60_000) });
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        setup.answerFirst();
        const outcome = await setup.batch;

        // THEN the batch does not send the waiting one: the job the pass queued for it is there to send it
        expect(outcome).toMatchObject({ succeeded: 1, skipped: 1 });
        expect(setup.other.received).toHaveLength(0);
        const { eventId, endpointId } = setup.waiting;
        expect(["waiting", "prioritized"]).toContain(await queue.getJobState(`${eventId}-${endpointId}`));
        expect(await countDueDeliveriesByShop(database(), [setup.shop.id])).toEqual(new Map([[setup.shop.id, 1]]));
      } finally {
        await setup.close();
      }
    },
  );
});

describe("a delivery the reconciliation pass queued again", () => {
  it("is not sent when another attempt was logged meanwhile, and is when it is still owed as its job counts", async () => {
    // GIVEN an owed delivery and the job the pass queued for it (its job Redis lost may have been running)
    const receiver = await startReceiver();
    try {
      const shop = await createShop();
      const { endpoint } = await createWebhookEndpoint(shop.id, receiver.url);
      const key = { eventId: await storeEvent(shop.id, "9301"), endpointId: endpoint.id };
      const owe = () => insertDeliveryDues(database(), [{ ...key, shopId: shop.id }], new Date());
      await owe();
      const payload = { shopId: shop.id, ...key, eventType: "item.added", body: "{}", requeued: true };
      const run = () => deliverOnce(payload, { attemptsMade: 0, dispatcher: agent });

      // WHEN the lost job's attempt failed and logged its retry meanwhile, THEN the queued job sends nothing
      await deferDeliveryDue(database(), key, { dueAt: new Date(Date.now() + 60_000), attemptsMade: 1 });
      expect(await run()).toEqual({ status: "skipped", reason: "made-elsewhere" });
      // WHEN the lost job delivered it meanwhile (its row ended), THEN neither
      await deleteDeliveryDues(database(), [key]);
      expect(await run()).toEqual({ status: "skipped", reason: "made-elsewhere" });
      expect(receiver.received).toHaveLength(0);

      // WHEN it is owed with the attempts the job counts, THEN it is sent
      await owe();
      expect(await run()).toMatchObject({ status: "succeeded" });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
