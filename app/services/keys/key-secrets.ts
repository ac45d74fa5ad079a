import { createHash, randomBytes } from "node:crypto";

/**
 * Key formats: `svc_sk_` (private) and `svc_pk_` (public) followed by random base62 characters, so a
 * key is one double-click-selectable word. Only a SHA-256 of a private key is stored: the secret has
 * about 190 bits of entropy, so a slow KDF would add cost on every request and no protection.
 */
export const PRIVATE_KEY_PREFIX = "svc_sk_";
export const PUBLIC_KEY_PREFIX = "svc_pk_";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniform base62: bytes >= 248 (the largest multiple of 62 below 256) are discarded to avoid bias. */
function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function generatePrivateKey(): string {
  return PRIVATE_KEY_PREFIX + randomBase62(32);
}

export function generatePublicKey(): string {
  return PUBLIC_KEY_PREFIX + randomBase62(24);
}

export function hashKey(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
