import { QueueEvents } from "bullmq";
import { describe, expect, it } from "vitest";
import { JOBS, MAINTENANCE_QUEUE, sweepJob } from "~/jobs/definitions";
import { createQueue, queuePrefix } from "~/jobs/queues.server";
import { createRedis } from "~/redis.server";
import { until } from "../support/poll";
import { freePort, startProcess } from "../support/processes";

// The real entry points as separate processes, on this file's database and Redis prefix.
describe("web process", () => {
  it("starts on the built app, answers /readyz 200, and exits 0 on SIGTERM", async () => {
    const port = await freePort();
    const web = startProcess("server/index.ts", { NODE_ENV: "test", PORT: String(port), HOST: "127.0.0.1" });
    try {
      await web.waitForOutput(/web server listening/);
      // Polled, as a load balancer does: the first check opens the connections, which a loaded machine may
      // take longer than the check's 2 s to do.
      const ready = await until(
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/readyz`);
          return { status: response.status, body: await response.json() };
        },
        (answer) => answer.status === 200,
        "the web process ready",
      );
      expect(ready.body).toEqual({ status: "ready", checks: { database: "ok", redis: "ok" } });
      const page = await fetch(`http://127.0.0.1:${port}/problems/not-found`);
      expect(page.status).toBe(200);
    } finally {
      expect(await web.stop()).toBe(0);
    }
    expect(web.output()).toContain("web server stopping");
  });
});

describe("worker process", () => {
  it("connects, consumes a health job, and shuts down cleanly on SIGTERM", async () => {
    const worker = startProcess("worker/index.ts", {});
    const connection = createRedis("worker");
    const queue = createQueue(JOBS.health.queue, connection);
    const events = new QueueEvents(JOBS.health.queue, { connection: createRedis("worker"), prefix: queuePrefix() });
    try {
      await worker.waitForOutput(/worker ready/);
      await events.waitUntilReady();
      const requestedAt = new Date().toISOString();
      const job = await queue.add(JOBS.health.name, { requestedAt }, JOBS.health.options);
      const result = await job.waitUntilFinished(events, 90_000);
      expect(result).toMatchObject({ ok: true, requestedAt });

      // The hourly purges of expired idempotency keys and transfer files, the daily purge of old events, the
      // alerts' hourly maintenance and the sweeps of stranded transfer jobs, compliance requests, owed metafield
      // writes, product snapshot runs, alerts readings, alert emails and the reminders' runs are scheduled.
      const maintenance = createQueue(MAINTENANCE_QUEUE, connection);
      const schedulers = await maintenance.getJobSchedulers();
      expect(
        schedulers.map(({ key, name, every }) => ({ key, name, every })).sort((a, b) => a.key.localeCompare(b.key)),
      ).toEqual([
        {
          key: sweepJob("alertSend").schedulerId,
          name: sweepJob("alertSend").name,
          every: sweepJob("alertSend").everyMs,
        },
        {
          key: sweepJob("alertRemind").schedulerId,
          name: sweepJob("alertRemind").name,
          every: sweepJob("alertRemind").everyMs,
        },
        {
          key: JOBS.alertsMaintenance.schedule.schedulerId,
          name: JOBS.alertsMaintenance.name,
          every: JOBS.alertsMaintenance.schedule.everyMs,
        },
        {
          key: sweepJob("alertRefresh").schedulerId,
          name: sweepJob("alertRefresh").name,
          every: sweepJob("alertRefresh").everyMs,
        },
        {
          key: sweepJob("compliance").schedulerId,
          name: sweepJob("compliance").name,
          every: sweepJob("compliance").everyMs,
        },
        {
          key: JOBS.eventsPurge.schedule.schedulerId,
          name: JOBS.eventsPurge.name,
          every: JOBS.eventsPurge.schedule.everyMs,
        },
        {
          key: JOBS.filesPurge.schedule.schedulerId,
          name: JOBS.filesPurge.name,
          every: JOBS.filesPurge.schedule.everyMs,
        },
        {
          key: JOBS.idempotencyPurge.schedule.schedulerId,
          name: JOBS.idempotencyPurge.name,
          every: JOBS.idempotencyPurge.schedule.everyMs,
        },
        {
          key: sweepJob("metafieldSync").schedulerId,
          name: sweepJob("metafieldSync").name,
          every: sweepJob("metafieldSync").everyMs,
        },
        {
          key: sweepJob("productSnapshot").schedulerId,
          name: sweepJob("productSnapshot").name,
          every: sweepJob("productSnapshot").everyMs,
        },
        { key: sweepJob("transfer").schedulerId, name: sweepJob("transfer").name, every: sweepJob("transfer").everyMs },
      ]);
      await maintenance.close();
    } finally {
      await events.close();
      await queue.close();
      await connection.quit();
    }
    expect(await worker.stop()).toBe(0);
    expect(worker.output()).toContain("worker stopped");
  });
});

describe("web process on a busy port", () => {
  it("exits 1 with a clear message instead of a stack trace", async () => {
    const port = await freePort();
    const first = startProcess("server/index.ts", { NODE_ENV: "test", PORT: String(port), HOST: "127.0.0.1" });
    try {
      await first.waitForOutput(/web server listening/);
      const second = startProcess("server/index.ts", { NODE_ENV: "test", PORT: String(port), HOST: "127.0.0.1" });
      const code = await new Promise<number | null>((resolve) => second.child.once("exit", resolve));
      expect(code).toBe(1);
      expect(second.output()).toContain(`port ${port} is already in use: stop the other process or set PORT`);
      expect(second.output()).not.toContain("    at ");
    } finally {
      await first.stop();
    }
  });
});
