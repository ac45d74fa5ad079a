import { Worker } from "bullmq";
import { closeDatabase, database } from "~/data/database.server";
import { CONSUMED_KINDS, JOBS, MAINTENANCE_QUEUE, SCHEDULED_JOBS } from "~/jobs/definitions";
import { enqueueMetafieldSync, queue, queuePrefix } from "~/jobs/queues.server";
import { getEnv } from "~/env.server";
import { logger } from "~/logger.server";
import { createRedis } from "~/redis.server";
import { fanOutEvents } from "~/services/webhooks/fanout.server";
import { requeueOverdueDeliveries } from "~/services/webhooks/reconcile.server";
import { JOB_HANDLERS } from "./handlers/index";
import { handleMaintenanceJob } from "./handlers/maintenance";
import { startHeartbeat } from "./heartbeat";
import type { Consumer } from "./job-handler";
import { startOutboxRelay } from "./outbox-loop";
import { isRoutineFailure } from "./outcomes";

/**
 * Starts every queue consumer of the worker process and closes them cleanly on SIGTERM/SIGINT: one BullMQ
 * worker per consumed kind of the job table (app/jobs/definitions.ts), run by its handler
 * (./handlers/index.ts), and the maintenance queue's, with its schedules.
 */
export async function startWorker() {
  database(); // opens the data layer's handle (SQLite: the connections, with their PRAGMAs)
  const connection = createRedis("worker");
  connection.on("error", (error) => logger.warn({ err: error }, "redis connection error"));

  const env = getEnv();
  const consumers = CONSUMED_KINDS.map((kind) => {
    const { queue: name, consumer } = JOBS[kind];
    const bound: Consumer = JOB_HANDLERS[kind].consume({ connection, env });
    const worker = new Worker(name, bound.run, {
      connection: bound.connection ?? connection,
      prefix: queuePrefix(),
      concurrency: consumer.concurrency(env),
      ...("locked" in consumer && { lockDuration: env.WORKER_LOCK_DURATION_MS }),
      ...("maxStalledCount" in consumer && {
        stalledInterval: Math.min(env.WORKER_LOCK_DURATION_MS, 30_000),
        maxStalledCount: consumer.maxStalledCount,
      }),
      ...(bound.backoffStrategy && { settings: { backoffStrategy: bound.backoffStrategy } }),
    });
    return { worker, bound };
  });
  const workers = [
    ...consumers.map(({ worker }) => worker),
    new Worker(MAINTENANCE_QUEUE, (job) => handleMaintenanceJob(job, connection), {
      connection,
      prefix: queuePrefix(),
      concurrency: 1,
    }),
  ];
  // Idempotent: every worker process upserts the same scheduler, and BullMQ keeps one schedule. Again after
  // each reconnection: a Redis that comes back empty (no persistence, a failover) has lost the schedules.
  const maintenance = queue(MAINTENANCE_QUEUE, connection);
  const ensureSchedules = async () => {
    for (const job of SCHEDULED_JOBS) {
      await maintenance.upsertJobScheduler(
        job.schedulerId,
        { every: job.everyMs },
        { name: job.name, opts: job.options },
      );
    }
  };
  await ensureSchedules();
  connection.on("ready", () => {
    ensureSchedules().catch((error: unknown) => logger.warn({ err: error }, "job schedules not restored"));
  });
  for (const worker of workers) {
    worker.on("failed", (job, error) => {
      // A receiver answering non-2xx is routine (it is retried and logged per delivery), not a worker error.
      if (isRoutineFailure(error))
        logger.info({ queue: worker.name, jobId: job?.id, reason: error.message }, "delivery failed");
      else logger.error({ err: error, queue: worker.name, jobId: job?.id }, "job failed");
    });
  }
  for (const { worker, bound } of consumers) bound.watch?.(worker);
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  const webhooks = queue(JOBS.webhookDelivery.queue, connection);
  const relay = startOutboxRelay({
    intervalMs: env.OUTBOX_RELAY_INTERVAL_MS,
    fanOut: (events) => fanOutEvents(webhooks, events),
    requeue: {
      afterMs: env.WEBHOOK_REQUEUE_AFTER_MS,
      limit: 1_000,
      run: (limit) => requeueOverdueDeliveries(webhooks, { graceMs: env.WEBHOOK_REQUEUE_AFTER_MS, limit }),
    },
    onMetafieldsOwed: (shopIds) => enqueueMetafieldSync(shopIds, { connection }),
  });
  const heartbeat = env.WORKER_HEALTH_FILE ? startHeartbeat(env.WORKER_HEALTH_FILE, connection) : undefined;
  logger.info({ queues: workers.map((worker) => worker.name) }, "worker ready");

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "worker stopping: finishing active jobs");
    await heartbeat?.stop();
    // close() waits for active jobs to finish and takes no new ones.
    await Promise.all([relay.stop(), ...workers.map((worker) => worker.close())]);
    await Promise.all([maintenance.close(), webhooks.close(), ...consumers.map(({ bound }) => bound.close?.())]);
    await connection.quit().catch(() => connection.disconnect());
    await closeDatabase();
    logger.info("worker stopped");
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}
