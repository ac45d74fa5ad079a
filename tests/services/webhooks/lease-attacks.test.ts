/**
 * Attacks on the batch lease of docs/decisions/045-webhook-batching.md (review of 6a94064), with the real
 * batch service, real slots, the real database, a real Redis and real receivers. Each test states the
 * guarantee it holds the code to; a failing one is a finding of the review.
 */
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { Agent } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { database, transaction } from "~/data/database.server";
import { insertEvent, markEventsRelayed } from "~/data/event-rows.server";
import { deferDeliveryDue, insertDeliveryDues } from "~/data/webhook-delivery-due-rows.server";
import { resetEnvCache } from "~/env.server";
import { JOBS, type DeliverWebhookBatchPayload, type DeliverWebhookPayload } from "~/jobs/definitions";
import { queuePrefix } from "~/jobs/queues.server";
import { newId } from "~/lib/ids";
import { relayOutbox } from "~/services/events/relay.server";
import type { StoredEvent } from "~/services/events/relay.server";
import { deliverBatch, deliverOnce, RelayNotRecorded } from "~/services/webhooks/delivery.server";
import { fanOutEvents, queueDeliveriesOfBatch } from "~/services/webhooks/fanout.server";
import { requeueOverdueDeliveries } from "~/services/webhooks/reconcile.server";
import { ShopSlots } from "../../../worker/shop-slots";
import { createShop, createWebhookEndpoint } from "../../factories";
import { startProcess } from "../../support/processes";
import { until } from "../../support/poll";
import { findAttempts, owedDeliveries } from "../../support/webhook-rows";
import { startReceiver, type Received } from "./receiver";

Object.assign(process.env, { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128" });
resetEnvCache();

const agent = new Agent();
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
// A queue of its own: no worker of another test takes its jobs.
const queue = new Queue(JOBS.webhookDelivery.queue, { connection: redis, prefix: `${queuePrefix()}-lease-attacks` });
afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
  await agent.close();
});

const GRACE_MS = 120_000; // WEBHOOK_REQUEUE_AFTER_MS's default

function eventData(customerId: string) {
  return JSON.stringify({ listId: newId("list"), customerId, anonymousId: null, item: { productId: "p1" }, count: 1 });
}

/** An event still in the outbox (not relayed). */
async function pendingEvent(shopId: string, customerId: string): Promise<string> {
  const id = newId("event");
  await insertEvent(database(), { id, shopId, type: "item.added", data: eventData(customerId), createdAt: new Date() });
  return id;
}

/** An event as the relay leaves it: relayed, its deliveries owed from `at`. */
async function relayedEvent(shopId: string, endpointIds: string[], customerId: string, at = new Date()) {
  const id = await pendingEvent(shopId, customerId);
  await markEventsRelayed(database(), [id], at);
  await insertDeliveryDues(
    database(),
    endpointIds.map((endpointId) => ({ eventId: id, endpointId, shopId })),
    at,
  );
  return id;
}

/** The event ids of the envelopes a receiver got, in order. */
const eventIdsOf = (received: Received[]) => received.map((r) => (JSON.parse(r.body.toString()) as { id: string }).id);

