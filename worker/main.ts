import { Worker } from "bullmq";
import { closeDatabase, database } from "../app/data/database.server";
import {
  COMPLIANCE_QUEUE,
  HEALTH_QUEUE,
  MAINTENANCE_QUEUE,
  METAFIELD_QUEUE,
  PRODUCT_QUEUE,
  purgeEventsJob,
  purgeFilesJob,
  purgeIdempotencyJob,
  sweepComplianceRequestsJob,
  sweepMetafieldsJob,
  sweepProductSnapshotsJob,
  sweepTransferJobsJob,
  TRANSFER_QUEUE,
  WEBHOOK_QUEUE,
} from "../app/jobs/definitions";
import { enqueueMetafieldSync, queue, queuePrefix } from "../app/jobs/queues.server";
import { getEnv } from "../app/env.server";
import { logger } from "../app/logger.server";
import { createRedis } from "../app/redis.server";
import { handleHealthJob } from "./handlers/health-jobs";
import { fanOutEvents } from "../app/services/webhooks/fanout.server";
import { requeueOverdueDeliveries } from "../app/services/webhooks/reconcile.server";
import { createDeliveryAgent } from "../app/services/webhooks/ssrf.server";
import { handleMaintenanceJob } from "./handlers/maintenance";
import { createComplianceHandler, watchComplianceWorker } from "./handlers/compliance-jobs";
import { handleMetafieldJob } from "./handlers/metafield-jobs";
import { createProductSnapshotHandler, productSnapshotBackoff } from "./handlers/product-jobs";
import { createWebhookHandler, webhookBackoff } from "./handlers/webhook-jobs";
import { handleTransferJob, watchTransferWorker } from "./handlers/transfer-jobs";
import { startHeartbeat } from "./heartbeat";
import { startOutboxRelay } from "./outbox-loop";
import { isRoutineFailure } from "./outcomes";
import { ShopSlots } from "./shop-slots";

/** Starts every queue consumer of the worker process and closes them cleanly on SIGTERM/SIGINT. */
export async function startWorker() {
  database(); // opens the data layer's handle (SQLite: the connections, with their PRAGMAs)
  const connection = createRedis("worker");
  connection.on("error", (error) => logger.warn({ err: error }, "redis connection error"));

  const env = getEnv();
  // Deliveries finish by the hundred per second, each with a BullMQ script call: auto-pipelining sends the
  // commands issued in one tick in one write.
  const deliveryConnection = createRedis("worker", { enableAutoPipelining: true });
  deliveryConnection.on("error", (error) => logger.warn({ err: error }, "redis connection error"));
  const agent = createDeliveryAgent(env.WEBHOOK_CONCURRENCY);
  const transfers = new Worker(TRANSFER_QUEUE, handleTransferJob, {
    connection,
    prefix: queuePrefix(),
    concurrency: env.TRANSFER_CONCURRENCY,
    lockDuration: env.WORKER_LOCK_DURATION_MS,
    stalledInterval: Math.min(env.WORKER_LOCK_DURATION_MS, 30_000),
    // A job whose worker died runs again; one that stopped its worker three times is given up (and its
    // row marked failed by watchTransferWorker).
    maxStalledCount: 2,
  });
  const compliance = new Worker(COMPLIANCE_QUEUE, createComplianceHandler(connection), {
    connection,
    prefix: queuePrefix(),
    concurrency: 1,
    lockDuration: env.WORKER_LOCK_DURATION_MS,
  });
  const workers = [
    new Worker(WEBHOOK_QUEUE, createWebhookHandler(agent, new ShopSlots(env.WEBHOOK_SHOP_CONCURRENCY)), {
      connection: deliveryConnection,
      prefix: queuePrefix(),
      concurrency: env.WEBHOOK_CONCURRENCY,
      lockDuration: env.WORKER_LOCK_DURATION_MS,
      stalledInterval: Math.min(env.WORKER_LOCK_DURATION_MS, 30_000),
      // A job whose worker died is taken up again; only a job that keeps killing workers is given up.
      maxStalledCount: 5,
      settings: { backoffStrategy: webhookBackoff },
    }),
    transfers,
    compliance,
    // Per shop: a few shops' syncs at once, each paced by its own platform rate limit.
    new Worker(METAFIELD_QUEUE, handleMetafieldJob, {
      connection,
      prefix: queuePrefix(),
      concurrency: 4,
      lockDuration: env.WORKER_LOCK_DURATION_MS,
    }),
    new Worker(PRODUCT_QUEUE, createProductSnapshotHandler(connection), {
      connection,
      prefix: queuePrefix(),
      // Shops run side by side (one shop's runs never overlap: its jobs share a deduplication id).
      concurrency: 4,
      lockDuration: env.WORKER_LOCK_DURATION_MS,
      settings: { backoffStrategy: productSnapshotBackoff },
    }),
    new Worker(HEALTH_QUEUE, handleHealthJob, { connection, prefix: queuePrefix(), concurrency: 1 }),
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
    for (const job of [
      purgeIdempotencyJob,
      purgeEventsJob,
      purgeFilesJob,
      sweepTransferJobsJob,
      sweepComplianceRequestsJob,
      sweepMetafieldsJob,
      sweepProductSnapshotsJob,
    ]) {
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
  const transferQueue = queue(TRANSFER_QUEUE, connection);
  watchTransferWorker(transfers, transferQueue);
  watchComplianceWorker(compliance);
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  const webhooks = queue(WEBHOOK_QUEUE, connection);
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
    await Promise.all([maintenance.close(), webhooks.close(), transferQueue.close()]);
    await agent.close();
    await connection.quit().catch(() => connection.disconnect());
    await deliveryConnection.quit().catch(() => deliveryConnection.disconnect());
    await closeDatabase();
    logger.info("worker stopped");
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}
