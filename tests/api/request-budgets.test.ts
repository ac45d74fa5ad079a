import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { database, statementCount } from "~/data/database.server";
import { JOBS } from "~/jobs/definitions";
import { queue } from "~/jobs/queues.server";
import { markUninstalled } from "~/data/shop-rows.server";
import { getRateLimitRedis, getRequestRedis, whenRedisReady } from "~/redis.server";
import { AUTHENTICATION_TTL_MS } from "~/services/keys/authentication-cache.server";
import { createShopWithKey } from "../factories";
import { apiHarness } from "../support/harness";

/**
 * The budgets of the storefront's hot paths (issue 27, docs/decisions/044-request-path-budgets.md): what one
 * toggle or wishlist read may cost in statements and in Redis round trips, held here so that a change
 * that adds one fails a test rather than a flash sale. Counted around one request at a time in-process:
 * statements through the data layer's counter (BEGIN and COMMIT not counted), round trips as the writes
 * the web process's Redis connection makes.
 */
process.env.RATE_LIMIT_STOREFRONT_PER_MINUTE = "100000";

const { callsOf } = await apiHarness();

/**
 * Writes to the web process's Redis sockets (the shared connection and the rate limiters'): each is one round
 * trip (commands sent together, replies awaited).
 */
function countRedisWrites() {
  let writes = 0;
  const restores = [getRequestRedis(), getRateLimitRedis()].map((redis) => {
    const stream = (redis as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
    const write = stream.write;
    stream.write = function (this: unknown, ...args: unknown[]) {
      writes++;
      return write.apply(this, args);
    };
    return () => void (stream.write = write);
  });
  return {
    get writes() {
      return writes;
    },
    restore: () => restores.forEach((restore) => restore()),
  };
}

let restore = () => {};
afterEach(() => restore());

async function measured(call: () => Promise<Response>) {
  await Promise.all([whenRedisReady(getRequestRedis(), 5_000), whenRedisReady(getRateLimitRedis(), 5_000)]);
  const redis = countRedisWrites();
  restore = redis.restore;
  const before = statementCount();
  const response = await call();
  const body = await response.json();
  const statements = statementCount() - before;
  redis.restore();
  return { status: response.status, body, statements, redisRoundTrips: redis.writes };
}

/**
 * Waits until the shop's product snapshot run is queued: a save queues it after answering (best effort,
 * not awaited), and its Redis write must not land inside the next request measured.
 */
async function snapshotRunQueued(shopId: string) {
  const products = queue(JOBS.productSnapshot.queue);
  await expect
    .poll(() => products.getDeduplicationJobId(`products-${shopId}`), { timeout: 30_000, interval: 20 })
    .not.toBeNull();
}

async function guestOfNewShop() {
  const { shop, secret } = await createShopWithKey();
  const calls = callsOf({ shop, secret });
  const aid = randomUUID();
  const toggle = (productId: string, via: "public" | "proxy" = "public") =>
    via === "public"
      ? calls.publicCall("/storefront/wishlist/toggle", {
          method: "POST",
          body: { productId, handle: `p${productId}`, anonymousId: aid },
        })
      : calls.proxyCall("/storefront/wishlist/toggle", null, {
          method: "POST",
          body: { productId, handle: `p${productId}`, anonymousId: aid },
        });
  const read = (via: "public" | "proxy" = "public") =>
    via === "public"
      ? calls.publicCall(`/storefront/wishlist?aid=${aid}`)
      : calls.proxyCall("/storefront/wishlist", null, { query: { aid } });
  return { shop, calls, toggle, read };
}

describe("the storefront's request budgets", () => {
  for (const via of ["public", "proxy"] as const) {
    it(`${via}: a read costs two statements (list, items) and one Redis round trip (both rate limits)`, async () => {
      const { shop, toggle, read } = await guestOfNewShop();
      // The list exists, with an item; the shop row is remembered from these calls.
      expect((await toggle("101", via)).status).toBe(200);
      await snapshotRunQueued(shop.id);
      const { status, body, statements, redisRoundTrips } = await measured(() => read(via));
      expect(status).toBe(200);
      expect(body.count).toBe(1);
      expect(statements).toBe(2);
      expect(redisRoundTrips).toBe(1);
    });

    it(`${via}: a toggle that removes costs four statements and one Redis round trip`, async () => {
      const { shop, toggle } = await guestOfNewShop();
      expect((await toggle("202", via)).status).toBe(200);
      await snapshotRunQueued(shop.id);
      const { status, body, statements, redisRoundTrips } = await measured(() => toggle("202", via));
      expect(status).toBe(200);
      expect(body).toMatchObject({ added: false, count: 0 });
      // Lock the list, delete the item, touch the list and count, write the event.
      expect(statements).toBe(4);
      expect(redisRoundTrips).toBe(1);
    });

    it(`${via}: a toggle that saves costs six statements; the first save of a shop's new shopper nine`, async () => {
      const { shop, toggle } = await guestOfNewShop();
      const first = await measured(() => toggle("303", via));
      expect(first.body).toMatchObject({ added: true, count: 1 });
      // The shop (not remembered yet), find the list, create it, find it again, then as below.
      expect(first.statements).toBe(9);
      await snapshotRunQueued(shop.id);
      const second = await measured(() => toggle("304", via));
      expect(second.body).toMatchObject({ added: true, count: 2 });
      // Lock the list, delete (nothing), the product's catalogue title from other items, insert the item,
      // touch and count, write the event.
      expect(second.statements).toBe(6);
      // The rate limits, then the product snapshot run queued after answering (BullMQ's deduplicated add).
      expect(second.redisRoundTrips).toBeLessThanOrEqual(2);
    });
  }

  it("a shop's row is read by its first request, not by the next ones within a second", async () => {
    const { read } = await guestOfNewShop();
    // A shopper with no list: the shop, then the list lookup; then the list lookup alone.
    const first = await measured(() => read());
    expect(first.status).toBe(200);
    expect(first.statements).toBe(2);
    const next = await measured(() => read());
    expect(next.status).toBe(200);
    expect(next.statements).toBe(1);
  });
});

describe("the bound on a remembered shop", () => {
  it("an uninstall made by another process is refused within AUTHENTICATION_TTL_MS", async () => {
    const { shop, read } = await guestOfNewShop();
    expect((await read()).status).toBe(200);
    // As the worker or another web process would: straight to the row, not through this process's services.
    await markUninstalled(database(), shop.domain, new Date(), null);
    await new Promise((resolve) => setTimeout(resolve, AUTHENTICATION_TTL_MS + 50));
    const refused = await read();
    expect(refused.status).toBe(403);
    expect((await refused.json()).type).toMatch(/shop-uninstalled$/);
  });

  it("a private key revoked by another process is refused within AUTHENTICATION_TTL_MS", async () => {
    const { shop, key, secret } = await createShopWithKey();
    const { privateCall } = callsOf({ shop, secret });
    expect((await privateCall("/shop")).status).toBe(200);
    await database()
      .updateTable("ApiKey")
      .set({ revokedAt: new Date() })
      .where("id", "=", key.id)
      .where("shopId", "=", shop.id)
      .execute();
    await new Promise((resolve) => setTimeout(resolve, AUTHENTICATION_TTL_MS + 50));
    expect((await privateCall("/shop")).status).toBe(401);
  });
});
