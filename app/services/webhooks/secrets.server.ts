import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { deriveKey } from "~/lib/secrets.server";

/**
 * Endpoint signing secrets: shown once at creation, stored encrypted (AES-256-GCM, key derived from
 * SERVICE_SECRET for this purpose only), decrypted by the worker to sign deliveries. Stored form:
 * `v1.<iv>.<tag>.<ciphertext>`, base64url parts; the version leaves room for key rotation.
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

export function encryptSecret(secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", deriveKey("webhook-secret-encryption"), iv);
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

const decrypted = new Map<string, string>();

/**
 * The worker signs every delivery with the endpoint's secret: decrypted once per stored value and kept in
 * this process's memory (never logged, never persisted in clear), bounded in size.
 */
export function endpointSecret(stored: string): string {
  let secret = decrypted.get(stored);
  if (secret === undefined) {
    secret = decryptSecret(stored);
    if (decrypted.size >= 10_000) decrypted.clear();
    decrypted.set(stored, secret);
  }
  return secret;
}

export function decryptSecret(stored: string): string {
  const [version, iv, tag, ciphertext] = stored.split(".");
  if (version !== "v1" || !iv || !tag || !ciphertext) throw new Error("unreadable webhook secret");
  const decipher = createDecipheriv(
    "aes-256-gcm",
    deriveKey("webhook-secret-encryption"),
    Buffer.from(iv, "base64url"),
  );
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
}
