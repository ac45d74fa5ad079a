import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { database, transaction } from "~/data/database.server";
import { findShopById } from "~/data/shop-rows.server";
import { BUSY_RETRY_BOUND_MS, sqliteWriteLock } from "~/data/sqlite-lock.server";
import { newId } from "~/lib/ids";
import { TEST_DATA_DIR } from "../../scripts/lib/databases";
import { createShopWithKey } from "../factories";
import { holdWriteLockElsewhere } from "../support/hold-write-lock";
import { BASE_URL, createTestApp } from "../support/http";

/**
 * The data layer's write lock on SQLite (docs/decisions/016-sqlite-writers.md and
 * docs/decisions/017-data-layer.md), in-process: what happens at its edges. The same cases run on PostgreSQL, which needs no such lock.
 */
const engine = inject("engine");
const app = await createTestApp();

/** Counts turns of the event loop (a timer every 10 ms) while `work` runs. */
async function countingTurns<T>(work: () => Promise<T>): Promise<{ result: T; turns: number; ms: number }> {
  let turns = 0;
  const timer = setInterval(() => turns++, 10);
  const started = performance.now();
  try {
    const result = await work();
    return { result, turns, ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

function storefrontToggle(shop: { domain: string; publicKey: string }) {
  return app.request(`${BASE_URL}/v1/storefront/wishlist/toggle`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Service-Shop": shop.domain,
      "X-Service-Public-Key": shop.publicKey,
    },
    body: JSON.stringify({ productId: "1", handle: "one", anonymousId: randomUUID() }),
  });
}

const setSettings = (shopId: string, settings: string, q = database()) =>
  q.updateTable("Shop").set({ settings, updatedAt: new Date() }).where("id", "=", shopId).executeTakeFirst();
const settingsOf = async (shopId: string) => (await findShopById(database(), shopId))!.settings;
const keysLabelled = async (shopId: string, label: string) =>
  (await database().selectFrom("ApiKey").select("id").where("shopId", "=", shopId).where("label", "=", label).execute())
    .length;

describe("the write lock at its edges", () => {
  it("a write through the shared handle inside a transaction fails at once instead of waiting for itself", async () => {
    const { shop } = await createShopWithKey();
    const nested = transaction(async (tx) => {
      await setSettings(shop.id, "{}", tx);
      return database()
        .insertInto("ApiKey")
        .values({
          id: newId("apiKey"),
          shopId: shop.id,
          label: "nested",
          hash: randomUUID(),
          hint: "test",
          createdAt: new Date(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    if (engine === "sqlite") {
      await expect(nested).rejects.toThrow(/inside a transaction/);
      expect(await keysLabelled(shop.id, "nested")).toBe(0);
    } else {
      // PostgreSQL: separate pooled connections, row locks only; nothing to wait for.
      await expect(nested).resolves.toMatchObject({ label: "nested" });
    }
    // The lock is free again.
    await setSettings(shop.id, "{}");
    expect((await storefrontToggle(shop)).status).toBe(200);
  });

  it("without the nested-write check (production), a write waiting for its own flow's lock gives up (unavailable, a 503 at the edge) after the bound", async () => {
    // A lock of its own (another file name), as production makes it: no AsyncLocalStorage, a bounded wait.
    const lock = sqliteWriteLock(`${TEST_DATA_DIR}/nested-${randomUUID()}.db`, {
      guardNesting: false,
      waitBoundMs: 1_000,
    });
    const release = await lock.acquire();
    const started = performance.now();
    const nested = lock.holding(async () => lock.acquire());
    await expect(nested).rejects.toMatchObject({ code: "unavailable", retryAfterSeconds: 1 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    release();
    // Free again: the next write gets it at once.
    (await lock.acquire())();
  });

  it("a transaction holds the lock to its end; one that throws rolls back and frees it", async () => {
    const { shop } = await createShopWithKey();
    let begun!: () => void;
    const inside = new Promise<void>((resolve) => (begun = resolve));
    const running = transaction(async (tx) => {
      await setSettings(shop.id, "{}", tx);
      begun();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await setSettings(shop.id, '{"guestEnabled":false}', tx);
    });
    await inside;
    // A write started meanwhile, outside the transaction, waits (asynchronously) for it to end.
    const direct = setSettings(shop.id, '{"guestEnabled":true}');
    await running;
    expect(Number((await direct).numUpdatedRows)).toBe(1);
    expect(await settingsOf(shop.id)).toBe('{"guestEnabled":true}');

    await expect(
      transaction(async (tx) => {
        await setSettings(shop.id, "{}", tx);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await settingsOf(shop.id)).toBe('{"guestEnabled":true}');
    expect((await storefrontToggle(shop)).status).toBe(200);
  });

  it("a database that another connection keeps busy beyond the retry bound gives 503 problems, never a 500, without blocking", async () => {
    const { shop, secret } = await createShopWithKey();
    const headers = { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" };
    const release = await holdWriteLockElsewhere();
    let responses: Response[];
    let turns: number;
    let ms: number;
    try {
      const writes = () =>
        Promise.all([
          app.request(`${BASE_URL}/v1/keys`, { method: "POST", headers, body: JSON.stringify({ label: "busy" }) }),
          app.request(`${BASE_URL}/v1/shop/settings`, {
            method: "PATCH",
            headers,
            body: JSON.stringify({ headlessOrigins: ["https://busy.example"] }),
          }),
          storefrontToggle(shop),
        ]);
      if (engine === "sqlite") {
        ({ result: responses, turns, ms } = await countingTurns(writes));
      } else {
        // PostgreSQL waits in the server, asynchronously, for as long as the lock is held.
        ({
          result: responses,
          turns,
          ms,
        } = await countingTurns(async () => {
          const running = writes();
          await new Promise((resolve) => setTimeout(resolve, 2_000));
          await release();
          return running;
        }));
      }
    } finally {
      await release();
    }

    if (engine === "sqlite") {
      expect(responses.map((response) => response.status)).toEqual([503, 503, 503]);
      for (const response of responses) {
        expect(response.headers.get("retry-after")).toBe("1");
        expect(await response.json()).toMatchObject({
          type: expect.stringMatching(/\/problems\/service-unavailable$/),
        });
      }
      expect(ms).toBeGreaterThanOrEqual(BUSY_RETRY_BOUND_MS);
      expect(await keysLabelled(shop.id, "busy")).toBe(0);
    } else {
      expect(responses.map((response) => response.status)).toEqual([201, 200, 200]);
    }
    // The event loop kept turning throughout (a synchronous wait would leave it at a handful of turns).
    expect(turns).toBeGreaterThan(ms / 10 / 10);
    // And once the lock is free, writes go through at once.
    expect((await storefrontToggle(shop)).status).toBe(200);
  });
});
