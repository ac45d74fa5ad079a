import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database, engine, isUniqueViolation } from "~/data/database.server";
import { insertEvent } from "~/data/event-rows.server";
import { upsertShop } from "~/data/shop-rows.server";
import {
  findDeliveryWithEvent,
  insertAttempts,
  listDeliveries,
  type AttemptRecord,
} from "~/data/webhook-delivery-rows.server";
import { deleteEndpoint, insertEndpoint } from "~/data/webhook-endpoint-rows.server";
import { newId } from "~/lib/ids";
import { findAttempts } from "../support/webhook-rows";

/** The delivery log on both engines: attempt numbering in one statement, deleted endpoints, paging, scoping. */
async function setup() {
  const shop = await upsertShop(
    database(),
    {
      id: newId("shop"),
      domain: `deliveries-${randomBytes(4).toString("hex")}.myshopify.com`,
      publicKey: `svc_pk_${randomBytes(12).toString("hex")}`,
      settings: "{}",
    },
    new Date(),
  );
  const endpoint = await insertEndpoint(
    database(),
    { id: newId("webhookEndpoint"), shopId: shop.id, url: "https://r.example/", events: "[]", secretCiphertext: "x" },
    new Date(),
  );
  return { shop, endpoint };
}

async function addEvent(shopId: string) {
  const event = {
    id: newId("event"),
    shopId,
    type: "ping",
    data: "{}",
    createdAt: new Date("2026-04-05T06:07:08.912Z"),
  };
  await insertEvent(database(), event);
  return event;
}

function attempt(
  shopId: string,
  endpointId: string,
  eventId: string,
  extra: Partial<AttemptRecord> = {},
): AttemptRecord {
  return {
    id: newId("delivery"),
    shopId,
    endpointId,
    eventId,
    status: "failed",
    statusCode: 500,
    durationMs: 12,
    error: "HTTP 500",
    responseSnippet: "oops",
    nextRetryAt: new Date("2026-04-05T06:08:00.123Z"),
    at: new Date("2026-04-05T06:07:09.456Z"),
    ...extra,
  };
}

describe(`webhook delivery rows (${engine()})`, () => {
  it("logs many attempts in one statement, each numbered after its event's earlier ones", async () => {
    const { shop, endpoint } = await setup();
    const [one, two] = [await addEvent(shop.id), await addEvent(shop.id)];
    await insertAttempts(database(), [attempt(shop.id, endpoint.id, one.id)]);
    const second = attempt(shop.id, endpoint.id, one.id, {
      status: "succeeded",
      statusCode: 200,
      error: null,
      responseSnippet: null,
      nextRetryAt: null,
    });
    await insertAttempts(database(), [second, attempt(shop.id, endpoint.id, two.id, { statusCode: null })]);
    const rows = await findAttempts(database(), shop.id, endpoint.id);
    const of = (eventId: string) => rows.filter((row) => row.eventId === eventId).map((row) => row.attempt);
    expect(of(one.id)).toEqual([1, 2]);
    expect(of(two.id)).toEqual([1]);
    expect(rows.find((row) => row.id === second.id)).toEqual({
      id: second.id,
      shopId: shop.id,
      endpointId: endpoint.id,
      eventId: one.id,
      attempt: 2,
      status: "succeeded",
      statusCode: 200,
      durationMs: 12,
      error: null,
      responseSnippet: null,
      nextRetryAt: null,
      createdAt: new Date("2026-04-05T06:07:09.456Z"),
      finishedAt: new Date("2026-04-05T06:07:09.456Z"),
    });
    const failed = rows.find((row) => row.eventId === one.id && row.attempt === 1)!;
    expect(failed.nextRetryAt?.toISOString()).toBe("2026-04-05T06:08:00.123Z");
    expect(rows.find((row) => row.eventId === two.id)?.statusCode).toBeNull();
    await insertAttempts(database(), []);
  });

  it("drops the attempts of a deleted endpoint and keeps the others of the batch", async () => {
    const { shop, endpoint } = await setup();
    const gone = await insertEndpoint(
      database(),
      { id: newId("webhookEndpoint"), shopId: shop.id, url: "https://g.example/", events: "[]", secretCiphertext: "x" },
      new Date(),
    );
    await deleteEndpoint(database(), shop.id, gone.id);
    const event = await addEvent(shop.id);
    await insertAttempts(database(), [attempt(shop.id, gone.id, event.id), attempt(shop.id, endpoint.id, event.id)]);
    expect(await findAttempts(database(), shop.id, gone.id)).toEqual([]);
    expect(await findAttempts(database(), shop.id, endpoint.id)).toHaveLength(1);
  });

  it("refuses two attempts with one number: the caller writes them one at a time", async () => {
    const { shop, endpoint } = await setup();
    const event = await addEvent(shop.id);
    const twice = insertAttempts(database(), [
      attempt(shop.id, endpoint.id, event.id),
      attempt(shop.id, endpoint.id, event.id),
    ]);
    await expect(twice).rejects.toSatisfy(isUniqueViolation);
    expect(await findAttempts(database(), shop.id, endpoint.id)).toEqual([]);
  });

  it("pages the log newest first with each event's type, within the shop only", async () => {
    const { shop, endpoint } = await setup();
    const other = await setup();
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      const event = await addEvent(shop.id);
      const record = attempt(shop.id, endpoint.id, event.id);
      ids.push(record.id);
      await insertAttempts(database(), [record]);
    }
    const page = await listDeliveries(database(), shop.id, endpoint.id, { limit: 1 });
    expect(page.map((row) => row.id)).toEqual([ids[2], ids[1]]); // limit + 1
    expect(page[0]!.eventType).toBe("ping");
    expect(page[0]!.createdAt).toBeInstanceOf(Date);
    const next = await listDeliveries(database(), shop.id, endpoint.id, { before: ids[1], limit: 5 });
    expect(next.map((row) => row.id)).toEqual([ids[0]]);
    expect(await listDeliveries(database(), other.shop.id, endpoint.id, { limit: 5 })).toEqual([]);
  });

  it("finds one attempt with its event, only for its endpoint and shop", async () => {
    const { shop, endpoint } = await setup();
    const other = await setup();
    const event = await addEvent(shop.id);
    const record = attempt(shop.id, endpoint.id, event.id);
    await insertAttempts(database(), [record]);
    expect(await findDeliveryWithEvent(database(), shop.id, endpoint.id, record.id)).toEqual({
      id: record.id,
      eventId: event.id,
      eventType: "ping",
      eventData: "{}",
      eventCreatedAt: event.createdAt,
    });
    expect(await findDeliveryWithEvent(database(), other.shop.id, endpoint.id, record.id)).toBeUndefined();
    expect(await findDeliveryWithEvent(database(), shop.id, other.endpoint.id, record.id)).toBeUndefined();
  });
});
