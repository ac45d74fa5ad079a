import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { TRANSFER_QUEUE } from "~/jobs/definitions";
import { queuePrefix } from "~/jobs/queues.server";
import { getRequestRedis } from "~/redis.server";
import { createShopWithKey } from "../factories";
import { BASE_URL, createTestApp } from "../support/http";

/**
 * A job row and its Idempotency-Key response commit together (docs/decisions/017-data-layer.md); when the
 * job then cannot be queued, the row is undone and so is the stored answer: a retry with the same key runs
 * again instead of replaying a 202 for a job that does not exist.
 */
const app = await createTestApp();

describe("an Idempotency-Key on a job that could not be queued", () => {
  it("answers 503 and keeps neither the job nor a stored answer, so the retry runs again", async () => {
    const { shop, secret } = await createShopWithKey();
    const post = () =>
      app.request(`${BASE_URL}/v1/exports`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json", "Idempotency-Key": "exp-1" },
        body: JSON.stringify({ format: "csv" }),
      });
    // Redis refuses to queue the job: the queue's metadata key holds a value of the wrong type, so BullMQ's
    // add script fails with WRONGTYPE (as a Redis refusing writes would make it fail).
    const meta = `${queuePrefix()}:${TRANSFER_QUEUE}:meta`;
    const redis = getRequestRedis();
    if (redis.status !== "ready") await once(redis, "ready");
    await redis.set(meta, "not a hash");

    const refused = await post();
    expect(refused.status).toBe(503);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    const jobs = await database().selectFrom("TransferJob").select("id").where("shopId", "=", shop.id).execute();
    expect(jobs).toEqual([]);
    const records = await database()
      .selectFrom("IdempotencyRecord")
      .select(["state", "responseStatus"])
      .where("shopId", "=", shop.id)
      .execute();
    expect(records).toEqual([]);

    const retried = await post();
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(retried.status).toBe(503);

    // Once Redis takes writes again, the same key runs the request and then replays its answer.
    await redis.del(meta);
    const started = await post();
    expect(started.status).toBe(202);
    const replayed = await post();
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(await replayed.json()).toEqual(await started.json());
  });
});
