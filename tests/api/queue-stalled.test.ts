import { afterAll, describe, expect, it } from "vitest";
import { startSilentServer } from "../support/silent-server";

/**
 * A Redis that accepts connections and never answers (a flapping or overloaded server, a black-holing
 * network): starting a job waits for the queue a few seconds at most, then answers 202 with the job
 * accepted; the worker's sweep queues it once Redis answers (docs/decisions/014-imports-exports.md).
 */
const silent = await startSilentServer();
process.env.REDIS_URL = `redis://127.0.0.1:${silent.port}`;
afterAll(() => silent.close());

const { database } = await import("~/data/database.server");
const { createShopWithKey } = await import("../factories");
const { BASE_URL, createTestApp } = await import("../support/http");
const app = await createTestApp();

describe("starting a job while Redis does not answer", () => {
  it("answers 202 within a few seconds, with the job queued and the answer stored for the key", async () => {
    const { shop, secret } = await createShopWithKey();
    const started = Date.now();
    const response = await app.request(`${BASE_URL}/v1/exports`, {
      method: "POST",
      headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json", "Idempotency-Key": "e-1" },
      body: JSON.stringify({ format: "csv" }),
    });
    // Bounded by the 3 s the request waits for the queue, not by Redis (which never answers here); the
    // bound allows for a loaded machine.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(response.status).toBe(202);
    const { jobId } = (await response.json()) as { jobId: string };
    const row = await database()
      .selectFrom("TransferJob")
      .select(["id", "status"])
      .where("shopId", "=", shop.id)
      .executeTakeFirst();
    expect(row).toEqual({ id: jobId, status: "queued" });
    const record = await database()
      .selectFrom("IdempotencyRecord")
      .select(["state", "responseStatus"])
      .where("shopId", "=", shop.id)
      .executeTakeFirst();
    expect(record).toEqual({ state: "completed", responseStatus: 202 });
  });
});
