import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database, engine, isUniqueViolation, transaction } from "~/data/database.server";
import {
  completeIdempotencyRecord,
  deleteExpiredIdempotencyRecords,
  deleteIdempotencyRecord,
  deleteInFlightIdempotencyRecord,
  findIdempotencyRecord,
  insertIdempotencyRecord,
} from "~/data/idempotency-rows.server";
import { upsertShop } from "~/data/shop-rows.server";
import { newId } from "~/lib/ids";

/** IdempotencyRecord statements on both engines: one record per scope, completion once, shop scoping. */
async function newShop() {
  const shop = {
    id: newId("shop"),
    domain: `idem-${randomBytes(4).toString("hex")}.myshopify.com`,
    publicKey: `svc_pk_${randomBytes(12).toString("hex")}`,
    settings: "{}",
  };
  return upsertShop(database(), shop, new Date());
}

const HOUR = 60 * 60 * 1000;
const response = { responseStatus: 201, responseHeaders: '{"content-type":"application/json"}', responseBody: "x" };

async function reserve(shopId: string, key = randomBytes(4).toString("hex"), expiresAt = new Date(Date.now() + HOUR)) {
  const scope = { shopId, credentialId: "key_x", key };
  const id = await insertIdempotencyRecord(database(), scope, "hash", new Date(), expiresAt);
  return { scope, id };
}

describe(`idempotency record rows (${engine()})`, () => {
  it("reserves a record in flight, with its timestamps to the millisecond", async () => {
    const shop = await newShop();
    const scope = { shopId: shop.id, credentialId: "public:a:1", key: "k1" };
    const at = new Date("2026-01-02T03:04:05.006Z");
    const expiresAt = new Date("2026-01-03T03:04:05.006Z");
    const id = await insertIdempotencyRecord(database(), scope, "hash-1", at, expiresAt);
    expect(await findIdempotencyRecord(database(), scope)).toEqual({
      id,
      ...scope,
      requestHash: "hash-1",
      state: "in_flight",
      responseStatus: null,
      responseHeaders: null,
      responseBody: null,
      createdAt: at,
      expiresAt,
    });
  });

  it("refuses a second reservation of one scope; concurrent reservations: exactly one wins", async () => {
    const shop = await newShop();
    const { scope } = await reserve(shop.id, "dup");
    const error = await insertIdempotencyRecord(database(), scope, "h", new Date(), new Date()).catch(
      (e: unknown) => e,
    );
    expect(isUniqueViolation(error)).toBe(true);

    const race = { ...scope, key: "race" };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, () => insertIdempotencyRecord(database(), race, "h", new Date(), new Date())),
    );
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") expect(isUniqueViolation(outcome.reason)).toBe(true);
    }
  });

  it("the same key in another shop or scope is another record", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    const { scope } = await reserve(shop.id, "shared");
    await insertIdempotencyRecord(database(), { ...scope, shopId: other.id }, "h", new Date(), new Date());
    await insertIdempotencyRecord(database(), { ...scope, credentialId: "key_y" }, "h", new Date(), new Date());
    expect(await findIdempotencyRecord(database(), { ...scope, credentialId: "key_z" })).toBeUndefined();
  });

  it("completes a record once, only in its own shop, and only while in flight", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    const { scope, id } = await reserve(shop.id);
    expect(await completeIdempotencyRecord(database(), other.id, id, response)).toBe(false);
    expect(await completeIdempotencyRecord(database(), shop.id, id, response)).toBe(true);
    expect(await completeIdempotencyRecord(database(), shop.id, id, { ...response, responseStatus: 500 })).toBe(false);
    expect(await findIdempotencyRecord(database(), scope)).toMatchObject({ state: "completed", ...response });
  });

  it("a completion inside a transaction that fails is rolled back with it", async () => {
    const shop = await newShop();
    const { scope, id } = await reserve(shop.id);
    const failed = transaction(async (tx) => {
      await completeIdempotencyRecord(tx, shop.id, id, response);
      throw new Error("rolled back");
    });
    await expect(failed).rejects.toThrow("rolled back");
    expect(await findIdempotencyRecord(database(), scope)).toMatchObject({ state: "in_flight", responseStatus: null });
  });

  it("releases only a record in flight, and only in its own shop", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    const inFlight = await reserve(shop.id);
    await deleteInFlightIdempotencyRecord(database(), other.id, inFlight.id);
    expect(await findIdempotencyRecord(database(), inFlight.scope)).toBeDefined();
    await deleteInFlightIdempotencyRecord(database(), shop.id, inFlight.id);
    expect(await findIdempotencyRecord(database(), inFlight.scope)).toBeUndefined();

    const completed = await reserve(shop.id);
    await completeIdempotencyRecord(database(), shop.id, completed.id, response);
    await deleteInFlightIdempotencyRecord(database(), shop.id, completed.id);
    expect(await findIdempotencyRecord(database(), completed.scope)).toMatchObject({ state: "completed" });
  });

  it("deletes a record, with a time only if it expired by then", async () => {
    const shop = await newShop();
    const now = new Date();
    const fresh = await reserve(shop.id, "fresh", new Date(now.getTime() + HOUR));
    await deleteIdempotencyRecord(database(), shop.id, fresh.id, now);
    expect(await findIdempotencyRecord(database(), fresh.scope)).toBeDefined();
    const expired = await reserve(shop.id, "expired", new Date(now.getTime() - 1));
    await deleteIdempotencyRecord(database(), shop.id, expired.id, now);
    expect(await findIdempotencyRecord(database(), expired.scope)).toBeUndefined();
    await deleteIdempotencyRecord(database(), shop.id, fresh.id);
    expect(await findIdempotencyRecord(database(), fresh.scope)).toBeUndefined();
  });

  it("purges records expired by the time given, of every shop, to the millisecond", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    const now = new Date("2030-01-01T00:00:00.500Z");
    const due = await reserve(shop.id, "due", new Date("2030-01-01T00:00:00.500Z"));
    const dueElsewhere = await reserve(other.id, "due", new Date("2030-01-01T00:00:00.499Z"));
    const kept = await reserve(shop.id, "kept", new Date("2030-01-01T00:00:00.501Z"));
    expect(await deleteExpiredIdempotencyRecords(database(), now)).toBeGreaterThanOrEqual(2);
    expect(await findIdempotencyRecord(database(), due.scope)).toBeUndefined();
    expect(await findIdempotencyRecord(database(), dueElsewhere.scope)).toBeUndefined();
    expect(await findIdempotencyRecord(database(), kept.scope)).toBeDefined();
  });
});
