import type { Transaction } from "kysely";
import { describe, expect, it } from "vitest";
import type { DB } from "~/data/database.server";

/**
 * The relay queues a batch's deliveries, then marks the events relayed and records the deliveries as owed
 * in one transaction (docs/decisions/025-queue-reconciliation.md). A worker may finish a delivery inside
 * that transaction's window: its log transaction must not miss the owed row the relay is about to commit,
 * or the row stays behind, owed for a delivery that was made (the 5-minute soak left 688 of them). On
 * PostgreSQL the log transaction waits for the relay's row locks on the events; SQLite runs one writer at a
 * time, so the window does not exist there (this file is PostgreSQL only, vitest.config.ts).
 */
process.env.WEBHOOK_ALLOW_HTTP = "true";
process.env.WEBHOOK_ALLOWED_NETWORKS = "127.0.0.0/8";

const { sql } = await import("kysely");
const { Agent } = await import("undici");
const { database } = await import("~/data/database.server");
const { insertEvent, markEventsRelayed, waitForEventsRelayed } = await import("~/data/event-rows.server");
const { insertDeliveryDues } = await import("~/data/webhook-delivery-due-rows.server");
const { newId } = await import("~/lib/ids");
const { deliverOnce } = await import("~/services/webhooks/delivery.server");
const { createShop, createWebhookEndpoint } = await import("../../factories");
const { until } = await import("../../support/poll");
const { startReceiver } = await import("./receiver");

/** Backends of this database waiting for a lock another transaction holds. */
async function waitingOnLocks(): Promise<number> {
  const { rows } = await sql<{ waiting: number }>`
    SELECT count(*)::int AS waiting FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(database());
  return rows[0]!.waiting;
}

/**
 * A transaction (Kysely's own: the app's `transaction` runs a deadlock victim again, which would hide one)
 * that does `work`, then stays open until released.
 */
function holdOpen(work: (tx: Transaction<DB>) => Promise<unknown>) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const ready = new Promise<void>((resolve) => (started = resolve));
  const done = database()
    .transaction()
    .execute(async (tx) => {
      await work(tx);
      started();
      await released;
    });
  return { ready, release, done };
}

describe("a delivery finished while the relay is recording it as owed", () => {
  it.each(["succeeded", "failed for good"] as const)(
    "%s: the owed row the relay commits is ended by the delivery's log, not left behind",
    async (outcome) => {
      const receiver = await startReceiver((_, __, res) => {
        res.writeHead(outcome === "succeeded" ? 204 : 500).end();
      });
      const dispatcher = new Agent();
      try {
        const shop = await createShop();
        const { endpoint } = await createWebhookEndpoint(shop.id, receiver.url);
        const eventId = newId("event");
        const body = JSON.stringify({ id: eventId });
        await insertEvent(database(), {
          id: eventId,
          shopId: shop.id,
          type: "item.added",
          data: "{}",
          createdAt: new Date(),
        });
        const due = { eventId, endpointId: endpoint.id, shopId: shop.id };

        // The relay's transaction, held open after it marked the event and recorded the delivery as owed.
        const relay = holdOpen(async (tx) => {
          const at = new Date();
          expect(await markEventsRelayed(tx, [eventId], at)).toEqual([eventId]);
          await insertDeliveryDues(tx, [due], at);
        });
        await relay.ready;

        // The job, queued before that transaction, runs now (its last attempt, for the failed case).
        let finished = false;
        const delivery = deliverOnce(
          { shopId: shop.id, eventId, eventType: "item.added", endpointId: endpoint.id, body },
          { attemptsMade: outcome === "succeeded" ? 0 : 5, maxAttempts: 6, dispatcher },
        ).finally(() => (finished = true));
        // Either the log waits for the relay (the fix) or it has committed already (the defect): both are
        // states to poll for, not a time to sleep.
        await until(
          async () => finished || (await waitingOnLocks()) > 0,
          Boolean,
          "the delivery's log committed or waiting for the relay",
        );
        relay.release();
        await relay.done;
        expect(await delivery).toMatchObject({ status: outcome === "succeeded" ? "succeeded" : "failed" });

        const owed = await database()
          .selectFrom("WebhookDeliveryDue")
          .selectAll()
          .where("shopId", "=", shop.id)
          .execute();
        expect(owed).toEqual([]);
      } finally {
        await dispatcher.close();
        await receiver.close();
      }
    },
  );
});

describe("the relay and a delivery log taking the same events' locks", () => {
  it("take them in one order (by id), so they wait for each other and never deadlock", async () => {
    const shop = await createShop();
    const [first, second] = [newId("event"), newId("event")].sort() as [string, string];
    // Stored in the other order: a scan in table order meets the second id first.
    for (const id of [second, first]) {
      await insertEvent(database(), { id, shopId: shop.id, type: "item.added", data: "{}", createdAt: new Date() });
    }
    // Another delivery log holds the first event.
    const other = holdOpen((tx) => waitForEventsRelayed(tx, [first]));
    await other.ready;
    // The relay marks both, and waits on the first.
    const relay = database()
      .transaction()
      .execute((tx) => markEventsRelayed(tx, [first, second], new Date()));
    await until(waitingOnLocks, (waiting) => waiting >= 1, "the relay waiting for the other log");
    // A delivery log of both events.
    let logDone = false;
    const log = database()
      .transaction()
      .execute((tx) => waitForEventsRelayed(tx, [first, second]))
      .finally(() => (logDone = true));
    await until(async () => logDone || (await waitingOnLocks()) >= 2, Boolean, "the log finished or waiting");
    other.release();
    await other.done;
    // Both finish: neither is chosen as a deadlock's victim (40P01).
    const outcomes = await Promise.allSettled([relay, log]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "fulfilled"]);
    expect((outcomes[0] as PromiseFulfilledResult<string[]>).value.sort()).toEqual([first, second]);
  });
});
