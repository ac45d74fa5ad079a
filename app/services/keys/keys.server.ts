import { prisma } from "~/db.server";
import { AppError } from "~/lib/problems";
import { newId } from "~/lib/ids";
import { logger } from "~/logger.server";
import { generatePrivateKey, hashKey } from "./secrets";

/** Creates a private key for the shop. The secret is returned here once and never stored. */
export async function createApiKey({ shopId, label }: { shopId: string; label: string }) {
  const secret = generatePrivateKey();
  const key = await prisma.apiKey.create({
    data: { id: newId("apiKey"), shopId, label, kind: "private", hash: hashKey(secret), hint: secret.slice(-4) },
  });
  return { key, secret };
}

/** The shop's keys, newest first (revoked ones included, with revokedAt set). */
export async function listApiKeys({ shopId }: { shopId: string }) {
  return prisma.apiKey.findMany({ where: { shopId }, orderBy: { id: "desc" } });
}

/** Revokes a key of this shop. Revoking an already revoked key is a no-op (same 204). */
export async function revokeApiKey({ shopId, keyId }: { shopId: string; keyId: string }) {
  const { count } = await prisma.apiKey.updateMany({
    where: { id: keyId, shopId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (count === 0 && !(await prisma.apiKey.findFirst({ where: { id: keyId, shopId }, select: { id: true } }))) {
    throw new AppError("not-found", { detail: `No API key ${keyId} in this shop.` });
  }
}

/** The active (not revoked) key of this shop matching a secret, if any. */
export async function findActiveKeyBySecret({ shopId, secret }: { shopId: string; secret: string }) {
  return prisma.apiKey.findFirst({ where: { shopId, hash: hashKey(secret), revokedAt: null } });
}

/**
 * Authentication lookup: the key (any shop) whose hash matches, with its shop. This is the one query
 * not scoped by a shop id, because it is how the shop of a private-key call is found.
 */
export async function findKeyForAuthentication(secret: string) {
  return prisma.apiKey.findUnique({
    where: { hash: hashKey(secret) },
    include: { shop: { select: { id: true, domain: true, uninstalledAt: true } } },
  });
}

const TOUCH_INTERVAL_MS = 60_000;
const lastTouched = new Map<string, number>();

/**
 * Keeps lastUsedAt roughly current (to the minute) without a write per request: each process writes at
 * most once a minute per key, and never waits for it.
 */
export function touchApiKey(keyId: string, now = Date.now()): void {
  const previous = lastTouched.get(keyId);
  if (previous !== undefined && now - previous < TOUCH_INTERVAL_MS) return;
  lastTouched.set(keyId, now);
  prisma.apiKey
    .update({ where: { id: keyId }, data: { lastUsedAt: new Date(now) } })
    .catch((error: unknown) => logger.warn({ err: error, keyId }, "could not record key use"));
}
