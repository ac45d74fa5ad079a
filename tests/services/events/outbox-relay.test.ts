import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { relayOutbox, type StoredEvent } from "~/services/events/relay.server";
import { purgeRelayedEvents } from "~/services/events/retention.server";
import type { Owner } from "~/services/owners/owner";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { createDelivery, createShop, createWebhookEndpoint } from "../../factories";
import { startProcess } from "../../support/processes";
import { drainOutbox, findAttempts, pendingEvents } from "../../support/webhook-rows";

const anonymous = (): Owner => ({ kind: "anonymous", anonymousId: randomUUID() });
const item = (productId: string) => ({ productId, handle: `p-${productId}` });

async function shopTotals(shopId: string) {
  const rows = await database().selectFrom("DailyShopStat").selectAll().where("shopId", "=", shopId).execute();
  return {
    adds: rows.reduce((sum, row) => sum + row.adds, 0),
    removes: rows.reduce((sum, row) => sum + row.removes, 0),
    activeShoppers: rows.reduce((sum, row) => sum + row.activeShoppers, 0),
  };
}

describe("outbox relay", () => {
  it("counts nothing before it runs, then every pending event once, and marks them relayed", async () => {
    const shop = await createShop();
    const owner = anonymous();
    await toggleItem({ shopId: shop.id, owner, item: item("1") });
    await toggleItem({ shopId: shop.id, owner, item: item("2") });
    await toggleItem({ shopId: shop.id, owner, item: item("1") });
    expect(await shopTotals(shop.id)).toEqual({ adds: 0, removes: 0, activeShoppers: 0 });

    const seen: StoredEvent[] = [];
    await drainOutbox({ fanOut: async (events) => void seen.push(...events) });
    expect(seen.filter((event) => event.shopId === shop.id).map((event) => event.type)).toEqual([
      "item.added",
      "item.added",
      "item.removed",
    ]);
    expect(await shopTotals(shop.id)).toEqual({ adds: 2, removes: 1, activeShoppers: 1 });
    expect(await pendingEvents(shop.id)).toBe(0);
    expect(await relayOutbox()).toBe(0);
    expect(await shopTotals(shop.id)).toEqual({ adds: 2, removes: 1, activeShoppers: 1 });
  });

  it("leaves the events pending when fan-out fails, and counts them once when it is retried", async () => {
    const shop = await createShop();
    await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("9") });
    const failing = async () => {
      throw new Error("queue unavailable");
    };
    await expect(relayOutbox({ fanOut: failing })).rejects.toThrow("queue unavailable");
    expect(await pendingEvents(shop.id)).toBe(1);
    expect(await shopTotals(shop.id)).toEqual({ adds: 0, removes: 0, activeShoppers: 0 });
    await drainOutbox();
    expect(await shopTotals(shop.id)).toEqual({ adds: 1, removes: 0, activeShoppers: 1 });
  });

  it("loses and doubles nothing while changes and three relays run at the same time", async () => {
    const shop = await createShop();
    const owners = Array.from({ length: 5 }, anonymous);
    let writing = true;
    const relays = Array.from({ length: 3 }, async () => {
      while (writing) await relayOutbox({ batchSize: 7 });
    });
    await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        toggleItem({ shopId: shop.id, owner: owners[index % 5]!, item: item(String(index % 4)) }),
      ),
    );
    writing = false;
    await Promise.all(relays);
    await drainOutbox();
    const events = await database().selectFrom("Event").selectAll().where("shopId", "=", shop.id).execute();
    expect(events).toHaveLength(60);
    expect(events.every((event) => event.dispatchedAt !== null)).toBe(true);
    const adds = events.filter((event) => event.type === "item.added").length;
    expect(await shopTotals(shop.id)).toEqual({ adds, removes: 60 - adds, activeShoppers: 5 });
    const products = await database()
      .selectFrom("DailyProductStat")
      .selectAll()
      .where("shopId", "=", shop.id)
      .execute();
    expect(products.reduce((sum, row) => sum + row.adds + row.removes, 0)).toBe(60);
  });

  it("runs in the real worker process: a change is counted in analytics shortly after it is made", async () => {
    const shop = await createShop();
    await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("5") });
    const worker = startProcess("worker/index.ts", { OUTBOX_RELAY_INTERVAL_MS: "50" });
    try {
      // Generous bounds: a busy 2-core machine can take many seconds to start a process; the test is
      // about the change being counted, not how fast a cold process starts.
      await worker.waitForOutput(/worker ready/, 90_000);
      await toggleItem({ shopId: shop.id, owner: anonymous(), item: item("6") });
      const started = Date.now();
      while ((await shopTotals(shop.id)).adds < 2 && Date.now() - started < 90_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await shopTotals(shop.id)).toEqual({ adds: 2, removes: 0, activeShoppers: 2 });
      expect(await pendingEvents(shop.id)).toBe(0);
    } finally {
      expect(await worker.stop()).toBe(0);
    }
  }, 120_000);

  it("purges events relayed before the cutoff with their delivery log, never pending ones", async () => {
    const shop = await createShop();
    const { endpoint } = await createWebhookEndpoint(shop.id);
    const old = await createDelivery(shop.id, endpoint.id); // its event: relayed 40 days ago
    const recent = await createDelivery(shop.id, endpoint.id); // relayed yesterday
    const pending = await createDelivery(shop.id, endpoint.id); // never relayed, however old
    const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000);
    const setEvent = (id: string, values: { dispatchedAt: Date | null; createdAt?: Date }) =>
      database().updateTable("Event").set(values).where("id", "=", id).execute();
    await setEvent(old.eventId, { dispatchedAt: daysAgo(40), createdAt: daysAgo(40) });
    await setEvent(recent.eventId, { dispatchedAt: daysAgo(1) });
    await setEvent(pending.eventId, { dispatchedAt: null, createdAt: daysAgo(90) });

    expect(await purgeRelayedEvents({ relayedBefore: daysAgo(30) })).toBeGreaterThanOrEqual(1);
    const left = await database().selectFrom("Event").select("id").where("shopId", "=", shop.id).execute();
    expect(left.map((event) => event.id).sort()).toEqual([recent.eventId, pending.eventId].sort());
    const log = await findAttempts(database(), shop.id, endpoint.id);
    expect(log.map((delivery) => delivery.id).sort()).toEqual([recent.id, pending.id].sort());
  });
});
