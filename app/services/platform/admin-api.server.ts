/**
 * Minimal Admin GraphQL client for server-side jobs and API calls that act for a shop outside an admin
 * session: the shop's offline token, our API version, a hard timeout, and platform failures as domain
 * errors (never a hang, never a raw upstream error): `platform_not_connected` when the shop has no token
 * or the platform refuses it, `platform_unavailable` (PlatformUnavailable) when the platform does not
 * answer usefully.
 */
import { request } from "undici";
import { database } from "~/data/database.server";
import { findOfflineAccessToken } from "~/data/session-rows.server";
import { getEnv } from "~/env.server";
import { DomainError } from "~/lib/domain-error";
import { SHOPIFY_API_VERSION } from "~/shopify-api-version";
import type { AdminData, AdminOperation, AdminVariables } from "./admin-operations";

/** One operation's data, its types generated from the query's text (./admin-operations.ts). */
export async function adminGraphql<Operation extends AdminOperation>(input: {
  shopDomain: string;
  query: Operation;
  variables?: AdminVariables<Operation>;
}): Promise<AdminData<Operation>> {
  const payload = await adminGraphqlPayload<AdminData<Operation>>(input);
  if (payload.throttledForMs !== undefined) {
    throw unavailable("The platform's Admin API is throttling this shop; retry later.", "throttling", true);
  }
  if (!payload.data) throw unavailable("The platform's Admin API answered with errors and no data.", "errors");
  return payload.data;
}

/**
 * The platform could not answer: a `platform_unavailable` domain error. `transient` when asking again
 * later may work (no connection, a timeout, a 5xx, a body cut short); `reason` says what happened in a few
 * words, for messages that name it ("Admin API unreachable"); `retryAfterSeconds` is the platform's
 * Retry-After, if any.
 */
export class PlatformUnavailable extends DomainError {
  constructor(
    message: string,
    readonly reason: string,
    options: { transient: boolean; retryAfterSeconds?: number; cause?: unknown },
  ) {
    super("platform_unavailable", message, options);
  }
}

const notConnected = (message: string) => new DomainError("platform_not_connected", message);

const unavailable = (message: string, reason = "unavailable", transient = false) =>
  new PlatformUnavailable(message, reason, { transient });

/**
 * A field the schema lets be null (a mutation's payload, a connection) that the platform fills whenever it
 * answers the query: null, it comes with errors, so the answer is unusable (`platform_unavailable`).
 */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) {
    throw unavailable(`The platform's Admin API answered without ${what}.`, "errors");
  }
  return value;
}

/** Retry-After in seconds (the platform does not send dates), at most 600; undefined if absent or odd. */
function retryAfterSeconds(header: string | string[] | undefined): number | undefined {
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 600) : undefined;
}

/** The platform's query cost report (extensions.cost), used to pace bulk work under its rate limit. */
export interface QueryCost {
  requestedQueryCost?: number;
  actualQueryCost?: number;
  throttleStatus?: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number };
}

export interface AdminPayload<T> {
  data?: T;
  errors?: Array<{ message?: string; extensions?: { code?: string } }>;
  cost?: QueryCost;
  /** Set when the platform refused the call for its rate limit: wait this long, then ask again. */
  throttledForMs?: number;
}

/**
 * One Admin GraphQL call with the platform's rate-limit answer surfaced rather than thrown: HTTP 429
 * (Retry-After) or a THROTTLED error (wait until the bucket holds the query's cost again).
 */
