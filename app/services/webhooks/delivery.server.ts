/**
 * Webhook delivery attempts (docs/webhooks.md, docs/decisions/013-webhook-delivery.md): one signed POST
 * per job run, its outcome written to the delivery log together with the endpoint's failure count.
 */
import { createHmac, randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { request, type Dispatcher } from "undici";
import { database, transaction, type Tx } from "~/data/database.server";
import { findUnrelayedEventIds, waitForEventsRelayed } from "~/data/event-rows.server";
import { insertAttempts, type AttemptRecord } from "~/data/webhook-delivery-rows.server";
import {
  deferDeliveryDue,
  deleteDeliveryDues,
  isDeliveryOwed,
  leaseDeliveryDues,
  type DueKey,
} from "~/data/webhook-delivery-due-rows.server";
import {
  addFailures,
  findEndpointForDelivery,
  findEndpointsForDeliveries,
  resetFailCounts,
} from "~/data/webhook-endpoint-rows.server";
import { getEnv } from "~/env.server";
import type { DeliverWebhookBatchPayload, DeliverWebhookPayload } from "~/jobs/definitions";
import { newId } from "~/lib/ids";
import { logger } from "~/logger.server";
import { AUTO_DISABLE_AFTER, retryDelayMs, WEBHOOK_ATTEMPTS } from "./schedule";
import { endpointSecret } from "./endpoint-secrets.server";
import { envelope, isRedactedEnvelope } from "./fanout.server";
import type { StoredEvent } from "~/services/events/relay.server";
import { REDACTED_EVENT_DATA } from "~/services/events/redacted-events";
import { assertLiteralHostAllowed, redactAddresses } from "./ssrf.server";

/** Names the sender without a link: the service has no public documentation address to point at. */
export const USER_AGENT = "WishlistService-Webhooks/1";
/** Response bodies are read up to this many bytes and kept in the delivery log. */
export const RESPONSE_SNIPPET_BYTES = 1_024;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (docs/webhooks.md). */
export function signatureHeader(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

async function readCapped(body: Readable & { dump?: () => Promise<void> }, cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= cap) break; // leaving the loop destroys the stream: nothing more is read
  }
  return storableText(Buffer.concat(chunks).subarray(0, cap).toString("utf8"));
}

/**
 * A receiver's text as the delivery log can keep it on both engines: PostgreSQL refuses a NUL character
 * in text (SQLite takes it), and a log write that fails leaves the attempt unlogged and uncounted, so the
 * delivery would be sent again and again. Each NUL becomes U+FFFD, as undecodable bytes already do.
 */
function storableText(text: string): string {
  return text.replaceAll("\u0000", "\uFFFD");
}

/** What the delivery log says of socket errors: the platform's own texts name the address connected to. */
const CONNECTION_ERRORS: Record<string, string> = {
  ECONNREFUSED: "the connection was refused",
  ECONNRESET: "the connection was reset",
  EPIPE: "the connection was closed while sending",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name could not be resolved now",
  UND_ERR_CONNECT_TIMEOUT: "the connection timed out",
  UND_ERR_SOCKET: "the connection failed",
};

/**
 * The delivery log's text for a failed attempt. It is shown to the merchant (GET
 * /v1/webhooks/{id}/deliveries), so it never holds the address a host name resolved to: known socket
 * errors get a fixed text and any other message has its IP addresses redacted (docs/webhooks.md).
 */
function describe(error: unknown, url: URL | null): string {
  const err = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === "TimeoutError" || err.code === "UND_ERR_HEADERS_TIMEOUT" || err.code === "UND_ERR_BODY_TIMEOUT") {
    return "timeout";
  }
  const code = err.cause?.code ?? err.code;
  const known = code ? CONNECTION_ERRORS[code] : undefined;
  const message = known ?? err.cause?.message ?? err.message ?? String(error);
  const literalHost = url?.hostname.replace(/^\[|\]$/g, "");
  return redactAddresses(code ? `${code}: ${message}` : message, literalHost).slice(0, 500);
}

