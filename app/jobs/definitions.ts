import { z } from "zod";

/**
 * Job definitions: name, payload schema and retry policy, apart from the handlers in worker/.
 * The health job proves the worker is connected and consuming; it does no work.
 */
export const HEALTH_QUEUE = "health";

export const healthJob = {
  name: "health.ping",
  payload: z.object({ requestedAt: z.string() }),
  options: { attempts: 1, removeOnComplete: 100, removeOnFail: 100 },
} as const;

export type HealthJobPayload = z.infer<typeof healthJob.payload>;

/** Housekeeping on a schedule (BullMQ job schedulers: one schedule however many workers run). */
export const MAINTENANCE_QUEUE = "maintenance";

export const purgeIdempotencyJob = {
  name: "idempotency.purge",
  schedulerId: "idempotency-purge-hourly",
  everyMs: 60 * 60 * 1000,
  options: { attempts: 3, removeOnComplete: 10, removeOnFail: 50 },
} as const;
