import { createHmac, timingSafeEqual } from "node:crypto";
import { AppError } from "./problems";
import { deriveKey } from "./derived-keys.server";

/**
 * Opaque pagination cursors: base64url(JSON payload) + "." + base64url(HMAC). The HMAC covers a scope
 * (endpoint and shop) so a cursor cannot be edited, nor replayed against another listing.
 */
const SIGNATURE_BYTES = 16;

function sign(scope: string, payload: string): Buffer {
  return createHmac("sha256", deriveKey("cursor"))
    .update(scope)
    .update("\0")
    .update(payload)
    .digest()
    .subarray(0, SIGNATURE_BYTES);
}

export function encodeCursor(scope: string, position: Record<string, string | number>): string {
  const payload = Buffer.from(JSON.stringify(position)).toString("base64url");
  return `${payload}.${sign(scope, payload).toString("base64url")}`;
}

export function invalidCursor(): AppError {
  return new AppError("invalid-cursor", {
    detail: "The cursor is not one this endpoint issued. Pass pageInfo.nextCursor back unchanged.",
    errors: [{ parameter: "cursor", detail: "unknown or altered cursor" }],
  });
}

export function decodeCursor(scope: string, cursor: string): Record<string, string | number> {
  const invalid = invalidCursor;
  const [payload, signature, ...rest] = cursor.split(".");
  if (!payload || !signature || rest.length > 0) throw invalid();
  const given = Buffer.from(signature, "base64url");
  const expected = sign(scope, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  try {
    const value: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid();
    return value as Record<string, string | number>;
  } catch {
    throw invalid();
  }
}
