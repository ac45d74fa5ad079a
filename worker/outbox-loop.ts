/**
 * Runs the outbox relay in a loop (docs/decisions/012-storefront-hot-paths.md): a full batch is followed
 * at once by the next, an empty or partial one by a pause. A failure (database or Redis away) is logged
 * and retried after the pause; the events stay pending meanwhile, so nothing is lost. Several worker
 * processes may run it: an event is claimed by exactly one relay. At start and every half `requeue.afterMs`
 * the loop also queues again the deliveries Redis lost (docs/decisions/025-queue-reconciliation.md); a pass
 * that took its whole `requeue.limit` is followed at once by the next, so a large loss (a Redis that came
 * back empty under a backlog) is queued again at the pace of the database, not `limit` per half period.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { checkpoint } from "~/data/database.server";
import { logger } from "~/logger.server";
import { relayOutbox, type RelayOptions } from "~/services/events/relay.server";

const CHECKPOINT_EVERY_MS = 200;

export function startOutboxRelay({
  intervalMs,
  requeue,
  ...options
}: RelayOptions & {
  intervalMs: number;
  requeue?: { afterMs: number; limit: number; run: (limit: number) => Promise<number> };
}) {
  const controller = new AbortController();
  const batchSize = options.batchSize ?? 500;
  let checkpointedAt = 0;
  let requeuedAt = 0;
  let requeueAgain = false;
  const done = (async () => {
    while (!controller.signal.aborted) {
      let taken = 0;
      try {
        taken = await relayOutbox({ ...options, batchSize });
      } catch (error) {
        logger.error({ err: error }, "outbox relay failed; retrying");
      }
      if (requeue && (requeueAgain || Date.now() - requeuedAt >= requeue.afterMs / 2)) {
        requeuedAt = Date.now();
        const count = await requeue.run(requeue.limit).catch((error: unknown) => {
          logger.error({ err: error }, "queueing overdue deliveries again failed; retrying");
          return 0;
        });
        if (count > 0) logger.warn({ deliveries: count }, "webhook deliveries owed but overdue: queued again");
        requeueAgain = count >= requeue.limit;
      }
      // SQLite: keep the WAL short here, so that the web process's commits rarely checkpoint (decision 012
      // above); at most five times a second, since each checkpoint copies pages and syncs the file.
      if (Date.now() - checkpointedAt >= CHECKPOINT_EVERY_MS) {
        checkpointedAt = Date.now();
        await checkpoint().catch((error: unknown) => logger.warn({ err: error }, "WAL checkpoint failed"));
      }
      if (taken < batchSize && !requeueAgain)
        await sleep(intervalMs, undefined, { signal: controller.signal }).catch(() => undefined);
    }
  })();
  return {
    /** Stops after the batch in progress. */
    async stop() {
      controller.abort();
      await done;
    },
  };
}
