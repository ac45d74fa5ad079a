import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { Agent } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { insertEvent } from "~/data/event-rows.server";
import { resetEnvCache } from "~/env.server";
import { newId } from "~/lib/ids";
import { queuePrefix } from "~/jobs/queues.server";
import { REDACTED_EVENT_DATA } from "~/services/events/redacted-events";
import { deliverOnce } from "~/services/webhooks/delivery.server";
import { fanOutEvents } from "~/services/webhooks/fanout.server";
import { createShopWithKey, createWebhookEndpoint } from "../../factories";
import { startReceiver } from "./receiver";

// Deliveries to a receiver on this machine.
Object.assign(process.env, { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128" });
resetEnvCache();
const receiver = await startReceiver();

// A queue of this test's own (the real Redis, this file's key prefix): what the fan-out adds is read back.
const connection = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
const queue = new Queue("redacted-events-fanout", { connection, prefix: queuePrefix() });
afterAll(async () => {
  await receiver.close();
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
    const [batch, ...others] = await queue.getJobs(["prioritized", "waiting"]);
    expect(others).toEqual([]);
    expect(batch!.data).toEqual({ shopId: shop.id, deliveries: [{ eventId: kept.id, endpointId: endpoint.id }] });
  });
});

describe("a delivery queued before customers/redact erased its event (issue 25 review)", () => {
  it("sends nothing once the stored event is erased, whatever body its job kept; an event not erased is sent", async () => {
    const { shop } = await createShopWithKey();
    const { endpoint } = await createWebhookEndpoint(shop.id, receiver.url);
    // A redelivery's job (or one the relay queued while the redaction ran) keeps the body naming the customer:
    // the redaction cannot rewrite it, so the stored event must decide.
    const queuedBody = (eventId: string) =>
      JSON.stringify({ id: eventId, type: "item.added", data: { listId: "lst_x", customerId: "9002", count: 1 } });
    const erased = { id: newId("event"), data: REDACTED_EVENT_DATA };
    const kept = { id: newId("event"), data: JSON.stringify({ listId: "lst_x", customerId: "9003", count: 1 }) };
    for (const event of [erased, kept]) {
      await insertEvent(database(), { ...event, shopId: shop.id, type: "item.added", createdAt: new Date() });
    }
    const deliver = async (eventId: string) => {
      const agent = new Agent();
      try {
        return await deliverOnce(
          {
            shopId: shop.id,
            eventId,
            eventType: "item.added",
            endpointId: endpoint.id,
            body: queuedBody(eventId),
            redelivery: true,
          },
          { attemptsMade: 0, maxAttempts: 1, dispatcher: agent },
        );
      } finally {
        await agent.close();
      }
    };

    expect(await deliver(erased.id)).toEqual({ status: "skipped", reason: "event-redacted" });
    expect(receiver.received).toHaveLength(0);
    expect(await deliver(kept.id)).toMatchObject({ status: "succeeded", statusCode: 200 });
    expect(receiver.received.map((request) => JSON.parse(request.body.toString()).id)).toEqual([kept.id]);
  });
});
