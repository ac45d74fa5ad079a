import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv as parseDotEnv } from "node:util";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { parseEnv, resetEnvCache } from "~/env.server";
import { JOBS } from "~/jobs/definitions";
import { queuePrefix } from "~/jobs/queues.server";
import { fanOutEvents } from "~/services/webhooks/fanout.server";
import { retryDelayMs, WEBHOOK_ATTEMPTS, WEBHOOK_RETRIES } from "~/services/webhooks/schedule";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { webhookBackoff } from "../../../worker/handlers/webhook-jobs";
import { JobFailed } from "../../../worker/outcomes";
import { ROOT } from "../../../scripts/lib/databases";
import { createShop, createWebhookEndpoint, storedEvent } from "../../factories";
import { useWorker } from "../../support/worker";
import { startReceiver } from "./receiver";
import { findAttempts } from "../../support/webhook-rows";

/**
 * The delivery rules as they run in production (docs/webhooks.md): a 10 s timeout per delivery, then 5
 * retries backing off from 1 minute to 6 hours. Asserted from the configuration the worker reads (the
 * environment's defaults, .env.example) and from the real worker, never from a test's own overrides: only
 * plain http to loopback is allowed here, which changes nothing about timing.
 */
const TIMING = ["WEBHOOK_RETRY_UNIT_MS", "WEBHOOK_TIMEOUT_MS", "OUTBOX_RELAY_INTERVAL_MS"];
for (const name of TIMING) delete process.env[name];
Object.assign(process.env, { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" });
resetEnvCache();

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
const queue = new Queue(JOBS.webhookDelivery.queue, { connection: redis, prefix: queuePrefix() });
afterAll(async () => {
  await queue.close();
  redis.disconnect();
});

describe("the production delivery schedule, from the real configuration", () => {
  it("defaults to a 10 s timeout and a 1 minute retry unit, as .env.example documents", () => {
    const defaults = parseEnv({});
    expect(defaults.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(defaults.WEBHOOK_RETRY_UNIT_MS).toBe(MINUTE);
    const example = parseEnv(parseDotEnv(readFileSync(path.join(ROOT, ".env.example"), "utf8")));
    expect(example.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(example.WEBHOOK_RETRY_UNIT_MS).toBe(MINUTE);
  });

  it("retries 5 times, from 1 minute to 6 hours (+/-10% jitter), in the worker's backoff", () => {
    const unit = parseEnv({}).WEBHOOK_RETRY_UNIT_MS;
    expect(WEBHOOK_RETRIES).toBe(5);
    expect(WEBHOOK_ATTEMPTS).toBe(6);
    const centre = [1, 2, 3, 4, 5].map((retry) => retryDelayMs(retry, unit, () => 0.5));
    expect(centre[0]).toBe(MINUTE);
    expect(centre[4]).toBe(6 * HOUR);
    centre.slice(1).forEach((delay, index) => expect(delay).toBeGreaterThan(centre[index]!)); // growing
    for (const retry of [1, 5]) {
      expect(retryDelayMs(retry, unit, () => 0)).toBe(Math.round(centre[retry - 1]! * 0.9));
      expect(retryDelayMs(retry, unit, () => 1)).toBe(Math.round(centre[retry - 1]! * 1.1));
    }
    // The strategy the worker gives BullMQ: the delay a failed attempt logged, else the schedule itself.
    expect(webhookBackoff(1, "webhook", new JobFailed("x", 61_234, true))).toBe(61_234);
    for (let sample = 0; sample < 20; sample++) {
      const first = webhookBackoff(1, "webhook", new Error("no answer")) as number;
      expect(first).toBeGreaterThanOrEqual(0.9 * MINUTE);
      expect(first).toBeLessThanOrEqual(1.1 * MINUTE);
      const last = webhookBackoff(5, "webhook", new Error("no answer")) as number;
      expect(last).toBeGreaterThanOrEqual(0.9 * 6 * HOUR);
      expect(last).toBeLessThanOrEqual(1.1 * 6 * HOUR);
    }
  });

  it("queues every delivery with 6 attempts and the worker's backoff", async () => {
    const shop = await createShop();
    const { endpoint } = await createWebhookEndpoint(shop.id);
    const event = storedEvent(shop.id);
    expect(await fanOutEvents(queue, [event])).toHaveLength(1);
    // A batch (of one): its first attempt is made under the batch's lease, its retries in a job of its own.
    const job = await queue.getJob(`batch-${event.id}-${endpoint.id}-1`);
    expect(job!.opts).toMatchObject({ attempts: 6, backoff: { type: "webhook" } });
    await job!.remove();
  });
});

describe("the real worker with the production timing", () => {
  useWorker(Object.fromEntries(TIMING.map((name) => [name, undefined])));

  it("gives up on a silent receiver after 10 s and schedules the retry about a minute later", async () => {
    // The receiver never answers; it notes when the worker gives up and closes the connection.
    let closedAt = 0;
    const silent = await startReceiver((_request, _index, res) => {
      res.once("close", () => (closedAt = Date.now()));
      return "hold";
    });
    try {
      const shop = await createShop();
      const { endpoint } = await createWebhookEndpoint(shop.id, silent.url);
      await toggleItem({
        shopId: shop.id,
        owner: { kind: "anonymous", anonymousId: randomUUID() },
        item: { productId: "1", handle: "one" },
      });
      await silent.waitFor(1, 90_000);
      const request = silent.received[0]!;
      let attempt = (await findAttempts(database(), shop.id, endpoint.id))[0];
      for (const started = Date.now(); (!attempt || closedAt === 0) && Date.now() - started < 60_000;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        attempt = (await findAttempts(database(), shop.id, endpoint.id))[0];
      }
      // Not before 10 s: the connection stayed open that long (timers never fire early; 50 ms for clocks).
      expect(closedAt).toBeGreaterThan(0);
      // Seen from the receiver, whose clock starts when its (busy) event loop gets to the request: allow for
      // that lag. The worker's own measure of the attempt (durationMs, below) holds the 10 s exactly.
      expect(closedAt - request.at).toBeGreaterThanOrEqual(10_000 - 1_000);
      expect(attempt).toMatchObject({ status: "failed", attempt: 1, statusCode: null });
      expect(attempt!.error).toContain("timeout");
      expect(attempt!.durationMs).toBeGreaterThanOrEqual(10_000);
      const retryIn = attempt!.nextRetryAt!.getTime() - attempt!.createdAt.getTime();
      expect(retryIn).toBeGreaterThanOrEqual(0.9 * MINUTE);
      expect(retryIn).toBeLessThanOrEqual(1.1 * MINUTE);
      // The batch hands the retry on to a job of its own, queued delayed with one attempt made and five left;
      // nothing is sent meanwhile. The worker queues it once the failed attempt is logged: poll.
      const delayedJob = async () =>
        (await queue.getJobs(["delayed"])).find((entry) => entry?.data.endpointId === endpoint.id);
      let job = await delayedJob();
      for (const started = Date.now(); !job && Date.now() - started < 90_000; job = await delayedJob()) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(job).toBeDefined();
      expect(job!.id).toBe(`${attempt!.eventId}-${endpoint.id}`);
      expect(job!.data.attemptsBefore).toBe(1);
      expect(job!.opts.attempts).toBe(5);
      expect(job!.delay).toBeGreaterThanOrEqual(0.9 * MINUTE);
      expect(silent.received).toHaveLength(1);
    } finally {
      await silent.close();
    }
  }, 90_000);
});
