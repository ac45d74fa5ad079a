/**
 * An Admin GraphQL caller for bulk work in the worker (imports' customer lookups, the customer metafield
 * sync): calls are paced by the platform's cost-based rate limit (a THROTTLED answer or an HTTP 429 waits as
 * long as the platform says, and a nearly empty bucket waits before the next call), and a transient
 * failure (no connection, a timeout, a 5xx) is asked again after a backoff (RETRY_DELAYS_MS) before the
 * error reaches the job, which BullMQ then retries as a whole.
 */
import { adminGraphqlPayload, PlatformUnavailable } from "./admin-api.server";

const MAX_THROTTLED_RETRIES = 20;
/** Waits before asking again after a transient failure; the platform's Retry-After wins when longer. */
export const RETRY_DELAYS_MS = [1_000, 3_000];

export interface PacedAdminClient {
  /** One query or mutation, asked again while the platform throttles it or fails transiently; its data. */
  ask<T>(what: string, query: string, variables: Record<string, unknown>): Promise<T>;
  /** How many requests were sent (throttled and failed ones included). */
  readonly calls: number;
}

export function createPacedAdminClient({
  shopDomain,
  sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
}: {
  shopDomain: string;
  sleep?: (ms: number) => Promise<void>;
}): PacedAdminClient {
  let calls = 0;
  let waitBeforeNext = 0;

  async function ask<T>(what: string, query: string, variables: Record<string, unknown>): Promise<T> {
    let throttled = 0;
    let failed = 0;
    for (;;) {
      if (waitBeforeNext > 0) await sleep(waitBeforeNext);
      waitBeforeNext = 0;
      calls += 1;
      let payload;
      try {
        payload = await adminGraphqlPayload<T>({ shopDomain, query, variables });
      } catch (error) {
        if (!(error instanceof PlatformUnavailable) || !error.transient || failed >= RETRY_DELAYS_MS.length) {
          if (error instanceof PlatformUnavailable && error.transient && failed > 0) {
            throw new PlatformUnavailable(`${error.message} (asked ${failed + 1} times)`, error.reason, {
              transient: true,
              cause: error,
            });
          }
          throw error;
        }
        waitBeforeNext = Math.max(RETRY_DELAYS_MS[failed]!, (error.retryAfterSeconds ?? 0) * 1000);
        failed += 1;
        continue;
      }
      if (payload.throttledForMs !== undefined) {
        if (++throttled > MAX_THROTTLED_RETRIES) {
          throw new PlatformUnavailable(`The platform kept throttling the ${what}.`, "kept throttling", {
            transient: true,
          });
        }
        waitBeforeNext = payload.throttledForMs;
        continue;
      }
      if (!payload.data) {
        // GraphQL errors without data (ACCESS_DENIED without a scope, say): asking again changes nothing.
        throw new PlatformUnavailable(
          `The platform's Admin API refused the ${what}: ${payload.errors?.[0]?.message ?? "no data"}.`,
          "refused the query",
          { transient: false },
        );
      }
      // Pace the next call: when the bucket cannot pay for another query like this one, wait until it can.
      const status = payload.cost?.throttleStatus;
      const cost = payload.cost?.requestedQueryCost ?? 0;
      if (status && status.currentlyAvailable < cost) {
        waitBeforeNext = Math.ceil(((cost - status.currentlyAvailable) / Math.max(1, status.restoreRate)) * 1000);
      }
      return payload.data;
    }
  }

  return {
    ask,
    get calls() {
      return calls;
    },
  };
}