/**
 * Logs a batch of attempts and keeps their endpoints' consecutive-failure counts (disabled at 20), in the
 * caller's transaction. The count is of failed deliveries, not attempts (docs/decisions/024-endpoint-failure-count.md):
 * a delivery fails when its last attempt fails, so an attempt that still has retries left leaves the count
 * as it is, and a receiver that is down for a while gets its retries instead of being switched off. One
 * multi-row insert (attempt numbers from the log, rows of deleted endpoints dropped), one reset of the count
 * for endpoints whose last counted outcome in the batch is a success, and one update per endpoint whose
 * batch ends in failed deliveries (counted in order: a success in the batch resets the count before the
 * failures after it).
 */
async function applyBatch(tx: Tx, entries: LogEntry[]) {
  // First, so that the owed rows a relay is still committing for these events are there to end or defer.
  await waitForEventsRelayed(tx, [
    ...new Set(entries.filter((entry) => entry.tracked).map((entry) => entry.record.eventId)),
  ]);
  const records = entries.map((entry) => entry.record);
  await insertAttempts(tx, records);
  const counters = new Map<string, { reset: boolean; failures: number; at: Date }>();
  for (const record of records) {
    const deliveryFailed = record.status === "failed" && record.nextRetryAt === null;
    if (record.status === "failed" && !deliveryFailed) continue; // a retry is due: not a failed delivery yet
    const counter = counters.get(record.endpointId) ?? { reset: false, failures: 0, at: record.at };
    if (deliveryFailed) counter.failures++;
    else Object.assign(counter, { reset: true, failures: 0 });
    counter.at = record.at;
    counters.set(record.endpointId, counter);
  }
  const resets = [...counters].filter(([, counter]) => counter.failures === 0).map(([id]) => id);
  await resetFailCounts(tx, resets, new Date());
  for (const [endpointId, { reset, failures, at }] of counters) {
    if (failures === 0) continue;
    await addFailures(tx, endpointId, { failures, afterSuccess: reset, disableAt: AUTO_DISABLE_AFTER }, at);
  }
  // What the queue owes (docs/decisions/025-queue-reconciliation.md): an ended delivery is owed no more, a
  // retried one is owed again at its next attempt. A redelivery is outside the schedule and changes neither.
  const ended: DueKey[] = [];
  for (const { record, attempt, tracked } of entries) {
    if (!tracked) continue;
    const key = { eventId: record.eventId, endpointId: record.endpointId };
    if (record.nextRetryAt === null) ended.push(key);
    else await deferDeliveryDue(tx, key, { dueAt: record.nextRetryAt, attemptsMade: attempt });
  }
  await deleteDeliveryDues(tx, ended);
}

interface LogEntry {
  record: AttemptRecord;
  /** The attempt's number in its delivery's schedule (1-6). */
  attempt: number;
  /** False for a redelivery, which is outside the schedule the queue owes. */
  tracked: boolean;
}

/** The most attempts one log transaction writes. */
const LOG_BATCH = 200;
/**
 * How long the first attempt to finish waits for others before a log write starts. Without it, SQLite's
 * transactions (a fraction of a millisecond) end before the next receiver answers, and every attempt
 * paid a transaction of its own: 5,000 transactions for 5,000 deliveries in the fan-out benchmark.
 * It delays when a job completes, not when its receiver gets the request.
 */
const LOG_LINGER_MS = 5;

/**
 * Group commit: attempts that finish while a write is in progress are logged together in the next
 * transaction, and each attempt's job completes only once its record is committed (so a crash never
 * completes a job without its log entry). A batch that fails is written again one record at a time, so
 * one bad record (its endpoint deleted on PostgreSQL between check and insert) fails alone.
 */
