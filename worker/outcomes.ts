/**
 * How a job run ends for BullMQ, decided here for every queue (docs/decisions/017-data-layer.md): a job
 * handler returns its result, or throws what `jobFailure` makes of the error, and BullMQ retries or stops.
 *  - A DomainError that is `transient` (the database busy or down, the platform unavailable for now): run
 *    again, after its `retryAfterSeconds` where the job's backoff strategy is ours.
 *  - Any other DomainError (not found, invalid, ...): running it again would fail the same way, so the
 *    job fails now, whatever attempts it has left.
 *  - A JobFailed: the handler decided (a webhook attempt that failed, with or without retries left).
 *  - Anything else (a bug, a lost connection): retried as the job's attempts allow.
 */
import { UnrecoverableError } from "bullmq";
import { isDomainError } from "~/lib/domain-error";

/**
 * A run that did not succeed. With `retryInMs`, BullMQ runs it again after that delay (through the
 * queue's backoff strategy, `retryDelayOf`); without, the job fails for good: its name is BullMQ's
 * `UnrecoverableError`, which BullMQ recognises by name. `routine` failures (a receiver answering 500)
 * are logged as information, not as worker errors.
 */
export class JobFailed extends Error {
  constructor(
    message: string,
    readonly retryInMs: number | null,
    readonly routine = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = retryInMs === null ? new UnrecoverableError().name : "JobFailed";
  }
}

/** The error to hand BullMQ for what a job's work threw. */
export function jobFailure(error: unknown): unknown {
  if (!isDomainError(error)) return error;
  if (!error.transient) return new JobFailed(`${error.code}: ${error.message}`, null, false, { cause: error });
  const retryInMs = error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1_000 : 0;
  return new JobFailed(`${error.code}: ${error.message}`, retryInMs, false, { cause: error });
}

/** Runs a job's work; a thrown error reaches BullMQ as `jobFailure` says. */
export async function runJob<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw jobFailure(error);
  }
}

/** The delay a failed run asked for before its next attempt (read by a backoff strategy), if any. */
export function retryDelayOf(error: unknown): number | null {
  return error instanceof JobFailed && error.retryInMs !== null && error.retryInMs > 0 ? error.retryInMs : null;
}

/** Whether a failure is routine (logged as information): a webhook receiver that did not take a delivery. */
export function isRoutineFailure(error: unknown): boolean {
  return error instanceof JobFailed && error.routine;
}
