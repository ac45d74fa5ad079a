/**
 * Fairness between shops for webhook deliveries (docs/decisions/026-fairness-between-shops.md), with the
 * real worker process: a shop's backlog queues behind other shops' next deliveries (priorities from the
 * owed count), and a shop whose receivers hang holds at most WEBHOOK_SHOP_CONCURRENCY of a worker's slots.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { resetEnvCache } from "~/env.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { redeliver } from "~/services/webhooks/endpoints.server";
import { createDelivery, createShop, createWebhookEndpoint } from "../../factories";
import { startProcess } from "../../support/processes";
import { startReceiver } from "./receiver";

Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
  WEBHOOK_RETRY_UNIT_MS: "20",
  OUTBOX_RELAY_INTERVAL_MS: "20",
});
resetEnvCache();

/** `count` item.added events of the shop, 50 saves per guest (a list holds 500 at most). */
async function saves(shopId: string, count: number) {
  for (let start = 0; start < count; start += 50) {
    const owner = { kind: "anonymous" as const, anonymousId: randomUUID() };
    await Promise.all(
      Array.from({ length: Math.min(50, count - start) }, (_, n) =>
        toggleItem({ shopId, owner, item: { productId: `p${start + n}`, handle: `p${start + n}` } }),
      ),
    );
  }
}

/**
 * A noisy and a quiet shop with an endpoint each. The noisy shop's receiver is a little slow, so its
 * backlog lasts; the slots per shop are not the limit in the tests that use it.
 */
async function twoShops() {
  const noisyReceiver = await startReceiver((_request, _index, res) => {
    setTimeout(() => res.writeHead(204).end(), 20);
    return "hold";
  });
  const quietReceiver = await startReceiver();
  const noisy = await createShop();
  const quiet = await createShop();
  const { endpoint: noisyEndpoint } = await createWebhookEndpoint(noisy.id, noisyReceiver.url);
  await createWebhookEndpoint(quiet.id, quietReceiver.url);
  return { noisy, quiet, noisyReceiver, quietReceiver, noisyEndpoint };
}

describe("deliveries of a shop with a backlog", () => {
  it("queue behind another shop's new deliveries instead of in front of them", { timeout: 240_000 }, async () => {
    const { noisy, quiet, noisyReceiver, quietReceiver } = await twoShops();
    // Written before any worker runs: the relay takes the outbox in order, the noisy shop's 600 events first.
    const noisyEvents = 600;
    await saves(noisy.id, noisyEvents);
    await saves(quiet.id, 3);
    const worker = startProcess("worker/index.ts", { WEBHOOK_CONCURRENCY: "4", WEBHOOK_SHOP_CONCURRENCY: "4" });
    try {
      await worker.waitForOutput(/worker ready/, 90_000);
      await quietReceiver.waitFor(3, 120_000);
      // In arrival order the quiet shop's deliveries would come after all 600 of the noisy shop's.
      const noisyBefore = noisyReceiver.received.length;
      expect(noisyBefore).toBeLessThan(400);
      await noisyReceiver.waitFor(noisyEvents, 180_000); // the backlog is still delivered, all of it
    } finally {
      expect(await worker.stop(30_000)).toBe(0);
      await noisyReceiver.close();
      await quietReceiver.close();
    }
  });
});

describe("redeliveries of a shop", () => {
  it("queue behind another shop's new deliveries too", { timeout: 240_000 }, async () => {
    const { noisy, quiet, noisyReceiver, quietReceiver, noisyEndpoint: endpoint } = await twoShops();
    // A merchant (or a script) asks for 300 redeliveries before any worker runs; then the quiet shop's events.
    const logged = await createDelivery(noisy.id, endpoint.id);
    for (let n = 0; n < 300; n++) {
      await redeliver({ shopId: noisy.id, shopDomain: noisy.domain, endpointId: endpoint.id, deliveryId: logged.id });
    }
    await saves(quiet.id, 3);
    const worker = startProcess("worker/index.ts", { WEBHOOK_CONCURRENCY: "4", WEBHOOK_SHOP_CONCURRENCY: "4" });
    try {
      await worker.waitForOutput(/worker ready/, 90_000);
      await quietReceiver.waitFor(3, 120_000);
      expect(noisyReceiver.received.length).toBeLessThan(200);
      await noisyReceiver.waitFor(300, 180_000);
    } finally {
      expect(await worker.stop(30_000)).toBe(0);
      await noisyReceiver.close();
      await quietReceiver.close();
    }
  });
});

describe("a shop whose receivers do not answer", () => {
  it(
    "holds at most WEBHOOK_SHOP_CONCURRENCY slots of a worker; another shop is delivered meanwhile",
    { timeout: 240_000 },
    async () => {
      const hanging = await startReceiver(() => "hold"); // answers nothing until the test ends
      const quietReceiver = await startReceiver();
      const noisy = await createShop();
      const quiet = await createShop();
      for (let n = 0; n < 3; n++) await createWebhookEndpoint(noisy.id, hanging.url);
      await createWebhookEndpoint(quiet.id, quietReceiver.url);
      // The timeout is longer than this test waits for the quiet shop: without a share per shop, the six
      // slots would all wait on the hanging receiver and the quiet shop's deliveries with them.
      const worker = startProcess("worker/index.ts", {
        WEBHOOK_CONCURRENCY: "6",
        WEBHOOK_SHOP_CONCURRENCY: "2",
        WEBHOOK_TIMEOUT_MS: "60000",
      });
      try {
        await worker.waitForOutput(/worker ready/, 90_000);
        await saves(noisy.id, 20); // 60 deliveries, none of which will be answered
        await hanging.waitFor(2, 90_000);
        await saves(quiet.id, 5);
        await quietReceiver.waitFor(5, 45_000);
        // Two attempts of the noisy shop hang; its other 58 deliveries wait their turn without a slot.
        expect(hanging.received).toHaveLength(2);
      } finally {
        await hanging.close(); // the hanging attempts fail now, so the worker can stop
        expect(await worker.stop(30_000)).toBe(0);
        await quietReceiver.close();
      }
    },
  );
});
