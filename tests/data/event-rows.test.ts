import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database, engine, transaction } from "~/data/database.server";
import { deleteRelayedEventsBefore, findPendingEvents, insertEvent, markEventsRelayed } from "~/data/event-rows.server";
import { upsertShop } from "~/data/shop-rows.server";
import { newId } from "~/lib/ids";

/** The outbox's statements on both engines: pending order, claiming once, purging relayed events only. */
async function newShop() {
  const shop = {
    id: newId("shop"),
    domain: `events-${randomBytes(4).toString("hex")}.myshopify.com`,
    publicKey: `svc_pk_${randomBytes(12).toString("hex")}`,
    settings: "{}",
  };
  return upsertShop(database(), shop, new Date());
}

async function addEvent(shopId: string, createdAt = new Date()) {
  const event = { id: newId("event"), shopId, type: "item.added", data: '{"n":1}', createdAt };
  await insertEvent(database(), event);
  return event;
}

const eventRow = (id: string) => database().selectFrom("Event").selectAll().where("id", "=", id).executeTakeFirst();

describe(`event rows (${engine()})`, () => {
  it("stores an event as given, its timestamp to the millisecond, pending", async () => {
    const shop = await newShop();
    const at = new Date("2026-05-06T07:08:09.123Z");
    const event = await addEvent(shop.id, at);
    const row = await eventRow(event.id);
    expect(row).toEqual({ ...event, dispatchedAt: null });
    expect(row!.createdAt.toISOString()).toBe("2026-05-06T07:08:09.123Z");
  });

  it("reads pending events in id order, up to the limit, and never relayed ones", async () => {
    const shop = await newShop();
    const events = [];
    for (let index = 0; index < 4; index++) events.push(await addEvent(shop.id));
    await markEventsRelayed(database(), [events[1]!.id], new Date());
    const pending = (await findPendingEvents(database(), 10_000)).filter((event) => event.shopId === shop.id);
    expect(pending.map((event) => event.id)).toEqual([events[0]!.id, events[2]!.id, events[3]!.id]);
    expect(pending[0]!.createdAt).toBeInstanceOf(Date);
    expect(await findPendingEvents(database(), 1)).toHaveLength(1);
  });

  it("marks each event relayed once: a second claim of the same ids gets none of them", async () => {
    const shop = await newShop();
    const ids = [(await addEvent(shop.id)).id, (await addEvent(shop.id)).id];
    const at = new Date("2026-05-06T07:08:09.456Z");
    expect((await markEventsRelayed(database(), ids, at)).sort()).toEqual([...ids].sort());
    expect(await markEventsRelayed(database(), ids, new Date())).toEqual([]);
    expect((await eventRow(ids[0]!))!.dispatchedAt).toEqual(at);
    expect(await markEventsRelayed(database(), [], new Date())).toEqual([]);
  });

  it("splits concurrent claims of the same events between the claimers, each event to one", async () => {
    const shop = await newShop();
    const ids: string[] = [];
    for (let index = 0; index < 20; index++) ids.push((await addEvent(shop.id)).id);
    const claims = await Promise.all(
      Array.from({ length: 4 }, () => transaction((tx) => markEventsRelayed(tx, ids, new Date()))),
    );
    expect(claims.flat().sort()).toEqual([...ids].sort());
  });

  it("deletes only events relayed before the cutoff, oldest first, a chunk at a time", async () => {
    const shop = await newShop();
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);
    const old = [await addEvent(shop.id), await addEvent(shop.id), await addEvent(shop.id)];
    await markEventsRelayed(database(), [old[0]!.id], new Date("2000-01-01T00:00:00.000Z")); // the oldest of all
    await markEventsRelayed(database(), [old[1]!.id], daysAgo(40));
    await markEventsRelayed(database(), [old[2]!.id], daysAgo(1));
    const pending = await addEvent(shop.id, daysAgo(90));
    // Other shops' old events are this purge's too (it runs over every shop), so count only this shop's.
    const left = async () =>
      (await database().selectFrom("Event").select("id").where("shopId", "=", shop.id).execute()).map((e) => e.id);
    expect(await deleteRelayedEventsBefore(database(), daysAgo(30), 1)).toBe(1);
    expect((await left()).sort()).toEqual([old[1]!.id, old[2]!.id, pending.id].sort());
    await deleteRelayedEventsBefore(database(), daysAgo(30), 1_000);
    expect((await left()).sort()).toEqual([old[2]!.id, pending.id].sort());
  });
});