function countBy(ids: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

/** A receiver that answers each request `delayMs` after it came, with `status`. */
function slowReceiver(delayMs: number, status = 200) {
  return startReceiver((_request, _index, res) => {
    setTimeout(() => res.writeHead(status).end(), delayMs);
    return "hold";
  });
}

/**
 * A shop with one slot per process and an endpoint at `receiverUrl`, two relayed events, and `run`: one run of
 * the batch job of their two deliveries in a worker process of its own (its own slots), queued at one time.
 */
async function batchOfTwo(receiverUrl: string, customers: [string, string], queueRetry?: (eventId: string) => void) {
  const shop = await createShop();
  const { endpoint } = await createWebhookEndpoint(shop.id, receiverUrl);
  const first = await relayedEvent(shop.id, [endpoint.id], customers[0]);
  const second = await relayedEvent(shop.id, [endpoint.id], customers[1]);
  const payload: DeliverWebhookBatchPayload = {
    shopId: shop.id,
    deliveries: [
      { eventId: first, endpointId: endpoint.id },
      { eventId: second, endpointId: endpoint.id },
    ],
  };
  const queuedAt = new Date();
  const run = () => {
    const slots = new ShopSlots(1);
    return deliverBatch(payload, {
      dispatcher: agent,
      take: () => slots.take(shop.id),
      queuedAt,
      requeueAfterMs: GRACE_MS,
      ...(queueRetry && { queueRetry: async (delivery) => queueRetry(delivery.eventId) }),
    });
  };
  return { shop, endpoint, second, run };
}

describe("one batch job run twice at once (BullMQ's stalled-job recovery hands it to a second worker)", () => {
  it("sends a delivery that was still waiting for its slot once, not once per run", { timeout: 60_000 }, async () => {
    // GIVEN a shop with one slot per process and a receiver that takes 1 s; a batch of two of its deliveries
    const receiver = await slowReceiver(1_000);
    try {
      const { second, run } = await batchOfTwo(receiver.url, ["9401", "9402"]);

      // WHEN the batch runs, and while its first delivery is at the receiver (the second holds a lease and
      // waits for the slot), the same job runs again elsewhere (its lock lapsed: a Redis hiccup, a busy loop)
      const firstRun = run();
      await receiver.waitFor(1);
      const secondRun = run();
      const outcomes = await Promise.all([firstRun, secondRun]);

      // THEN the delivery that no attempt had reached yet is sent once: the lease is what keeps two holders
      // apart. (The first delivery was in flight when the second run began: at least once allows it twice.)
      const counts = countBy(eventIdsOf(receiver.received));
      expect({ second: counts.get(second), outcomes }).toMatchObject({ second: 1 });
    } finally {
      await receiver.close();
    }
  });

  it(
    "logs a failed first attempt once: the log's numbering and the retry schedule are a single job's",
    {
      timeout: 60_000,
    },
    async () => {
      // GIVEN the same, with a receiver that fails each request after 1 s
      const receiver = await slowReceiver(1_000, 500);
      try {
        const retries: string[] = [];
        const { shop, endpoint, second, run } = await batchOfTwo(receiver.url, ["9411", "9412"], (eventId) =>
          retries.push(eventId),
        );

        // WHEN it runs twice at once, as above
        const firstRun = run();
        await receiver.waitFor(1);
        const secondRun = run();
        await Promise.all([firstRun, secondRun]);

        // THEN the second delivery has one first attempt in its log (attempt 1), and one retry is handed on
        const log = (await findAttempts(database(), shop.id, endpoint.id)).filter((row) => row.eventId === second);
        expect(log.map((row) => row.attempt)).toEqual([1]);
        expect(retries.filter((id) => id === second)).toHaveLength(1);
      } finally {
        await receiver.close();
      }
    },
  );
});

describe("two relays (worker x2, docs/deploy.md) fanning out overlapping sets of pending events", () => {
  it("send each delivery once", { timeout: 60_000 }, async () => {
    // GIVEN a shop with an endpoint whose receiver takes 300 ms, and two events in the outbox
    const receiver = await slowReceiver(300);
    try {
      const shop = await createShop();
      await createWebhookEndpoint(shop.id, receiver.url);
      const e1 = await pendingEvent(shop.id, "9501");
      const e2 = await pendingEvent(shop.id, "9502");

      // WHEN relay A reads them and, before it fans them out, a third event comes and relay B relays all three
      let readByA!: () => void;
      const aRead = new Promise<void>((resolve) => (readByA = resolve));
      let letAGoOn!: () => void;
      const aMayGoOn = new Promise<void>((resolve) => (letAGoOn = resolve));
      const relayA = relayOutbox({
        fanOut: async (events: StoredEvent[]) => {
          readByA();
          await aMayGoOn;
          return fanOutEvents(
            queue,
            events.filter((event) => event.shopId === shop.id),
          );
        },
      });
      await aRead;
      const e3 = await pendingEvent(shop.id, "9503");
      await relayOutbox({
        fanOut: (events: StoredEvent[]) =>
          fanOutEvents(
            queue,
            events.filter((event) => event.shopId === shop.id),
          ),
      });
      letAGoOn();
      await relayA;

      // and the worker runs the batch jobs the two relays queued (each as the batch handler does)
      const batches = (await queue.getJobs(["prioritized", "waiting"])).filter(
        (job) =>
          job.name === JOBS.webhookDelivery.batchName && (job.data as DeliverWebhookBatchPayload).shopId === shop.id,
      );
      const slots = new ShopSlots(10);
      await Promise.all(
        batches.map((job) =>
          deliverBatch(job.data as DeliverWebhookBatchPayload, {
            dispatcher: agent,
            take: () => slots.take(shop.id),
            queuedAt: new Date(job.timestamp),
            requeueAfterMs: GRACE_MS,
          }),
        ),
      );

      // THEN each event is sent once (the relay's batches overlap; the lease is there to keep two holders apart)
      expect(batches.map((job) => job.id).sort()).toHaveLength(2);
      expect(Object.fromEntries(countBy(eventIdsOf(receiver.received)))).toEqual({ [e1]: 1, [e2]: 1, [e3]: 1 });
    } finally {
      await receiver.close();
    }
  });
});

describe("two relays where one's pass holds a single delivery of the shop and the other's a batch (soak, 563ac38)", () => {
  it("send the delivery once, and its failed first attempt leaves its retry queued", { timeout: 60_000 }, async () => {
    // GIVEN a shop whose receiver fails every request, and one event in the outbox
    const receiver = await slowReceiver(100, 500);
    try {
      const shop = await createShop();
      const { endpoint } = await createWebhookEndpoint(shop.id, receiver.url);
      const e1 = await pendingEvent(shop.id, "9511");

      // WHEN relay A reads it alone and, before A fans it out, a second event comes and relay B relays both
      let readByA!: () => void;
      const aRead = new Promise<void>((resolve) => (readByA = resolve));
      let letAGoOn!: () => void;
      const aMayGoOn = new Promise<void>((resolve) => (letAGoOn = resolve));
      const ofShop = (events: StoredEvent[]) => events.filter((event) => event.shopId === shop.id);
      const relayA = relayOutbox({
        fanOut: async (events: StoredEvent[]) => {
          readByA();
          await aMayGoOn;
          return fanOutEvents(queue, ofShop(events));
        },
      });
      await aRead;
      const e2 = await pendingEvent(shop.id, "9512");
      await relayOutbox({ fanOut: (events: StoredEvent[]) => fanOutEvents(queue, ofShop(events)) });
      letAGoOn();
      await relayA;

      // and every job the two relays queued for the shop runs at once, as the worker's handlers run them
      const jobs = (await queue.getJobs(["prioritized", "waiting"])).filter(
        (job) => (job.data as { shopId?: string }).shopId === shop.id,
      );
      const slots = new ShopSlots(10);
      await Promise.all(
        jobs.map(async (job) => {
          if (job.name === JOBS.webhookDelivery.name) {
            await deliverOnce(job.data as DeliverWebhookPayload, { attemptsMade: 0, dispatcher: agent });
            return;
          }
          await deliverBatch(job.data as DeliverWebhookBatchPayload, {
            dispatcher: agent,
            take: () => slots.take(shop.id),
            queuedAt: new Date(job.timestamp),
            requeueAfterMs: GRACE_MS,
            queueRetry: (payload, delayMs) =>
              queueDeliveriesOfBatch(queue, [{ payload, attemptsBefore: 1, delayMs }], 1),
          });
        }),
      );

      // THEN each event had one first attempt, and each is owed with its retry queued as the second attempt
      expect(Object.fromEntries(countBy(eventIdsOf(receiver.received)))).toEqual({ [e1]: 1, [e2]: 1 });
      for (const eventId of [e1, e2]) {
        const retry = await queue.getJob(`${eventId}-${endpoint.id}`);
        expect({ eventId, state: await retry?.getState(), data: retry?.data }).toMatchObject({
          eventId,
          state: "delayed",
          data: { attemptsBefore: 1 },
        });
      }
      const owed = await database()
        .selectFrom("WebhookDeliveryDue")
        .select(["eventId", "attemptsMade"])
        .where("shopId", "=", shop.id)
        .orderBy("eventId")
        .execute();
      expect(owed.map((row) => Number(row.attemptsMade))).toEqual([1, 1]);
    } finally {
      await receiver.close();
    }
  });
});

describe("a batch job forged in Redis naming another shop's delivery (review of 5b4fdd8)", () => {
  it("takes no lease on it: that shop's own batch sends it", { timeout: 60_000 }, async () => {
    const receiver = await slowReceiver(0);
    try {
      // GIVEN shop B's change relayed: its batch of one queued, its delivery owed
      const attacker = await createShop();
      const victim = await createShop();
      const { endpoint } = await createWebhookEndpoint(victim.id, receiver.url);
      const eventId = await pendingEvent(victim.id, "9801");
      await relayOutbox({
        fanOut: (events: StoredEvent[]) =>
          fanOutEvents(
            queue,
            events.filter((event) => event.shopId === victim.id),
          ),
      });
      const [legit] = (await queue.getJobs(["prioritized", "waiting"])).filter(
        (job) => (job.data as { shopId?: string }).shopId === victim.id,
      );
      const slots = new ShopSlots(10);
      const run = (data: DeliverWebhookBatchPayload, queuedAt: Date) =>
        deliverBatch(data, {
          dispatcher: agent,
          take: () => slots.take(data.shopId),
          queuedAt,
          requeueAfterMs: GRACE_MS,
        });

      // WHEN a forged batch of shop A naming B's delivery runs first: nothing is sent, B's row is not leased
      const forged = await run({ shopId: attacker.id, deliveries: [{ eventId, endpointId: endpoint.id }] }, new Date());
      expect(forged).toMatchObject({ succeeded: 0, skipped: 1 });
      const due = await database()
        .selectFrom("WebhookDeliveryDue")
        .select(["leaseId"])
        .where("eventId", "=", eventId)
        .executeTakeFirstOrThrow();
      expect({ received: receiver.received.length, leaseId: due.leaseId }).toEqual({ received: 0, leaseId: null });

      // THEN B's own batch sends it
      await run(legit!.data as DeliverWebhookBatchPayload, new Date(legit!.timestamp));
      expect(eventIdsOf(receiver.received)).toEqual([eventId]);
    } finally {
      await receiver.close();
    }
  });
});

describe("a relay pass that queued a quiet shop's one delivery and died before its transaction (review of 5b4fdd8)", () => {
  it("fails the batch (BullMQ runs it again) rather than completing it unsent", { timeout: 90_000 }, async () => {
    const receiver = await slowReceiver(0);
    try {
      const shop = await createShop();
      await createWebhookEndpoint(shop.id, receiver.url);
      const eventId = await pendingEvent(shop.id, "9802");
      const ofShop = (events: StoredEvent[]) => events.filter((event) => event.shopId === shop.id);
      // GIVEN a relay pass that queues the batch of one and dies before it records the delivery
      await expect(
        relayOutbox({
          fanOut: async (events: StoredEvent[]) => {
            await fanOutEvents(queue, ofShop(events));
            throw new Error("the relay's process died here");
          },
        }),
      ).rejects.toThrow();
      const [batch] = (await queue.getJobs(["prioritized", "waiting"])).filter(
        (job) => (job.data as { shopId?: string }).shopId === shop.id,
      );
      const slots = new ShopSlots(10);
      const run = () =>
        deliverBatch(batch!.data as DeliverWebhookBatchPayload, {
          dispatcher: agent,
          take: () => slots.take(shop.id),
          queuedAt: new Date(batch!.timestamp),
          requeueAfterMs: GRACE_MS,
        });
      // WHEN the batch runs while no relay records it for RELAY_WAIT_MS: it fails (a completed batch would keep
      // its id, and the next relay pass's add of the same batch would add nothing)
      await expect(run()).rejects.toBeInstanceOf(RelayNotRecorded);
      expect(receiver.received).toHaveLength(0);
      // THEN once the next pass records it, the batch's next run (BullMQ's retry) sends it
      await relayOutbox({ fanOut: (events: StoredEvent[]) => fanOutEvents(queue, ofShop(events)) });
      await run();
      expect(eventIdsOf(receiver.received)).toEqual([eventId]);
    } finally {
      await receiver.close();
    }
  });
});

describe("a batch job forged in Redis", () => {
  it("that names one delivery twice sends it once", { timeout: 60_000 }, async () => {
    const receiver = await slowReceiver(200);
    try {
      const shop = await createShop();
      const { endpoint } = await createWebhookEndpoint(shop.id, receiver.url);
      const eventId = await relayedEvent(shop.id, [endpoint.id], "9601");
      const key = { eventId, endpointId: endpoint.id };
      const slots = new ShopSlots(10);
      const outcome = await deliverBatch(
        { shopId: shop.id, deliveries: [key, key, key] },
        { dispatcher: agent, take: () => slots.take(shop.id), queuedAt: new Date(), requeueAfterMs: GRACE_MS },
      );
      expect({ received: receiver.received.length, outcome }).toMatchObject({ received: 1 });
      expect((await findAttempts(database(), shop.id, endpoint.id)).length).toBe(1);
    } finally {
      await receiver.close();
    }
  });

  it("that names more deliveries than a batch holds is refused whole; the real one among them stays owed", async () => {
    const shop = await createShop();
    const { endpoint } = await createWebhookEndpoint(shop.id, "http://127.0.0.1:9/never");
    const eventId = await relayedEvent(shop.id, [endpoint.id], "9701");
    const junk = Array.from({ length: 40_000 }, (_, n) => ({ eventId: `event_junk${n}`, endpointId: endpoint.id }));
    const payload = { shopId: shop.id, deliveries: [{ eventId, endpointId: endpoint.id }, ...junk] };
    // The worker parses a batch job's payload before anything else: this one fails, and BullMQ fails the job.
    expect(JOBS.webhookDelivery.batchPayload.safeParse(payload).success).toBe(false);
    expect(
      JOBS.webhookDelivery.batchPayload.safeParse({ ...payload, deliveries: payload.deliveries.slice(0, 250) }).success,
    ).toBe(true);
    // Its row is untouched: the reconciliation pass queues it once it is overdue.
    expect(await owedDeliveries(shop.id)).toBe(1);
  });
});

describe("a worker paused mid-batch (a long GC pause, a VM stall, SIGSTOP) while another worker runs", () => {
  it(
    "sends again at most what it had in flight: the deliveries its batch held and had not sent go to one worker",
    { timeout: 240_000 },
    async () => {
      // GIVEN two real workers (locks of 2 s, one slot per shop), and a shop with 24 events in the outbox for an
      // endpoint whose receiver takes 400 ms: one batch of 24, sent one at a time
      const receiver = await slowReceiver(400);
      const env = {
        OUTBOX_RELAY_INTERVAL_MS: "20",
        WORKER_LOCK_DURATION_MS: "2000",
        WEBHOOK_SHOP_CONCURRENCY: "1",
        WEBHOOK_TIMEOUT_MS: "10000",
      };
      const shop = await createShop();
      await createWebhookEndpoint(shop.id, receiver.url);
      const events: string[] = [];
      for (let n = 0; n < 24; n++) events.push(await pendingEvent(shop.id, `98${n}`));
      const first = startProcess("worker/index.ts", env);
      let second: ReturnType<typeof startProcess> | undefined;
      try {
        await first.waitForOutput(/worker ready/, 90_000);
        await receiver.waitFor(1, 60_000);
        second = startProcess("worker/index.ts", env);
        await second.waitForOutput(/worker ready/, 90_000);

        // WHEN the first worker is paused for 6 s (its lock on the batch lapses; the second takes the job over)
        process.kill(first.child.pid!, "SIGSTOP");
        await new Promise((resolve) => setTimeout(resolve, 6_000));
        process.kill(first.child.pid!, "SIGCONT");

        // and both go on until nothing is owed
        await until(
          () => owedDeliveries(shop.id),
          (n) => n === 0,
          "every delivery made",
          120_000,
        );
        await new Promise((resolve) => setTimeout(resolve, 2_000));

        // THEN every event came, and at most the one in flight at the pause (one slot) came twice
        const counts = countBy(eventIdsOf(receiver.received));
        const twice = [...counts].filter(([, n]) => n > 1);
        expect(events.filter((id) => !counts.has(id))).toEqual([]);
        expect(twice.length, `${receiver.received.length} requests for ${events.length} events`).toBeLessThanOrEqual(1);
      } finally {
        try {
          process.kill(first.child.pid!, "SIGCONT");
        } catch {
          // gone already
        }
        await first.stop(60_000);
        await second?.stop(60_000);
        await receiver.close();
      }
    },
  );
});

describe("what held (review of 6a94064)", () => {
  it(
    "a batch that runs before the relay's transaction waits for it and sends its deliveries once",
    {
      timeout: 60_000,
    },
    async () => {
      const receiver = await startReceiver();
      try {
        const shop = await createShop();
        const { endpoint } = await createWebhookEndpoint(shop.id, receiver.url);
        const ids = [await pendingEvent(shop.id, "9901"), await pendingEvent(shop.id, "9902")];
        const keys = ids.map((eventId) => ({ eventId, endpointId: endpoint.id }));
        const queuedAt = new Date();
        const slots = new ShopSlots(10);
        const batch = deliverBatch(
          { shopId: shop.id, deliveries: keys },
          { dispatcher: agent, take: () => slots.take(shop.id), queuedAt, requeueAfterMs: GRACE_MS },
        );
        // The relay's transaction commits 500 ms after the batch started.
        await new Promise((resolve) => setTimeout(resolve, 500));
        await transaction(async (tx) => {
          const at = new Date();
          await markEventsRelayed(tx, ids, at);
          await insertDeliveryDues(
            tx,
            keys.map((key) => ({ ...key, shopId: shop.id })),
            at,
          );
        });
        expect(await batch).toMatchObject({ succeeded: 2, skipped: 0 });
        expect(Object.fromEntries(countBy(eventIdsOf(receiver.received)))).toEqual({ [ids[0]!]: 1, [ids[1]!]: 1 });
        expect(await owedDeliveries(shop.id)).toBe(0);
      } finally {
        await receiver.close();
      }
    },
  );

  it("a delivery whose re-queued job completed (made elsewhere) and whose retry Redis lost is queued again", async () => {
    const shop = await createShop();
    const { endpoint } = await createWebhookEndpoint(shop.id);
    const at = new Date();
    const eventId = await relayedEvent(shop.id, [endpoint.id], "9911", at);
    const key = { eventId, endpointId: endpoint.id };
    await deferDeliveryDue(database(), key, { dueAt: at, attemptsMade: 1 });
    // The job the pass queued before under the delivery's id, completed.
    const jobId = `${eventId}-${endpoint.id}`;
    await queue.add(JOBS.webhookDelivery.name, {}, { jobId });
    const worker = new Worker(queue.name, async () => "made-elsewhere", {
      connection: redis.duplicate(),
      prefix: queue.opts.prefix,
    });
    await until(
      () => queue.getJobState(jobId),
      (state) => state === "completed",
      "the job completed",
    );
    await worker.close();

    // (The pass is of every shop: rows other tests of this file left owed are queued too.)
    expect(
      await requeueOverdueDeliveries(queue, { graceMs: 1_000, now: new Date(Date.now() + 60_000) }),
    ).toBeGreaterThan(0);
    expect(["waiting", "prioritized"]).toContain(await queue.getJobState(jobId));
    expect((await queue.getJob(jobId))!.data).toMatchObject({ eventId, attemptsBefore: 1, requeued: true });
  });
});
