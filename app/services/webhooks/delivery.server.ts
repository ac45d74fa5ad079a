/**
 * Webhook delivery attempts (docs/webhooks.md, docs/decisions/013-webhook-delivery.md): one signed POST
 * per job run, its outcome written to the delivery log together with the endpoint's failure count.
 */
import { createHmac } from "node:crypto";
import type { Readable } from "node:stream";
import { request, type Dispatcher } from "undici";
import { database, transaction, type Tx } from "~/data/database.server";
import { waitForEventsRelayed } from "~/data/event-rows.server";
import { insertAttempts, type AttemptRecord } from "~/data/webhook-delivery-rows.server";
import { deferDeliveryDue, deleteDeliveryDues, type DueKey } from "~/data/webhook-delivery-due-rows.server";
import { addFailures, findEndpointForDelivery, resetFailCounts } from "~/data/webhook-endpoint-rows.server";
import { getEnv } from "~/env.server";
import type { DeliverWebhookPayload } from "~/jobs/definitions";
import { newId } from "~/lib/ids";
import { logger } from "~/logger.server";
import { AUTO_DISABLE_AFTER, retryDelayMs, WEBHOOK_ATTEMPTS } from "./schedule";
import { endpointSecret } from "./endpoint-secrets.server";
import { isRedactedEnvelope } from "./fanout.server";
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

/**
 * Group commit: attempts that finish while a write is in progress are logged together in the next
 * transaction, and each attempt's job completes only once its record is committed (so a crash never
 * completes a job without its log entry). A batch that fails is written again one record at a time, so
 * one bad record (its endpoint deleted on PostgreSQL between check and insert) fails alone.
 */
class DeliveryLog {
  private pending: Array<LogEntry & { resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing = false;

  write(entry: LogEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ ...entry, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush() {
    this.flushing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, 200);
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
  | { status: "skipped"; reason: "endpoint-deleted" | "endpoint-disabled" | "shop-uninstalled" | "event-redacted" }
  | { status: "succeeded" | "failed"; deliveryId: string; statusCode: number | null; retryInMs: number | null };

/**
 * One attempt: POST the exact envelope bytes, signed, with a timeout and no redirects; log the
 * attempt and keep the endpoint's count of consecutive failed deliveries (disabled at 20), in one transaction. A
 * deleted or disabled endpoint, one of a shop that uninstalled the app, or an event a customers/redact erased, is
 * sent nothing. `attemptsMade` is how many attempts this job made before.
 */
export async function deliverOnce(
  payload: DeliverWebhookPayload,
  {
    attemptsMade,
    maxAttempts = WEBHOOK_ATTEMPTS,
    dispatcher,
  }: { attemptsMade: number; maxAttempts?: number; dispatcher: Dispatcher },
): Promise<DeliveryOutcome> {
  const env = getEnv();
  const endpoint = await findEndpointForDelivery(database(), payload.shopId, payload.endpointId, {
    eventId: payload.eventId,
    redactedData: REDACTED_EVENT_DATA,
  });
  if (!endpoint) return { status: "skipped", reason: "endpoint-deleted" }; // its owed row went with it
  // Deliveries stop when the endpoint is disabled or the app uninstalled (queued ones included; a reinstall
  // starts new ones): the delivery ends here and is owed no more.
  // So do deliveries of an event a customers/redact erased: the stored event decides, not the queued body, which
  // a redaction cannot always reach (a redelivery's job, or one the relay queued while the redaction ran).
  const skipped =
    endpoint.disabledAt !== null
      ? "endpoint-disabled"
      : endpoint.shopUninstalledAt !== null
        ? "shop-uninstalled"
        : endpoint.redactedEventId !== null || isRedactedEnvelope(payload.body)
          ? "event-redacted"
          : null;
  if (skipped) {
    if (!payload.redelivery) {
      await transaction(async (tx) => {
        await waitForEventsRelayed(tx, [payload.eventId]);
        await deleteDeliveryDues(tx, [payload]);
      });
    }
    return { status: "skipped", reason: skipped };
  }

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
