/** A shop's private API keys: created with a one-time secret, listed, revoked, and found by their secret. */
import { z } from "zod";
import {
  countActiveApiKeys,
  findActiveApiKeyByHash,
  findApiKeyById,
  findApiKeyForAuth,
  findApiKeysOfShop,
  insertApiKey,
  lockShopApiKeys,
  revokeApiKeyRow,
  touchApiKeyRow,
  type ApiKeyAuthRow,
  type ApiKeyRow,
} from "~/data/api-key-rows.server";
import { database, transaction, type UnitOfWork } from "~/data/database.server";
import { DomainError } from "~/lib/domain-error";
import { newId } from "~/lib/ids";
import { logger } from "~/logger.server";
import { forgetAuthentication, rememberedKey } from "./authentication-cache.server";
import { generatePrivateKey, hashKey } from "./key-secrets";

export interface CreatedApiKey {
  key: ApiKeyRow;
  /** The secret, returned here once and never stored (only its hash is). */
  secret: string;
}

/** What creating a key takes (POST /v1/keys and the admin's API keys page): a label to recognise it by. */
export const apiKeyCreateSchema = z.object({ label: z.string().trim().min(1, "must not be empty").max(100) }).strict();

/**
 * Active (not revoked) private keys a shop may hold. A bound, because each key is a row the keys page lists and
 * reads the use of from Redis on every view (docs/decisions/061-key-usage-in-redis.md): without one, a holder of
 * any private key could create keys until the merchant's page, and the Redis every shop shares, stalled.
 */
export const MAX_ACTIVE_KEYS_PER_SHOP = 50;

/**
 * Creates a private key for the shop, at most MAX_ACTIVE_KEYS_PER_SHOP active ones even under concurrent requests
 * (the count and the insert run in one transaction holding the shop's key lock on PostgreSQL, the database's
 * write lock on SQLite).
 */
export async function createApiKey(
  { shopId, label }: { shopId: string; label: string },
  unit?: UnitOfWork<CreatedApiKey>,
): Promise<CreatedApiKey> {
  const secret = generatePrivateKey();
  const values = { id: newId("apiKey"), shopId, label, kind: "private", hash: hashKey(secret), hint: secret.slice(-4) };
  return transaction(async (tx) => {
    await lockShopApiKeys(tx, shopId);
    if ((await countActiveApiKeys(tx, shopId)) >= MAX_ACTIVE_KEYS_PER_SHOP) {
      throw new DomainError(
        "conflict",
        `A shop may have at most ${MAX_ACTIVE_KEYS_PER_SHOP} active API keys: revoke one it no longer uses first.`,
      );
    }
    const created = { key: await insertApiKey(tx, values, new Date()), secret };
    await unit?.within?.(tx, created);
    return created;
  });
}

/** The shop's keys, newest first (revoked ones included, with revokedAt set). */
export async function listApiKeys({ shopId }: { shopId: string }): Promise<ApiKeyRow[]> {
  return findApiKeysOfShop(database(), shopId);
}

/** Revokes a key of this shop. Revoking an already revoked key changes nothing and is no error. */
export async function revokeApiKey({ shopId, keyId }: { shopId: string; keyId: string }): Promise<void> {
  if (await revokeApiKeyRow(database(), shopId, keyId, new Date())) return forgetAuthentication();
  if (!(await findApiKeyById(database(), shopId, keyId))) {
    throw new DomainError("not_found", `No API key ${keyId} in this shop.`);
  }
}

/** The active (not revoked) key of this shop matching a secret, if any. */
export async function findActiveKeyBySecret({ shopId, secret }: { shopId: string; secret: string }) {
  return (await findActiveApiKeyByHash(database(), shopId, hashKey(secret))) ?? null;
}

/**
 * Authentication lookup: the key (any shop) whose hash matches, with its shop. The one lookup not scoped by
 * a shop id, because it is how the shop of a private-key call is found. Read at most once a second per
 * process (authentication-cache.server.ts).
 */
export async function findKeyForAuthentication(secret: string): Promise<ApiKeyAuthRow | null> {
  const hash = hashKey(secret);
  return rememberedKey(hash, async () => (await findApiKeyForAuth(database(), hash)) ?? null);
}

const TOUCH_INTERVAL_MS = 60_000;
const lastTouched = new Map<string, number>();

/**
 * Keeps lastUsedAt roughly current (to the minute) without a write per request: each process writes at
 * most once a minute per key, and never waits for it.
 */
export function touchApiKey({ shopId, keyId }: { shopId: string; keyId: string }, now = Date.now()): void {
  const previous = lastTouched.get(keyId);
  if (previous !== undefined && now - previous < TOUCH_INTERVAL_MS) return;
  lastTouched.set(keyId, now);
  touchApiKeyRow(database(), shopId, keyId, new Date(now)).catch((error: unknown) =>
    logger.warn({ err: error, keyId }, "could not record key use"),
  );
}
