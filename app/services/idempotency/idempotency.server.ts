import { prisma } from "~/db.server";
import { AppError } from "~/lib/problems";

/**
 * Idempotency-Key records (spec 1 and 8): 24 hours, scoped per shop and credential, in the database so
 * they hold across every app process. The unique (shop, credential, key) index decides which of several
 * concurrent requests runs; the others see its record.
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

export type Reservation = { kind: "reserved"; recordId: string } | { kind: "replay"; response: StoredResponse };

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
      return { kind: "reserved", recordId: record.id };
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
    return {
      kind: "replay",
      response: {
        status: existing.responseStatus,
        headers: JSON.parse(existing.responseHeaders ?? "{}") as Record<string, string>,
        body: existing.responseBody ?? "",
      },
    };
  }
  throw new AppError("idempotency-key-in-use", { detail: "The Idempotency-Key is contended; retry." });
}

/** Stores the outcome. Server errors release the key instead, so the client may retry the same request. */
export async function completeIdempotencyKey(recordId: string, response: StoredResponse): Promise<void> {
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
      responseBody: response.body,
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