export async function adminGraphqlPayload<T>({
  shopDomain,
  query,
  variables,
}: {
  shopDomain: string;
  query: string;
  variables?: Record<string, unknown>;
}): Promise<AdminPayload<T>> {
  const accessToken = await findOfflineAccessToken(database(), shopDomain);
  if (!accessToken) {
    throw notConnected(`No platform access token for ${shopDomain}: open the app from the shop's admin to connect it.`);
  }
  const env = getEnv();
  const origin = env.SHOPIFY_ADMIN_API_ORIGIN ?? `https://${shopDomain}`;
  const url = `${origin}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`;
  let response;
  try {
    response = await request(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-shopify-access-token": accessToken },
      body: JSON.stringify({ query, variables }),
      headersTimeout: env.SHOPIFY_ADMIN_API_TIMEOUT_MS,
      bodyTimeout: env.SHOPIFY_ADMIN_API_TIMEOUT_MS,
      signal: AbortSignal.timeout(env.SHOPIFY_ADMIN_API_TIMEOUT_MS),
    });
  } catch (error) {
    throw new PlatformUnavailable(`The platform's Admin API could not be reached for ${shopDomain}.`, "unreachable", {
      transient: true,
      cause: error,
    });
  }
  if (response.statusCode === 401 || response.statusCode === 403) {
    await response.body.dump();
    throw notConnected(
      `The platform refused the shop's access token (HTTP ${response.statusCode}): open the app from the shop's admin to reconnect it.`,
    );
  }
  if (response.statusCode === 429) {
    await response.body.dump();
    return { throttledForMs: (retryAfterSeconds(response.headers["retry-after"]) ?? 1) * 1000 };
  }
  if (response.statusCode !== 200) {
    await response.body.dump();
    // A 5xx (or a 408) is the platform's trouble and may pass; another 4xx is a request it will never take.
    throw new PlatformUnavailable(
      `The platform's Admin API answered HTTP ${response.statusCode}.`,
      `answered HTTP ${response.statusCode}`,
      {
        transient: response.statusCode >= 500 || response.statusCode === 408,
        retryAfterSeconds: retryAfterSeconds(response.headers["retry-after"]),
      },
    );
  }
  let payload: { data?: T; errors?: AdminPayload<T>["errors"]; extensions?: { cost?: QueryCost } };
  try {
    payload = (await response.body.json()) as typeof payload;
  } catch (error) {
    // A body cut short or an HTML error page from a proxy in between: asking again may work.
    throw new PlatformUnavailable(
      "The platform's Admin API answered with a body that is not JSON.",
      "answered with a body that is not JSON",
      { transient: true, cause: error },
    );
  }
  const cost = payload.extensions?.cost;
  const throttled = payload.errors?.some((error) => error.extensions?.code === "THROTTLED");
  if (throttled) {
    const status = cost?.throttleStatus;
    const missing = Math.max(1, (cost?.requestedQueryCost ?? 1) - (status?.currentlyAvailable ?? 0));
    return {
      errors: payload.errors,
      cost,
      throttledForMs: Math.ceil((missing / Math.max(1, status?.restoreRate ?? 50)) * 1000),
    };
  }
  return { data: payload.data ?? undefined, errors: payload.errors, cost };
}

/** The most ids the platform takes in one `nodes(ids:)` query. */
export const NODES_PER_QUERY = 250;

/**
 * How long a shop's platform work (product lookups, catalogue readings) is put off when the platform cannot
 * be asked for it (`PlatformUnavailable`: no token, or the platform refusing it).
 */
export const POSTPONE_MS = 60 * 60 * 1000;

/** Waits before asking again after a transient failure; the platform's Retry-After wins when longer. */
const RETRY_DELAYS_MS = [1_000, 3_000];
const MAX_THROTTLED_RETRIES = 20;

export interface AdminCaller {
  /**
   * One query's data, asked again while the platform throttles it (after the wait it names) or fails
   * transiently (after RETRY_DELAYS_MS); `what` names the query in errors ("customer id check").
   */
  ask<Operation extends AdminOperation>(
    what: string,
    query: Operation,
    variables: AdminVariables<Operation>,
  ): Promise<AdminData<Operation>>;
  /** Calls made so far, retries included. */
  readonly calls: number;
}

/**
 * Admin GraphQL calls for one shop's bulk work, paced by the platform's cost-based rate limit: a THROTTLED
 * answer or an HTTP 429 waits as long as the platform says, and a nearly empty bucket waits before the
 * next call. A wait longer than `maxWaitMs` is not slept: the call fails as `platform_unavailable`,
 * transient, with that wait as `retryAfterSeconds`, so a job hands its slot back and BullMQ runs it again
 * then. GraphQL errors without data (a missing scope, say) are not transient: asking again changes nothing.
 * `beforeCall` runs right before every call, retries included, after any wait: it throws to stop asking
 * (the work is no longer wanted).
 */
export function createAdminCaller({
  shopDomain,
  sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  maxWaitMs = Number.POSITIVE_INFINITY,
  beforeCall,
}: {
  shopDomain: string;
  sleep?: (ms: number) => Promise<void>;
  maxWaitMs?: number;
  beforeCall?: () => Promise<void>;
}): AdminCaller {
  let calls = 0;
  let waitBeforeNext = 0;

  const waitTooLong = (what: string, ms: number) =>
    new PlatformUnavailable(`The platform asks to wait ${ms} ms before the ${what}.`, "throttling", {
      transient: true,
      retryAfterSeconds: Math.ceil(ms / 1000),
    });

  async function ask<Operation extends AdminOperation>(
    what: string,
    query: Operation,
    variables: AdminVariables<Operation>,
  ): Promise<AdminData<Operation>> {
    let throttled = 0;
    let failed = 0;
    for (;;) {
      if (waitBeforeNext > maxWaitMs) throw waitTooLong(what, waitBeforeNext);
      if (waitBeforeNext > 0) await sleep(waitBeforeNext);
      waitBeforeNext = 0;
      await beforeCall?.();
      calls += 1;
      let payload;
      try {
        payload = await adminGraphqlPayload<AdminData<Operation>>({ shopDomain, query, variables });
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
