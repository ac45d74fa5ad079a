import { hkdfSync } from "node:crypto";
import { getEnv } from "~/env.server";

/**
 * Purpose-bound keys derived from SERVICE_SECRET (HKDF-SHA256), so one configured secret never signs
 * two different kinds of things with the same key. `secret` names another master secret (key rotation:
 * SERVICE_SECRET_PREVIOUS, see lib/encryption.server.ts).
 */
export type KeyPurpose =
  | "cursor"
  | "signed-url"
  | "webhook-secret-encryption"
  | "idempotency-response"
  | "demo"
  | "export-pseudonym"
  | "compliance-email"
  | "alert-link"
  | "smtp-password"
  | "guest-list-attribute";

const cache = new Map<string, Buffer>();

export function deriveKey(purpose: KeyPurpose, secret = getEnv().SERVICE_SECRET): Buffer {
  const cacheKey = `${purpose}\0${secret}`;
  let key = cache.get(cacheKey);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", secret, "wishlist-service", purpose, 32));
    cache.set(cacheKey, key);
  }
  return key;
}
