import { createHmac } from "node:crypto";
import type { Readable } from "node:stream";
import { request, type Dispatcher } from "undici";
import { sql } from "~/db.server";
import { getEnv } from "~/env.server";
import type { DeliverWebhookPayload } from "~/jobs/definitions";
import { newId } from "~/lib/ids";
import { AUTO_DISABLE_AFTER, retryDelayMs, WEBHOOK_ATTEMPTS } from "./schedule";
import { decryptSecret } from "./secrets.server";
import { assertLiteralHostAllowed } from "./ssrf.server";

export const USER_AGENT = "WishlistService-Webhooks/1 (+https://wishlist-service.example/docs/webhooks)";
/** Response bodies are read up to this many bytes and kept in the delivery log. */
export const RESPONSE_SNIPPET_BYTES = 1_024;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (spec 6). */
export function signatureHeader(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** Thrown for a failed attempt that will be retried; BullMQ's backoff strategy reads `delayMs`. */
export class DeliveryFailed extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
    this.name = "DeliveryFailed";
  }
}

async function readCapped(body: Readable & { dump?: () => Promise<void> }, cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= cap) break; // leaving the loop destroys the stream: nothing more is read
  }
  return Buffer.concat(chunks).subarray(0, cap).toString("utf8");
}

function describe(error: unknown): string {
  const err = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === "TimeoutError" || err.code === "UND_ERR_HEADERS_TIMEOUT" || err.code === "UND_ERR_BODY_TIMEOUT") {
    return "timeout";
  }
  const code = err.cause?.code ?? err.code;
  const message = err.cause?.message ?? err.message ?? String(error);
  return (code ? `${code}: ${message}` : message).slice(0, 500);
}

interface EndpointRow {
  url: string;
  secretCiphertext: string;
  disabledAt: unknown;
}

export type DeliveryOutcome =
  | { status: "skipped"; reason: "endpoint-deleted" | "endpoint-disabled" }
  | { status: "succeeded" | "failed"; deliveryId: string; statusCode: number | null; retryInMs: number | null };

/**
 * One attempt (issue 5): POST the exact envelope bytes, signed, with a timeout and no redirects; log the
 * attempt and keep the endpoint's consecutive-failure count (disabled at 20), in one transaction. A
 * deleted or disabled endpoint is sent nothing. `attemptsMade` is how many attempts this job made before.
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
  const db = sql();
  const endpoint = await db.get<EndpointRow>(
    `SELECT "url", "secretCiphertext", "disabledAt" FROM "WebhookEndpoint" WHERE "id" = ? AND "shopId" = ?`,
    [payload.endpointId, payload.shopId],
  );
  if (!endpoint) return { status: "skipped", reason: "endpoint-deleted" };
  if (endpoint.disabledAt !== null) return { status: "skipped", reason: "endpoint-disabled" };

  const deliveryId = newId("delivery");
  const started = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  let snippet: string | null = null;
  try {
    const url = new URL(endpoint.url);
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
          decryptSecret(endpoint.secretCiphertext),
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
    error = describe(caught);
  }
  const durationMs = Math.round(performance.now() - started);
  const succeeded = error === null;
  const retriesLeft = !succeeded && attemptsMade + 1 < maxAttempts;
  const retryInMs = retriesLeft ? retryDelayMs(attemptsMade + 1, env.WEBHOOK_RETRY_UNIT_MS) : null;
  const now = new Date();

  await db.transaction(async (tx) => {
    const gone =
      (await tx.get(`SELECT 1 AS "x" FROM "WebhookEndpoint" WHERE "id" = ?`, [payload.endpointId])) === undefined;
    if (gone) return; // deleted while we were sending: its log went with it
    await tx.run(
      `INSERT INTO "WebhookDelivery" ("id", "shopId", "endpointId", "eventId", "attempt", "status", "statusCode", ` +
        `"durationMs", "error", "responseSnippet", "nextRetryAt", "createdAt", "finishedAt") ` +
        `SELECT ?, ?, ?, ?, COALESCE(MAX("attempt"), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ? FROM "WebhookDelivery" ` +
        `WHERE "eventId" = ? AND "endpointId" = ?`,
      [
        deliveryId,
        payload.shopId,
        payload.endpointId,
        payload.eventId,
        succeeded ? "succeeded" : "failed",
        statusCode,
        durationMs,
        error,
        snippet,
        retryInMs === null ? null : new Date(now.getTime() + retryInMs),
        now,
        now,
        payload.eventId,
        payload.endpointId,
      ],
    );
    if (succeeded) {
      await tx.run(
        `UPDATE "WebhookEndpoint" SET "failCount" = 0, "updatedAt" = ? WHERE "id" = ? AND "failCount" <> 0`,
        [now, payload.endpointId],
      );
    } else {
      await tx.run(
        `UPDATE "WebhookEndpoint" SET "failCount" = "failCount" + 1, "updatedAt" = ?, ` +
          `"disabledAt" = CASE WHEN "disabledAt" IS NULL AND "failCount" + 1 >= ? THEN ? ELSE "disabledAt" END ` +
          `WHERE "id" = ?`,
        [now, AUTO_DISABLE_AFTER, now, payload.endpointId],
      );
    }
  });
  return { status: succeeded ? "succeeded" : "failed", deliveryId, statusCode, retryInMs };
}
