/**
 * What the worker binds to each kind of the job table (app/jobs/definitions.ts): a kind consumed on a
 * queue of its own is given a `consume`, a kind scheduled on the maintenance queue a `run`, a kind the
 * maintenance sweep reconciles a `sweep`. The map in ./handlers/index.ts must hold each kind with what its
 * entry declares, or the worker does not compile (docs/decisions/039-job-and-webhook-registries.md).
 */
import type { BackoffStrategy, Job, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { ConsumedKind, JobKindName, ScheduledKind, SweptKind } from "~/jobs/definitions";
import type { Env } from "~/env.server";

export interface WorkerContext {
  /** The worker's blocking connection, which its queues and schedules use. */
  connection: Redis;
  env: Env;
}

/** A consumer of a kind's queue: its processor and what the BullMQ worker running it needs besides. */
export interface Consumer {
  run: (job: Job, token?: string) => Promise<unknown>;
  /** A connection of its own instead of the worker's. */
  connection?: Redis;
  backoffStrategy?: BackoffStrategy;
  /** Listens to the BullMQ worker (jobs given up, stalls). */
  watch?: (worker: Worker) => void;
  /** Closes what `consume` opened, once the worker has stopped. */
  close?: () => Promise<void>;
}

/** A job of the maintenance queue, run on the worker's `connection`. */
export type MaintenanceRun = (job: Job, connection?: Redis) => Promise<unknown>;

export type JobHandler<K extends JobKindName> = (K extends ConsumedKind
  ? { consume: (context: WorkerContext) => Consumer }
  : unknown) &
  (K extends ScheduledKind ? { run: MaintenanceRun } : unknown) &
  (K extends SweptKind ? { sweep: MaintenanceRun } : unknown);
