/** The soak's HTTP load: kinds of calls sent at their rates (open model), and the rate-limit probe. */
import { Agent, request } from "undici";
import type { KindResult, RateWindow } from "./types";

const IN_FLIGHT_CAP = 256;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const pick = <T>(values: readonly T[]) => values[Math.floor(Math.random() * values.length)]!;

export interface Call {
  url: string;
  method: "GET" | "POST" | "PUT";
  headers: Record<string, string>;
  body?: string;
}

export interface Kind {
  name: string;
  rate: number;
  call: () => Call;
}

export async function send(agent: Agent, call: Call) {
  const response = await request(call.url, {
    method: call.method,
    headers: call.headers,
    body: call.body,
    dispatcher: agent,
  });
  return response;
}

/**
 * Sends each kind at its rate for `seconds` (open model) and records per kind the latencies and statuses.
 * A kind with IN_FLIGHT_CAP requests unanswered sheds the next ones (counted) rather than pile up.
 */
export async function drive(agent: Agent, kinds: Kind[], seconds: number): Promise<KindResult[]> {
  const results = kinds.map((kind) => ({
    kind,
    result: { name: kind.name, sent: 0, shed: 0, latencies: [] as number[], statuses: {}, seconds } as KindResult,
    inFlight: 0,
  }));
  const pending = new Set<Promise<void>>();
  const started = performance.now();
  for (;;) {
    const elapsed = (performance.now() - started) / 1000;
    if (elapsed >= seconds) break;
    for (const entry of results) {
      const due = Math.floor(entry.kind.rate * elapsed) - entry.result.sent - entry.result.shed;
      for (let index = 0; index < due; index++) {
        if (entry.inFlight >= IN_FLIGHT_CAP) {
          entry.result.shed++;
          continue;
        }
        entry.result.sent++;
        entry.inFlight++;
        const call = entry.kind.call();
        const sentAt = performance.now();
        const promise = send(agent, call)
          .then(async (response) => {
            await response.body.dump({ limit: 1 << 20 });
            entry.result.latencies.push(performance.now() - sentAt);
            const key = String(response.statusCode);
            entry.result.statuses[key] = (entry.result.statuses[key] ?? 0) + 1;
          })
          .catch((error: { code?: string; name?: string }) => {
            const key = `error ${error.code ?? error.name ?? "unknown"}`;
            entry.result.statuses[key] = (entry.result.statuses[key] ?? 0) + 1;
          })
          .finally(() => {
            entry.inFlight--;
            pending.delete(promise);
          });
        pending.add(promise);
      }
    }
    await sleep(10);
  }
  await Promise.all(pending);
  for (const { result } of results) result.latencies.sort((a, b) => a - b);
  return results.map(({ result }) => result);
}

/**
 * One window of a rate-limit bucket: `sent` requests (over the limit) from 20 concurrent callers spread over
 * both web processes; exact when the limit is accepted, no more, and each accepted answer's remaining count
 * is a different value of limit-1 .. 0 (one shared counter, one unit each).
 */
export async function probeWindow(
  agent: Agent,
  bucket: "shop" | "shopper",
  limit: number,
  sent: number,
  call: (index: number) => Call,
): Promise<RateWindow & { retryAfter: number }> {
  const remaining: number[] = [];
  let accepted = 0;
  let refused = 0;
  let other = 0;
  let retryAfter = 0;
  let retryAfterMissing = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next < sent) {
        const index = next++;
        try {
          const response = await send(agent, call(index));
          await response.body.dump();
          const header = (name: string) => response.headers[name] as string | undefined;
          if (response.statusCode === 200) {
            accepted++;
            remaining.push(Number(header(`x-ratelimit-remaining-${bucket}`)));
          } else if (response.statusCode === 429) {
            refused++;
            const seconds = Number(header("retry-after"));
            if (!(seconds >= 1 && seconds <= 60)) retryAfterMissing++;
            retryAfter = Math.max(retryAfter, seconds || 0);
          } else other++;
        } catch {
          other++;
        }
      }
    }),
  );
  remaining.sort((a, b) => a - b);
  const seconds = (performance.now() - started) / 1000;
  // A burst that outlasts most of a window may have crossed into the next one: it proves nothing.
  const exact =
    other > 0 || seconds > 45
      ? null
      : accepted === limit &&
        refused === sent - limit &&
        retryAfterMissing === 0 &&
        remaining.every((value, index) => value === index);
  return {
    bucket,
    limit,
    sent,
    accepted,
    refused,
    other,
    exact,
    seconds,
    retryAfter,
  };
}
