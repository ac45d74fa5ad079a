/**
 * Endpoint signing secrets: shown once at creation, stored encrypted (lib/encryption.server.ts: AES-256-GCM,
 * key derived from SERVICE_SECRET for this purpose only, versioned for rotation), decrypted by the worker to
 * sign deliveries. The associated data is the endpoint's id and shop id, so a ciphertext copied onto
 * another endpoint (or another shop's) does not decrypt.
 *
 * Values stored before associated data was added (`v1.<iv>.<tag>.<ciphertext>`, no key id, no associated
 * data) still decrypt, under SERVICE_SECRET or SERVICE_SECRET_PREVIOUS.
 */
import { randomBytes } from "node:crypto";
import { database } from "~/data/database.server";
import { findEndpointsNotSealedWith, replaceSealedSecret } from "~/data/webhook-endpoint-rows.server";
import { decryptWith, keysFor, open, seal, SEALED_PREFIX, UnreadableCiphertextError } from "~/lib/encryption.server";

const PURPOSE = "webhook-secret-encryption";

export interface SecretOwner {
  endpointId: string;
  shopId: string;
}

const associatedData = ({ endpointId, shopId }: SecretOwner) => `webhook-endpoint\0${shopId}\0${endpointId}`;

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

export function encryptSecret(secret: string, owner: SecretOwner): string {
  return seal(PURPOSE, secret, associatedData(owner));
}

export function decryptSecret(stored: string, owner: SecretOwner): string {
  if (!stored.startsWith("v1.")) return open(PURPOSE, stored, associatedData(owner));
  const [, iv, tag, ciphertext] = stored.split(".");
  if (!iv || !tag || ciphertext === undefined) throw new UnreadableCiphertextError("not a v1 value");
  let failure: unknown;
  for (const { key } of keysFor(PURPOSE)) {
    try {
      return decryptWith(key, { iv, tag, ciphertext });
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

const decrypted = new Map<string, string>();

/**
 * The worker signs every delivery with the endpoint's secret: decrypted once per stored value and kept in
 * this process's memory (never logged, never persisted in clear), bounded in size.
 */
export function endpointSecret(stored: string, owner: SecretOwner): string {
  const cacheKey = `${owner.shopId}\0${owner.endpointId}\0${stored}`;
  let secret = decrypted.get(cacheKey);
  if (secret === undefined) {
    secret = decryptSecret(stored, owner);
    if (decrypted.size >= 10_000) decrypted.clear();
    decrypted.set(cacheKey, secret);
  }
  return secret;
}

/**
 * Re-encrypts every stored secret not sealed under the current SERVICE_SECRET (first-form `v1.` values, and
 * values sealed under SERVICE_SECRET_PREVIOUS), so the previous secret can then be dropped. Each row is
 * rewritten only if unchanged since it was read. Values that decrypt under neither secret are left as they
 * are and counted in `unreadable`.
 */
export async function resealEndpointSecrets(): Promise<{ resealed: number; unreadable: number }> {
  const current = `${SEALED_PREFIX}${keysFor(PURPOSE)[0]!.id}.`;
  const rows = await findEndpointsNotSealedWith(database(), current);
  let resealed = 0;
  let unreadable = 0;
  for (const row of rows) {
    const owner = { endpointId: row.id, shopId: row.shopId };
    let secret: string;
    try {
      secret = decryptSecret(row.secretCiphertext, owner);
    } catch (error) {
      if (!(error instanceof UnreadableCiphertextError)) throw error;
      unreadable++;
      continue;
    }
    if (await replaceSealedSecret(database(), row, row.secretCiphertext, encryptSecret(secret, owner))) resealed++;
  }
  return { resealed, unreadable };
}
