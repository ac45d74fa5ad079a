import { retryAfterSeconds } from "./errors";

export interface RetryOptions {
  /** Attempts after the first (default 3; 0 turns retrying off). */
  retries?: number;
  /** The first backoff in ms (default 300); it doubles each attempt, with full jitter. */
  minDelayMs?: number;
  /** The longest wait before an attempt (default 30,000 ms); a `Retry-After` longer than this is not waited for. */
  maxDelayMs?: number;
}

type Fetch = (request: Request) => Promise<Response>;

/** A random `Idempotency-Key` (a UUID): one per POST, the same for each of its retries. */
const newIdempotencyKey = () => globalThis.crypto.randomUUID();

/**
 * `fetch` with the API's retry rules:
 * - every POST carries an `Idempotency-Key` (the caller's, else a new one), kept across its retries, so a POST
 *   whose answer was lost is not applied twice (the server replays the first answer);
 * - a network error is retried, except for PATCH (not idempotent, and it carries no key);
 * - 429 and 503 are retried after `Retry-After` when given (else the backoff), and a 409
 *   `idempotency-key-in-use` (the lost attempt is still running) after the backoff;
 * - an aborted signal stops at once, also while waiting.
 */
export function retryingFetch(fetchImpl: Fetch, options: RetryOptions = {}): Fetch {
  const retries = options.retries ?? 3;
  const minDelay = options.minDelayMs ?? 300;
  const maxDelay = options.maxDelayMs ?? 30_000;
  const backoff = (attempt: number) => Math.random() * Math.min(maxDelay, minDelay * 2 ** attempt);
  return async (request) => {
    if (request.method === "POST" && !request.headers.has("Idempotency-Key")) {
      request.headers.set("Idempotency-Key", newIdempotencyKey());
    }
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retries;
      // Each attempt sends a copy: a body can be read once.
      const sent = last ? request : request.clone();
      let response: Response;
      try {
        response = await fetchImpl(sent);
      } catch (error) {
        if (last || request.signal.aborted || request.method === "PATCH" || isAbort(error)) throw error;
        await sleep(backoff(attempt), request.signal);
        continue;
      }
      if (last) return response;
      const wait = await retryWait(response, () => backoff(attempt));
      if (wait === null || wait > maxDelay) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}

/** How long to wait before retrying this answer (ms), or null when it is not to be retried. */
async function retryWait(response: Response, backoff: () => number): Promise<number | null> {
  if (response.status === 429 || response.status === 503) {
    const seconds = retryAfterSeconds(response.headers.get("Retry-After"));
    return seconds === null ? backoff() : seconds * 1000;
  }
  if (response.status === 409 && response.headers.get("Content-Type")?.includes("problem+json")) {
    const problem = (await response
      .clone()
      .json()
      .catch(() => null)) as { type?: unknown } | null;
    if (typeof problem?.type === "string" && problem.type.endsWith("/idempotency-key-in-use")) return backoff();
  }
  return null;
}

const isAbort = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError";

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}
