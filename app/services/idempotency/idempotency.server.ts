import { prisma } from "~/db.server";
import { open, seal, SEALED_PREFIX, UnreadableCiphertextError } from "~/lib/encryption.server";
import { AppError } from "~/lib/problems";
import { logger } from "~/logger.server";

/**
 * Idempotency-Key records (docs/openapi.json): 24 hours, scoped per shop, credential and shopper (the
 * credential column holds the scope, see api/v1/idempotency.server.ts), in the database so they hold across
 * every app process. The unique (shop, credential, key) index decides which of several concurrent requests
 * runs; the others see its record.
 *
 * Stored response bodies are encrypted (lib/encryption.server.ts, AES-256-GCM with the record's scope as
 * associated data): a creation response carries a one-time secret (`svc_sk_...`, `whsec_...`), which must
 * not sit in the database in clear. A replay still returns it, to the same credential within the 24 hours,
 * since a client that lost the first answer has no other way to learn it. A body that no longer decrypts
 * (SERVICE_SECRET rotated without SERVICE_SECRET_PREVIOUS, or a record moved to another scope) is treated as
 * an expired record: dropped, and the request runs anew.
 */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Scope {
  shopId: string;
  credentialId: string;
  key: string;
}

export type Reservation =
  { kind: "reserved"; recordId: string; scope: Scope } | { kind: "replay"; response: StoredResponse };

const PURPOSE = "idempotency-response";
const associatedData = ({ shopId, credentialId, key }: Scope) => `${shopId}\0${credentialId}\0${key}`;

/** Records written before bodies were encrypted (at most 24 hours old at the upgrade) are plain. */
function readBody(scope: Scope, stored: string): string {
  return stored.startsWith(SEALED_PREFIX) ? open(PURPOSE, stored, associatedData(scope)) : stored;
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";
}

/** Reserves the key for this request, or returns the stored result of the request that used it. */
export async function reserveIdempotencyKey(scope: Scope, requestHash: string, now = new Date()): Promise<Reservation> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const record = await prisma.idempotencyRecord.create({
        data: { ...scope, requestHash, expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS) },
      });
      return { kind: "reserved", recordId: record.id, scope };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const existing = await prisma.idempotencyRecord.findUnique({
      where: { shopId_credentialId_key: scope },
    });
    if (!existing) continue; // released between our insert and read: try again
    if (existing.expiresAt <= now) {
      await prisma.idempotencyRecord.deleteMany({ where: { id: existing.id, expiresAt: { lte: now } } });
      continue;
    }
    if (existing.requestHash !== requestHash) {
      throw new AppError("idempotency-key-reused", {
        detail: "This Idempotency-Key was used for a different request in the last 24 hours.",
      });
    }
    if (existing.state !== "completed" || existing.responseStatus === null) {
      throw new AppError("idempotency-key-in-use", {
        detail: "A request with this Idempotency-Key is still in progress.",
        headers: { "Retry-After": "1" },
      });
    }
    let body: string;
    try {
      body = readBody(scope, existing.responseBody ?? "");
    } catch (error) {
      if (!(error instanceof UnreadableCiphertextError)) throw error;
      logger.warn({ shopId: scope.shopId, err: error }, "stored idempotent response unreadable: the request runs anew");
      await prisma.idempotencyRecord.deleteMany({ where: { id: existing.id } });
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
  throw new AppError("idempotency-key-in-use", { detail: "The Idempotency-Key is contended; retry." });
}

/** Stores the outcome. Server errors release the key instead, so the client may retry the same request. */
export async function completeIdempotencyKey(
  { recordId, scope }: { recordId: string; scope: Scope },
  response: StoredResponse,
): Promise<void> {
  if (response.status >= 500) {
    await prisma.idempotencyRecord.deleteMany({ where: { id: recordId } });
    return;
  }
  await prisma.idempotencyRecord.update({
    where: { id: recordId },
    data: {
      state: "completed",
      responseStatus: response.status,
      responseHeaders: JSON.stringify(response.headers),
      responseBody: seal(PURPOSE, response.body, associatedData(scope)),
    },
  });
}

export async function releaseIdempotencyKey(recordId: string): Promise<void> {
  await prisma.idempotencyRecord.deleteMany({ where: { id: recordId } });
}

/** Housekeeping: drops expired records (run by the worker). */
export async function purgeExpiredIdempotencyKeys(now = new Date()): Promise<number> {
  const { count } = await prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
  return count;
}
