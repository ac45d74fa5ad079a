/**
 * The published retry schedule (docs/webhooks.md): after the first attempt fails, 5 retries whose
 * delays grow geometrically from 1 unit to 360 units (1 minute to 6 hours in production), each with
 * +/-10% jitter so that many failing deliveries do not retry in lockstep. `unitMs` is configurable
 * (WEBHOOK_RETRY_UNIT_MS) so tests and the demo run the whole path in seconds.
 */
export const WEBHOOK_RETRIES = 5;
export const WEBHOOK_ATTEMPTS = WEBHOOK_RETRIES + 1;
const FIRST = 1;
const LAST = 360;

/** Delay before retry `retry` (1-5), without jitter, in units: 1, 4.36, 18.97, 82.64, 360. */
export function retryDelayUnits(retry: number): number {
  return FIRST * (LAST / FIRST) ** ((retry - 1) / (WEBHOOK_RETRIES - 1));
}

export function retryDelayMs(retry: number, unitMs: number, random = Math.random): number {
  const jitter = 0.9 + 0.2 * random();
  return Math.round(retryDelayUnits(retry) * unitMs * jitter);
}

/**
 * Consecutive failed deliveries (each one failed on its last attempt) after which an endpoint is disabled
 * (docs/webhooks.md, docs/decisions/024-endpoint-failure-count.md).
 */
export const AUTO_DISABLE_AFTER = 20;
