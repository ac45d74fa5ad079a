import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { getEnv } from "~/env.server";
import { deriveKey, type KeyPurpose } from "./derived-keys.server";

/**
 * Encryption at rest: AES-256-GCM under a key derived from SERVICE_SECRET for one purpose, with associated
 * data that binds each value to the record holding it (a value copied into another row does not decrypt).
 *
 * Stored form: `v2.<keyId>.<iv>.<tag>.<ciphertext>`, base64url parts. `keyId` names the master secret the
 * value was sealed under: a short HMAC fingerprint of the derived key, which reveals nothing about it.
 * Rotation (see .env.example): set the new SERVICE_SECRET and move the old one to SERVICE_SECRET_PREVIOUS;
 * new values are sealed under the new secret and values sealed under the previous one still open.
 */
export const SEALED_PREFIX = "v2.";

export class UnreadableCiphertextError extends Error {
  constructor(reason: string) {
    super(`The stored value cannot be decrypted: ${reason}.`);
    this.name = "UnreadableCiphertextError";
  }
}

export interface VersionedKey {
  id: string;
  key: Buffer;
}

const versioned = new Map<string, VersionedKey>();

function versionedKey(purpose: KeyPurpose, secret: string): VersionedKey {
  const cacheKey = `${purpose}\0${secret}`;
  let entry = versioned.get(cacheKey);
  if (!entry) {
    const key = deriveKey(purpose, secret);
    entry = { id: createHmac("sha256", key).update("key-id").digest("base64url").slice(0, 8), key };
    versioned.set(cacheKey, entry);
  }
  return entry;
}

/** The keys of this purpose that may open a value: the current one first, then the previous one if set. */
export function keysFor(purpose: KeyPurpose): VersionedKey[] {
  const { SERVICE_SECRET, SERVICE_SECRET_PREVIOUS } = getEnv();
  const keys = [versionedKey(purpose, SERVICE_SECRET)];
  if (SERVICE_SECRET_PREVIOUS && SERVICE_SECRET_PREVIOUS !== SERVICE_SECRET) {
    keys.push(versionedKey(purpose, SERVICE_SECRET_PREVIOUS));
  }
  return keys;
}

export function seal(purpose: KeyPurpose, plaintext: string, associatedData: string): string {
  const { id, key } = keysFor(purpose)[0]!;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(associatedData, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `${SEALED_PREFIX}${id}.${[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString("base64url")).join(".")}`;
}

/** AES-256-GCM decryption; throws UnreadableCiphertextError when the key, tag or associated data do not match. */
export function decryptWith(key: Buffer, parts: { iv: string; tag: string; ciphertext: string }, aad?: string) {
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(parts.iv, "base64url"));
    if (aad !== undefined) decipher.setAAD(Buffer.from(aad, "utf8"));
    decipher.setAuthTag(Buffer.from(parts.tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(parts.ciphertext, "base64url")), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    throw new UnreadableCiphertextError("authentication failed (wrong key, or the value was moved or altered)");
  }
}

export function open(purpose: KeyPurpose, sealed: string, associatedData: string): string {
  const [version, keyId, iv, tag, ciphertext] = sealed.split(".");
  if (`${version}.` !== SEALED_PREFIX || !keyId || !iv || !tag || ciphertext === undefined) {
    throw new UnreadableCiphertextError("not a sealed value");
  }
  const match = keysFor(purpose).find((candidate) => candidate.id === keyId);
  if (!match) {
    throw new UnreadableCiphertextError(
      `sealed under key ${keyId}, which is neither SERVICE_SECRET nor SERVICE_SECRET_PREVIOUS`,
    );
  }
  return decryptWith(match.key, { iv, tag, ciphertext }, associatedData);
}