class DeliveryLog {
  private pending: Array<LogEntry & { resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing = false;
  private lingering: NodeJS.Timeout | undefined;

  write(entry: LogEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ ...entry, resolve, reject });
      if (this.flushing) return;
      if (this.pending.length >= LOG_BATCH) void this.flush();
      else this.lingering ??= setTimeout(() => void this.flush(), LOG_LINGER_MS);
    });
  }

  private async flush() {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, LOG_BATCH);
        try {
          await transaction((tx) => applyBatch(tx, batch));
          for (const entry of batch) entry.resolve();
        } catch (error) {
          logger.warn(
            { err: error, records: batch.length },
            "delivery log batch failed; writing it one record at a time",
          );
          for (const entry of batch) {
            await transaction((tx) => applyBatch(tx, [entry])).then(entry.resolve, entry.reject);
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

const deliveryLog = new DeliveryLog();

export type DeliveryOutcome =
  | {
      status: "skipped";
      reason: "endpoint-deleted" | "endpoint-disabled" | "shop-uninstalled" | "event-redacted" | "made-elsewhere";
    }
  | { status: "succeeded" | "failed"; deliveryId: string; statusCode: number | null; retryInMs: number | null };

/** Why a delivery is not to be sent (and ends), if it is not. */
function skipReason(state: { disabledAt: Date | null; shopUninstalledAt: Date | null; eventRedacted: boolean }) {
  if (state.disabledAt !== null) return "endpoint-disabled" as const;
  if (state.shopUninstalledAt !== null) return "shop-uninstalled" as const;
  return state.eventRedacted ? ("event-redacted" as const) : null;
}

/**
 * One attempt: POST the exact envelope bytes, signed, with a timeout and no redirects; log the
 * attempt and keep the endpoint's count of consecutive failed deliveries (disabled at 20), in one transaction. A
 * deleted or disabled endpoint, one of a shop that uninstalled the app, or an event a customers/redact erased, is
 * sent nothing. `attemptsMade` is how many attempts this job made before. A delivery the reconciliation pass
 * queued again (`requeued`) is made only while the delivery is still owed with no more attempts logged: the
 * job Redis lost may have been running at the time, and have logged its attempt since.
 */
export async function deliverOnce(
  payload: DeliverWebhookPayload,
  {
    attemptsMade,
    maxAttempts = WEBHOOK_ATTEMPTS,
    dispatcher,
  }: { attemptsMade: number; maxAttempts?: number; dispatcher: Dispatcher },
): Promise<DeliveryOutcome> {
  if (payload.requeued && !(await isDeliveryOwed(database(), payload, attemptsMade))) {
    return { status: "skipped", reason: "made-elsewhere" };
  }
  const endpoint = await findEndpointForDelivery(database(), payload.shopId, payload.endpointId, {
    eventId: payload.eventId,
    redactedData: REDACTED_EVENT_DATA,
  });
  if (!endpoint) return { status: "skipped", reason: "endpoint-deleted" }; // its owed row went with it
  // Deliveries stop when the endpoint is disabled or the app uninstalled (queued ones included; a reinstall
  // starts new ones): the delivery ends here and is owed no more.
  // So do deliveries of an event a customers/redact erased: the stored event decides, not the queued body, which
  // a redaction cannot always reach (a redelivery's job, or one the relay queued while the redaction ran).
  const skipped = skipReason({
    ...endpoint,
    eventRedacted: endpoint.redactedEventId !== null || isRedactedEnvelope(payload.body),
  });
  if (skipped) {
    if (!payload.redelivery) {
      await transaction(async (tx) => {
        await waitForEventsRelayed(tx, [payload.eventId]);
        await deleteDeliveryDues(tx, [payload]);
      });
    }
    return { status: "skipped", reason: skipped };
  }

  return attempt(payload, endpoint, { attemptsMade, maxAttempts, dispatcher });
}

type AttemptOutcome = Extract<DeliveryOutcome, { deliveryId: string }>;

/**
 * The attempt itself: POST the envelope, signed, with a timeout and no redirects, then log it (group
 * commit, above). Throws only when the log write fails: the attempt is then not counted. `onSent` is called
 * once the receiver is done with it, before the log write.
 */
async function attempt(
  payload: DeliverWebhookPayload,
  endpoint: { url: string; secretCiphertext: string },
  {
    attemptsMade,
    maxAttempts,
    dispatcher,
    onSent,
  }: { attemptsMade: number; maxAttempts: number; dispatcher: Dispatcher; onSent?: () => void },
): Promise<AttemptOutcome> {
  const env = getEnv();
  const deliveryId = newId("delivery");
  const started = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  let snippet: string | null = null;
  let url: URL | null = null;
  try {
    url = new URL(endpoint.url);
    assertLiteralHostAllowed(url);
    const response = await request(url, {
      method: "POST",
      body: payload.body,
      dispatcher,
      headers: {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "x-service-event": payload.eventType,
        "x-service-delivery": deliveryId,
        "x-service-signature": signatureHeader(
          endpointSecret(endpoint.secretCiphertext, { endpointId: payload.endpointId, shopId: payload.shopId }),
          payload.body,
          Math.floor(Date.now() / 1000),
        ),
      },
      headersTimeout: env.WEBHOOK_TIMEOUT_MS,
      bodyTimeout: env.WEBHOOK_TIMEOUT_MS,
      signal: AbortSignal.timeout(env.WEBHOOK_TIMEOUT_MS),
    });
    statusCode = response.statusCode;
    snippet = await readCapped(response.body, RESPONSE_SNIPPET_BYTES).catch(() => null);
    if (statusCode < 200 || statusCode > 299) error = `HTTP ${statusCode}`;
  } catch (caught) {
    error = storableText(describe(caught, url));
  }
  const durationMs = Math.round(performance.now() - started);
  onSent?.();
  const succeeded = error === null;
  const retriesLeft = !succeeded && attemptsMade + 1 < maxAttempts;
  const retryInMs = retriesLeft ? retryDelayMs(attemptsMade + 1, env.WEBHOOK_RETRY_UNIT_MS) : null;
  const now = new Date();

  await deliveryLog.write({
    attempt: attemptsMade + 1,
    tracked: !payload.redelivery,
    record: {
      id: deliveryId,
      shopId: payload.shopId,
      endpointId: payload.endpointId,
      eventId: payload.eventId,
      status: succeeded ? "succeeded" : "failed",
      statusCode,
      durationMs,
      error,
      responseSnippet: snippet,
      nextRetryAt: retryInMs === null ? null : new Date(now.getTime() + retryInMs),
      at: now,
    },
  });
  return { status: succeeded ? "succeeded" : "failed", deliveryId, statusCode, retryInMs };
}

/** What a batch job's run did: counts, and the deliveries that go on in jobs of their own. */
export interface BatchOutcome {
  succeeded: number;
  failed: number;
  skipped: number;
  /**
   * First attempts that failed with retries left and were not handed to `queueRetry` (none was given, or it
   * failed): each goes on in its own job at `retryAt` (epoch ms), when its log entry says the retry is due.
   */
  retries: Array<{ payload: DeliverWebhookPayload; retryAt: number }>;
  /** Attempts whose outcome could not be logged (the database failed): not counted, to be made again. */
  unlogged: DeliverWebhookPayload[];
}

/**
 * The first attempts of a batch job's deliveries (docs/decisions/045-webhook-batching.md): one read for
 * the whole batch (events, endpoints, shop), the envelopes built from the stored events, then each
 * delivery as `deliverOnce` makes it, run as `take` admits them (the shop's share of the process's slots),
 * each logged by the group commit. Deliveries not to be sent end together in one transaction.
 */
export async function deliverBatch(
  { shopId, deliveries }: DeliverWebhookBatchPayload,
  {
    dispatcher,
    take,
    queuedAt,
    requeueAfterMs,
    queueRetry,
  }: {
    dispatcher: Dispatcher;
    take: () => Promise<() => void>;
    /**
     * Queues a failed first attempt's retry, `delayMs` from now, as soon as the attempt is logged: waiting
     * for the batch's end would put the retry off by the batch's slowest delivery (up to many receivers'
     * timeouts), past the `nextRetryAt` the log shows.
     */
    queueRetry?: (payload: DeliverWebhookPayload, delayMs: number) => Promise<void>;
    /** When the batch job was queued. */
    queuedAt: Date;
    /** WEBHOOK_REQUEUE_AFTER_MS: how overdue an owed delivery is before the reconciliation pass queues it again. */
    requeueAfterMs: number;
  },
): Promise<BatchOutcome> {
  // The lease first (below): the deliveries the reconciliation pass queued again while this batch waited
  // behind a backlog, and those with an attempt made already, are another job's; what the lease holds is
  // this batch's until its attempts are logged.
  // A delivery named twice (only a forged job does) is one delivery.
  const unique = [...new Map(deliveries.map((key) => [keyOf(key), key])).values()];
  const lease = new BatchLease(shopId, requeueAfterMs);
  await lease.take(unique, queuedAt);
  const readAt = performance.now();
  const rows = await findEndpointsForDeliveries(database(), shopId, unique);
  const found = new Map(rows.map((row) => [keyOf(row), row]));
  const outcome: BatchOutcome = {
    succeeded: 0,
    failed: 0,
    skipped: deliveries.length - unique.length,
    retries: [],
    unlogged: [],
  };
  const ended: DueKey[] = [];
  const sendable: DeliverWebhookPayload[] = [];
  for (const key of unique) {
    const row = found.get(keyOf(key));
    // The endpoint was deleted or the event purged (its owed row went with it), or another job has it.
    if (!row || !lease.has(key)) {
      outcome.skipped++;
      continue;
    }
    if (skipReason({ ...row, eventRedacted: row.eventData === REDACTED_EVENT_DATA })) {
      ended.push(key);
      lease.release(key);
      outcome.skipped++;
      continue;
    }
    const event = {
      id: key.eventId,
      shopId,
      type: row.eventType as StoredEvent["type"],
      data: row.eventData,
      createdAt: row.eventCreatedAt,
    };
    const payload = { shopId, ...key, eventType: row.eventType, body: envelope(event, row.shopDomain) };
    sendable.push(payload);
  }
  if (ended.length > 0) {
    await transaction(async (tx) => {
      await waitForEventsRelayed(tx, [...new Set(ended.map((key) => key.eventId))]);
      await deleteDeliveryDues(tx, ended);
    });
  }
  lease.keep();
  const fresh = new FreshState(shopId, () => lease.keys());
  fresh.seed(found, readAt);
  const lateEnded: DueKey[] = [];
  try {
    await Promise.all(
      sendable.map(async (payload) => {
        // The slot bounds what the shop's receivers are sent at once; it is freed once the receiver is done,
        // so the log writes of many deliveries wait together (one group commit) instead of each in a slot.
        let release: (() => void) | undefined = await take();
        const free = () => {
          release?.();
          release = undefined;
        };
        try {
          // The pass may have queued it again while it waited (the lease's renewals came late): its job sends it.
          if (!(await lease.holds(payload))) {
            outcome.skipped++;
            return;
          }
          // The state read above may predate the slot by a receiver's timeout or more: an endpoint deleted or
          // disabled, a shop uninstalled or an event erased meanwhile is sent nothing, as a single job's would not.
          const current = await fresh.stateOf(payload);
          const skipped = current
            ? skipReason({ ...current, eventRedacted: current.eventData === REDACTED_EVENT_DATA })
            : null;
          if (!current || skipped) {
            if (skipped) lateEnded.push({ eventId: payload.eventId, endpointId: payload.endpointId });
            outcome.skipped++;
            return;
          }
          const result = await attempt(payload, current, {
            attemptsMade: 0,
            maxAttempts: WEBHOOK_ATTEMPTS,
            dispatcher,
            onSent: free,
          });
          if (result.status === "succeeded") outcome.succeeded++;
          else outcome.failed++;
          if (result.retryInMs !== null) {
            const retryAt = Date.now() + result.retryInMs;
            try {
              if (!queueRetry) throw new Error("no queue to hand the retry to");
              await queueRetry(payload, result.retryInMs);
            } catch {
              outcome.retries.push({ payload, retryAt }); // the caller queues it with the batch's other hand-offs
            }
          }
        } catch (error) {
          logger.warn({ err: error, eventId: payload.eventId }, "delivery attempt not logged; it will be made again");
          outcome.unlogged.push(payload);
        } finally {
          free();
          lease.release(payload);
        }
      }),
    );
  } finally {
    lease.stop();
  }
  if (lateEnded.length > 0) {
    await transaction(async (tx) => {
      await waitForEventsRelayed(tx, [...new Set(lateEnded.map((key) => key.eventId))]);
      await deleteDeliveryDues(tx, lateEnded);
    });
  }
  return outcome;
}

type BatchRow = Awaited<ReturnType<typeof findEndpointsForDeliveries>>[number];

const keyOf = (key: DueKey) => `${key.eventId} ${key.endpointId}`;

/** A batch none of whose deliveries the relay has recorded yet, after RELAY_WAIT_MS: run again later. */
export class RelayNotRecorded extends Error {
  constructor(missing: number) {
    super(`the relay has not recorded ${missing} of this batch's deliveries yet; the batch runs again later`);
    this.name = "RelayNotRecorded";
  }
}

/** How long a batch waits for the relay to record the deliveries it was queued with. */
const RELAY_WAIT_MS = 10_000;

/**
 * A batch job run's lease on its deliveries' owed rows (docs/decisions/045-webhook-batching.md). The run
 * marks the rows with its own lease id; the reconciliation pass claims only rows due more than a grace
 * period ago, and the lease keeps the due time of the rows it holds current until their attempts are
 * logged. Taking and renewing are compare-and-set (`leaseDeliveryDues`), as is the pass's claim, so a row is
 * held by one run of one batch or claimed by the pass, never two of them: another run of the same batch (its
 * worker stalled and BullMQ handed it on) or an overlapping batch of another relay takes nothing a live
 * lease holds. A delivery is sent only while its row is held with at least a quarter of the grace period
 * left; a worker that dies stops renewing, and the pass queues its deliveries again after the grace period.
 */
class BatchLease {
  private readonly id = randomUUID();
  private readonly held = new Map<string, DueKey>();
  /** When the last write of the lease that succeeded started. */
  private renewedAt = Number.NEGATIVE_INFINITY;
  private renewing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly shopId: string,
    private readonly graceMs: number,
  ) {}

  /**
   * Takes the rows of deliveries no lease holds, with no attempt made, that the pass has not claimed: a
   * claim moves the due time a grace period past the claim, which comes a grace period after the row's
   * queueing at the least. The relay queues a pass's jobs before its transaction records their rows: a
   * delivery whose event it has not marked yet is waited for (PostgreSQL: behind the relay's locks; then
   * polled), up to RELAY_WAIT_MS. One left without a row after that is not sent here; the pass queues it
   * once its row is overdue.
   */
  async take(keys: readonly DueKey[], queuedAt: Date): Promise<void> {
    const at = new Date();
    const started = performance.now();
    const take = { notAfter: new Date(queuedAt.getTime() + this.graceMs / 2) };
    const deadline = performance.now() + RELAY_WAIT_MS;
    const eventIds = (of: readonly DueKey[]) => [...new Set(of.map((key) => key.eventId))];
    let wanted = keys;
    for (;;) {
      // What the transaction found is kept only once it commits (it may be run again).
      const { held, unrelayed } = await transaction(async (tx) => {
        await waitForEventsRelayed(tx, eventIds(wanted));
        const held = await leaseDeliveryDues(tx, this.shopId, wanted, { leaseId: this.id, at, take });
        const taken = new Set(held.map(keyOf));
        const unrelayed = await findUnrelayedEventIds(tx, eventIds(wanted.filter((key) => !taken.has(keyOf(key)))));
        return { held, unrelayed: new Set(unrelayed) };
      });
      for (const key of held) this.held.set(keyOf(key), key);
      this.renewedAt = started;
      wanted = wanted.filter((key) => !this.has(key) && unrelayed.has(key.eventId));
      if (wanted.length === 0) return;
      if (performance.now() > deadline) {
        // The relay that queued this batch has not recorded these deliveries (it died, or its transaction
        // waits on locks). Completing would keep the batch's id, and the next relay pass's add of the same
        // batch would add nothing: the batch fails instead, and BullMQ runs it again on the schedule. What
        // it holds meanwhile the pass queues again once overdue.
        if (this.held.size === 0) throw new RelayNotRecorded(wanted.length);
        logger.warn({ missing: wanted.length }, "batch sends what the relay recorded; the rest is left to the pass");
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  has(key: DueKey): boolean {
    return this.held.has(keyOf(key));
  }

  /** The deliveries it holds: those of the batch not yet logged or ended. */
  keys(): Iterable<DueKey> {
    return this.held.values();
  }

  /** Renews the lease every half grace period until `stop`. */
  keep(): void {
    this.timer = setInterval(() => void this.renew(), this.graceMs / 2);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The delivery's attempt is logged (or it ends otherwise): the lease lets its row go. */
  release(key: DueKey): void {
    this.held.delete(keyOf(key));
  }

  /** Whether the delivery may be sent now: held, renewed first when a quarter of the grace period is all that is left. */
  async holds(key: DueKey): Promise<boolean> {
    if (!this.has(key)) return false;
    if (performance.now() - this.renewedAt > (this.graceMs * 3) / 4) await this.renew();
    return this.has(key) && performance.now() - this.renewedAt <= (this.graceMs * 3) / 4;
  }

  private renew(): Promise<void> {
    this.renewing ??= this.write().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async write(): Promise<void> {
    if (this.held.size === 0) return;
    const started = performance.now();
    try {
      const held = await leaseDeliveryDues(database(), this.shopId, [...this.held.values()], {
        leaseId: this.id,
        at: new Date(),
      });
      const kept = new Set(held.map(keyOf));
      // A row not returned was claimed by the pass, or its attempt was logged meanwhile.
      for (const id of this.held.keys()) if (!kept.has(id)) this.held.delete(id);
      this.renewedAt = started;
    } catch (error) {
      logger.warn({ err: error }, "lease on a batch's deliveries not renewed");
    }
  }
}

/**
 * How old a read of a batch's delivery states may be when a delivery gets its slot and is sent on it (the
 * same window as a single job's, between its read and its request). A batch's deliveries can wait behind
 * a hanging receiver for many timeouts: one admitted later reads again.
 */
export const BATCH_STATE_MAX_AGE_MS = 25;

/**
 * The state of a batch's deliveries (event, endpoint, shop) as of a read at most BATCH_STATE_MAX_AGE_MS
 * old when a delivery gets its slot. A read covers every delivery the batch still holds, so the deliveries
 * admitted within the next 25 ms are sent on it: with receivers that answer at once, one statement per
 * 25 ms for the batch, not one per delivery.
 */
class FreshState {
  private rows = new Map<string, BatchRow | undefined>();
  private readAt = Number.NEGATIVE_INFINITY;
  private readonly wanted = new Map<string, DueKey>();
  private reading: Promise<void> | undefined;

  constructor(
    private readonly shopId: string,
    private readonly remaining: () => Iterable<DueKey>,
  ) {}

  /** The batch's first read, taken at `readAt`. */
  seed(rows: ReadonlyMap<string, BatchRow>, readAt: number): void {
    [this.rows, this.readAt] = [new Map(rows), readAt];
  }

  async stateOf(key: DueKey): Promise<BatchRow | undefined> {
    const id = keyOf(key);
    const admittedAt = performance.now();
    for (;;) {
      if (this.readAt >= admittedAt - BATCH_STATE_MAX_AGE_MS && this.rows.has(id)) return this.rows.get(id);
      this.wanted.set(id, key);
      this.reading ??= this.read().finally(() => (this.reading = undefined));
      await this.reading;
    }
  }

  private async read(): Promise<void> {
    // Lets the deliveries admitted in this turn join the read.
    await Promise.resolve();
    const keys = new Map(this.wanted);
    this.wanted.clear();
    for (const key of this.remaining()) keys.set(keyOf(key), key);
    const readAt = performance.now();
    const rows = await findEndpointsForDeliveries(database(), this.shopId, [...keys.values()]);
    const found = new Map(rows.map((row) => [keyOf(row), row]));
    this.rows = new Map([...keys.keys()].map((id) => [id, found.get(id)]));
    this.readAt = readAt;
  }
}
