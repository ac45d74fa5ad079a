/**
 * Idempotency-Key records (docs/openapi.json): 24 hours, scoped per shop, credential and shopper (the
 * credential column holds the scope, see app/api/v1/idempotency-key.server.ts), in the database so they hold
 * across every app process. The unique (shop, credential, key) index decides which of several concurrent
 * requests runs; the others see its record. A service's unit of work may complete the record inside its own
 * transaction, so the stored response commits together with the change (docs/decisions/017-data-layer.md).
 *
 * Stored response bodies are encrypted (lib/encryption.server.ts, AES-256-GCM with the record's scope as
 * associated data): a creation response carries a one-time secret (`svc_sk_...`, `whsec_...`), which must
 * not sit in the database in clear. A replay still returns it, to the same credential within the 24 hours,
 * since a client that lost the first answer has no other way to learn it. A body that no longer decrypts
 * (SERVICE_SECRET rotated without SERVICE_SECRET_PREVIOUS, or a record moved to another scope) is treated as
 * an expired record: dropped, and the request runs anew.
 */
import { database, isUniqueViolation, type Queryable } from "~/data/database.server";
import {
  completeIdempotencyRecord,
  deleteExpiredIdempotencyRecords,
  deleteIdempotencyRecord,
  deleteInFlightIdempotencyRecord,
  findIdempotencyRecord,
  insertIdempotencyRecord,
  type IdempotencyScope,
} from "~/data/idempotency-rows.server";
import { DomainError } from "~/lib/domain-error";
import { open, seal, SEALED_PREFIX, UnreadableCiphertextError } from "~/lib/encryption.server";
import { logger } from "~/logger.server";

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * A record still in flight this long after its request began was abandoned: the process stopped, or could
 * not release the key (no database connection to do it with). Well past what a request may take (a 5 s
 * wait for a connection, a 10 s transaction deadline), so a request still running is never run twice.
 */
export const IN_FLIGHT_ABANDONED_MS = 60_000;

/** The outcome kept for replays: the caller's status code, the headers it repeats, the body. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Reservation {
  recordId: string;
  scope: IdempotencyScope;
}

export type ReservationOutcome = ({ kind: "reserved" } & Reservation) | { kind: "replay"; response: StoredResponse };

const PURPOSE = "idempotency-response";
const associatedData = ({ shopId, credentialId, key }: IdempotencyScope) => `${shopId}\0${credentialId}\0${key}`;

/** Records written before bodies were encrypted (at most 24 hours old at the upgrade) are plain. */
function readBody(scope: IdempotencyScope, stored: string): string {
  return stored.startsWith(SEALED_PREFIX) ? open(PURPOSE, stored, associatedData(scope)) : stored;
}

/** Reserves the key for this request, or returns the stored result of the request that used it. */
export async function reserveIdempotencyKey(
  scope: IdempotencyScope,
  requestHash: string,
  now = new Date(),
): Promise<ReservationOutcome> {
  const db = database();
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const expiresAt = new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS);
      const recordId = await insertIdempotencyRecord(db, scope, requestHash, now, expiresAt);
      return { kind: "reserved", recordId, scope };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const existing = await findIdempotencyRecord(db, scope);
    if (!existing) continue; // released between our insert and read: try again
    if (existing.expiresAt <= now) {
      await deleteIdempotencyRecord(db, scope.shopId, existing.id, now);
      continue;
    }
    if (existing.requestHash !== requestHash) {
      throw new DomainError(
        "idempotency_key_reused",
        "This Idempotency-Key was used for a different request in the last 24 hours.",
      );
    }
    if (existing.state !== "completed" && now.getTime() - existing.createdAt.getTime() >= IN_FLIGHT_ABANDONED_MS) {
      logger.warn(
        { shopId: scope.shopId, recordId: existing.id },
        "abandoned idempotency record: the request runs anew",
      );
      await deleteInFlightIdempotencyRecord(db, scope.shopId, existing.id);
      continue;
    }
    if (existing.state !== "completed" || existing.responseStatus === null) {
      throw new DomainError("idempotency_key_in_use", "A request with this Idempotency-Key is still in progress.", {
        retryAfterSeconds: 1,
      });
    }
    let body: string;
    try {
      body = readBody(scope, existing.responseBody ?? "");
    } catch (error) {
      if (!(error instanceof UnreadableCiphertextError)) throw error;
      logger.warn({ shopId: scope.shopId, err: error }, "stored idempotent response unreadable: the request runs anew");
      await deleteIdempotencyRecord(db, scope.shopId, existing.id);
      continue;
    }
    return {
      kind: "replay",
      response: {
        status: existing.responseStatus,
        headers: JSON.parse(existing.responseHeaders ?? "{}") as Record<string, string>,
        body,
      },
    };
  }
  throw new DomainError("idempotency_key_in_use", "The Idempotency-Key is contended; retry.");
}

/**
 * Stores the outcome on `q`: a service's transaction (`tx`, from its unit of work), so the response commits
 * with the change, or the shared handle after the work. Only a record still in flight is completed, so a
 * record a unit of work completed is never overwritten. A server error (status 500 or more) releases the key
 * instead, so the client may retry the same request.
 */
export async function completeIdempotencyKey(
  { recordId, scope }: Reservation,
  response: StoredResponse,
  q: Queryable = database(),
): Promise<void> {
  if (response.status >= 500) {
    await deleteInFlightIdempotencyRecord(q, scope.shopId, recordId);
    return;
  }
  await completeIdempotencyRecord(q, scope.shopId, recordId, {
    responseStatus: response.status,
    responseHeaders: JSON.stringify(response.headers),
    responseBody: seal(PURPOSE, response.body, associatedData(scope)),
  });
}

/** The request failed: the key is free again, unless its record was completed with the change already. */
export async function releaseIdempotencyKey({ recordId, scope }: Reservation): Promise<void> {
  await deleteInFlightIdempotencyRecord(database(), scope.shopId, recordId);
}

/**
 * The request ended in a server error: its record goes whatever its state. A service may have completed it
 * inside its transaction and then undone its change (a job that could not be queued deletes its row), so a
 * stored success would replay an answer for nothing; the client may retry the same request.
 */
export async function discardIdempotencyKey({ recordId, scope }: Reservation): Promise<void> {
  await deleteIdempotencyRecord(database(), scope.shopId, recordId);
}

/** Housekeeping: drops expired records (run by the worker). */
export async function purgeExpiredIdempotencyKeys(now = new Date()): Promise<number> {
  return deleteExpiredIdempotencyRecords(database(), now);
}
