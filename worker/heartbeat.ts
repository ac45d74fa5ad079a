import { rm, writeFile } from "node:fs/promises";
import type { Redis } from "ioredis";
import { database } from "~/data/database.server";
import { pingDatabase } from "~/data/readiness.server";
import { logger } from "~/logger.server";

/** How often a healthy worker writes its heartbeat file; worker/health-check.mjs allows three missed beats. */
export const HEARTBEAT_INTERVAL_MS = 5_000;

/**
 * The worker's health signal (docs/deploy.md, "Health checks"): it serves no HTTP, so while its Redis
 * connection is up and the database answers it writes the time to `file` every few seconds. A container
 * health check (worker/health-check.mjs) calls it healthy while the file is fresh. The file is removed when
 * the worker stops, so a draining worker is no longer reported healthy.
 */
export function startHeartbeat(file: string, redis: Redis): { stop: () => Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const beat = async () => {
    try {
      if (redis.status !== "ready") return;
      await pingDatabase(database());
      if (!stopped) await writeFile(file, new Date().toISOString());
    } catch (error) {
      logger.warn({ err: error }, "worker heartbeat skipped: the database does not answer");
    }
  };
  const loop = () => {
    running = beat().finally(() => {
      if (!stopped) timer = setTimeout(loop, HEARTBEAT_INTERVAL_MS);
    });
  };
  loop();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
      await rm(file, { force: true });
    },
  };
}
