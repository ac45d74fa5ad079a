/**
 * The analytics reports' share of a web process (docs/decisions/026-fairness-between-shops.md). A report's
 * statements grow with the shop's shoppers and days (a distinct count over the range's rollups: about a
 * second for 20,000 shoppers a day over 90 days), so a shop asking for them as fast as its rate limit
 * allows could hold every connection of the pool. Identical reports asked while one is being computed share
 * its answer, each shop computes at most REPORTS_PER_SHOP reports at once, and the process at most half its
 * pool's connections' worth: the others wait in memory, holding no connection, and one shop's queued reports
 * never hold up another shop's.
 */
import pLimit, { type LimitFunction } from "p-limit";
import { getEnv } from "~/env.server";
import { DomainError } from "~/lib/domain-error";

export const REPORTS_PER_SHOP = 2;
/**
 * Reports computed at once by the process, whatever their shops: half its pool, so many large shops'
 * reports together still leave the other half to every other request.
 */
export const reportsPerProcess = () => Math.max(1, Math.floor(getEnv().DATABASE_POOL_SIZE / 2));

/**
 * Reports waiting for the process's slots beyond which a new one is refused (503 with Retry-After) rather
 * than queued: past that its wait would be tens of seconds (a review measured 64 s with 12 large shops at
 * 10 reports a second each), longer than a client or proxy waits, and the work would be done for nobody.
 */
export const maxQueuedReports = () => 4 * reportsPerProcess();
const QUEUE_FULL_RETRY_AFTER_SECONDS = 5;

// On globalThis, as the database handle is: the /v1 routes and the admin's Remix bundle load this module
// each, and the share is the process's.
interface Gates {
  inFlight: Map<string, Promise<unknown>>;
  gates: Map<string, LimitFunction>;
  process?: LimitFunction;
}
const shared: Gates = ((globalThis as { analyticsReportGates?: Gates }).analyticsReportGates ??= {
  inFlight: new Map(),
  gates: new Map(),
});
const { inFlight, gates } = shared;

/** Runs `compute` for the shop's report `key` (which names everything the answer depends on), gated. */
export function gatedReport<T>(shopId: string, key: string, compute: () => Promise<T>): Promise<T> {
  const flight = `${shopId}\0${key}`;
  const running = inFlight.get(flight);
  if (running) return running as Promise<T>;
  const processGate = (shared.process ??= pLimit(reportsPerProcess()));
  if (processGate.pendingCount >= maxQueuedReports()) {
    return Promise.reject(
      new DomainError("unavailable", "Too many analytics reports are being computed; retry after the delay.", {
        retryAfterSeconds: QUEUE_FULL_RETRY_AFTER_SECONDS,
      }),
    );
  }
  let gate = gates.get(shopId);
  if (!gate) {
    gate = pLimit(REPORTS_PER_SHOP);
    gates.set(shopId, gate);
  }
  const shopGate = gate;
  // The shop's share first: one shop's queued reports wait in its own queue, not in the process's.
  const answer = shopGate(() => processGate(compute)).finally(() => {
    inFlight.delete(flight);
    if (shopGate.activeCount === 0 && shopGate.pendingCount === 0 && gates.get(shopId) === shopGate) {
      gates.delete(shopId);
    }
  });
  inFlight.set(flight, answer);
  return answer;
}
