import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { JOBS, MAINTENANCE_QUEUE, sweepJob } from "~/jobs/definitions";
import { createQueue, queuePrefix } from "~/jobs/queues.server";
import { getRequestRedis } from "~/redis.server";
import { createShopWithKey } from "../factories";
import { BASE_URL, createTestApp } from "../support/http";
import { until } from "../support/poll";
import { startProcess } from "../support/processes";

/**
 * A job row and its Idempotency-Key response commit together (docs/decisions/017-data-layer.md), and a job
 * accepted is a job that runs (docs/decisions/014-imports-exports.md): when Redis cannot take it at once,
 * the answer is still 202, a retry with the same key replays that 202 for a job that exists, and the
 * worker's sweep queues it once Redis takes writes again.
 */
const app = await createTestApp();

describe("an Idempotency-Key on a job that could not be queued at once", () => {
  it("answers 202 with the job queued, replays the same job, and the sweep runs it once Redis is back", async () => {
    const { shop, secret } = await createShopWithKey();
    const post = (key: string) =>
      app.request(`${BASE_URL}/v1/exports`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify({ format: "csv" }),
      });
    const get = async (jobId: string) =>
      app.request(`${BASE_URL}/v1/exports/${jobId}`, { headers: { Authorization: `Bearer ${secret}` } });
    // Redis refuses to queue the job: the queue's metadata key holds a value of the wrong type, so BullMQ's
    // add script fails with WRONGTYPE (as a Redis refusing writes would make it fail).
    const meta = `${queuePrefix()}:${JOBS.transfer.queue}:meta`;
    const redis = getRequestRedis();
    if (redis.status !== "ready") await once(redis, "ready");
    await redis.set(meta, "not a hash");

    const accepted = await post("exp-1");
    expect(accepted.status).toBe(202);
    const { jobId } = (await accepted.json()) as { jobId: string };
    const jobs = await database()
      .selectFrom("TransferJob")
      .select(["id", "status"])
      .where("shopId", "=", shop.id)
      .execute();
    expect(jobs).toEqual([{ id: jobId, status: "queued" }]);
    const records = await database()
      .selectFrom("IdempotencyRecord")
      .select(["state", "responseStatus"])
      .where("shopId", "=", shop.id)
      .execute();
    expect(records).toEqual([{ state: "completed", responseStatus: 202 }]);

    // A retry with the same key (a client that timed out, say) replays the same job, which exists.
    const replayed = await post("exp-1");
    expect(replayed.status).toBe(202);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(await replayed.json()).toEqual({ jobId });
    const queued = await get(jobId);
    expect(queued.status).toBe(200);
    expect(await queued.json()).toMatchObject({ jobId, status: "queued" });

    // Redis takes writes again; the worker's periodic sweep finds the job BullMQ does not hold and queues it.
    await redis.del(meta);
    const transfers = createQueue(JOBS.transfer.queue);
    expect(await transfers.getJob(jobId)).toBeUndefined();
    const worker = startProcess("worker/index.ts", {});
    try {
      await worker.waitForOutput(/worker ready/);
      const job = await until(
        async () => (await (await get(jobId)).json()) as { status: string; resultUrl: string | null },
        (answer) => answer.status === "succeeded" || answer.status === "failed",
        "the swept job finished",
      );
      expect(job).toMatchObject({ status: "succeeded", resultUrl: expect.any(String) });
      expect(worker.output()).toMatch(/transfer jobs queued by the sweep/);

      // The job ran once: BullMQ holds one job under the row's id, completed on its first attempt, and a
      // later sweep leaves the finished row alone.
      const held = await transfers.getJob(jobId);
      expect(held?.attemptsMade).toBe(1);
      expect(await transfers.getJobState(jobId)).toBe("completed");
      const finished = await database()
        .selectFrom("TransferJob")
        .select(["status", "finishedAt", "updatedAt"])
        .where("id", "=", jobId)
        .executeTakeFirstOrThrow();
      // Wait for a sweep that ran wholly after the job finished (the maintenance queue keeps its last runs).
      const maintenance = createQueue(MAINTENANCE_QUEUE);
      const finishedAt = Date.now();
      try {
        await expect
          .poll(
            async () =>
              (await maintenance.getJobs(["completed"])).some(
                (run) => run.name === sweepJob("transfer").name && (run.processedOn ?? 0) > finishedAt,
              ),
            { timeout: 90_000, interval: 250 },
          )
          .toBe(true);
      } finally {
        await maintenance.close();
      }
      const later = await database()
        .selectFrom("TransferJob")
        .select(["status", "finishedAt", "updatedAt"])
        .where("id", "=", jobId)
        .executeTakeFirstOrThrow();
      expect(later).toEqual(finished);
      expect(await transfers.getJobCounts("completed", "waiting", "active", "delayed", "failed")).toEqual({
        completed: 1,
        waiting: 0,
        active: 0,
        delayed: 0,
        failed: 0,
      });

      // And the key still replays the same job, now finished.
      const again = await post("exp-1");
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(await again.json()).toEqual({ jobId });
    } finally {
      expect(await worker.stop()).toBe(0);
      await transfers.close();
    }
  }, 180_000);
});
