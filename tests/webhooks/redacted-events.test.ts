import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { newId } from "~/lib/ids";
import { queuePrefix } from "~/jobs/queues.server";
import { REDACTED_EVENT_DATA } from "~/services/events/redacted-events";
import { fanOutEvents } from "~/services/webhooks/fanout.server";
import { createShopWithKey, createWebhookEndpoint } from "../factories";

// A queue of this test's own (the real Redis, this file's key prefix): what the fan-out adds is read back.
const connection = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
const queue = new Queue("redacted-events-fanout", { connection, prefix: queuePrefix() });
afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
});

describe("an event erased by customers/redact before the relay reached it", () => {
  it("is fanned out to no endpoint, while the shop's other events are", async () => {
    const { shop } = await createShopWithKey();
    const { endpoint } = await createWebhookEndpoint(shop.id);
    const event = (data: string) => ({
      id: newId("event"),
      shopId: shop.id,
      type: "item.added" as const,
      data,
      createdAt: new Date(),
    });
    const erased = event(REDACTED_EVENT_DATA);
    const kept = event(
      JSON.stringify({
        listId: newId("list"),
        customerId: null,
        anonymousId: "a",
        item: { productId: "1", handle: "one" },
        count: 1,
      }),
    );

    const queued = await fanOutEvents(queue, [erased, kept]);

    expect(queued).toEqual([{ eventId: kept.id, endpointId: endpoint.id, shopId: shop.id }]);
    expect(await queue.getJob(`${erased.id}-${endpoint.id}`)).toBeUndefined();
    expect(await queue.getJob(`${kept.id}-${endpoint.id}`)).toBeDefined();
  });
});
