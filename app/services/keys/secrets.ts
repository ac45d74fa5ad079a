import { createHash, randomBytes } from "node:crypto";

/** Private keys: `svc_sk_` + 192 random bits. Only their SHA-256 is stored (high entropy: no KDF needed). */
export const PRIVATE_KEY_PREFIX = "svc_sk_";
export const PUBLIC_KEY_PREFIX = "svc_pk_";

export function generatePrivateKey(): string {
  return PRIVATE_KEY_PREFIX + randomBytes(24).toString("base64url");
}

export function generatePublicKey(): string {
  return PUBLIC_KEY_PREFIX + randomBytes(18).toString("base64url");
}

export function hashKey(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
