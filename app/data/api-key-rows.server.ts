/**
 * Statements on `ApiKey`: a shop's private keys, stored as the SHA-256 of the secret
 * (docs/decisions/017-data-layer.md). Every function but the authentication lookup is scoped by the shop.
 */
import { sql, type Selectable } from "kysely";
import { engine, type DB, type Queryable } from "./database.server";

export type ApiKeyRow = Selectable<DB["ApiKey"]>;

export interface ApiKeyInsert {
  id: string;
  shopId: string;
  label: string;
  kind: string;
  hash: string;
  hint: string;
}

export function insertApiKey(q: Queryable, key: ApiKeyInsert, at: Date): Promise<ApiKeyRow> {
  return q
    .insertInto("ApiKey")
    .values({ ...key, createdAt: at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * PostgreSQL: holds, until the transaction ends, a lock on the shop's set of keys, so that concurrent creations
 * count and insert one after another. SQLite: nothing (a transaction holds the write lock).
 */
export async function lockShopApiKeys(q: Queryable, shopId: string): Promise<void> {
  if (engine() !== "postgres") return;
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`api-keys:${shopId}`}, 0))`.execute(q);
}

/** How many of the shop's keys are not revoked. */
export async function countActiveApiKeys(q: Queryable, shopId: string): Promise<number> {
  const row = await q
    .selectFrom("ApiKey")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("shopId", "=", shopId)
    .where("revokedAt", "is", null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The shop's keys, newest first (ids sort by creation time), revoked ones included. */
export function findApiKeysOfShop(q: Queryable, shopId: string): Promise<ApiKeyRow[]> {
  return q.selectFrom("ApiKey").selectAll().where("shopId", "=", shopId).orderBy("id", "desc").execute();
}

export function findApiKeyById(q: Queryable, shopId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  return q.selectFrom("ApiKey").selectAll().where("shopId", "=", shopId).where("id", "=", keyId).executeTakeFirst();
}

/** The shop's key with this hash, unless revoked. */
export function findActiveApiKeyByHash(q: Queryable, shopId: string, hash: string): Promise<ApiKeyRow | undefined> {
  return q
    .selectFrom("ApiKey")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("hash", "=", hash)
    .where("revokedAt", "is", null)
    .executeTakeFirst();
}

/** What authenticating a private key needs: the key and its shop, in one statement. */
export interface ApiKeyAuthRow {
  id: string;
  revokedAt: Date | null;
  shopId: string;
  shopDomain: string;
  shopUninstalledAt: Date | null;
}

/**
 * The key (of any shop) with this hash, with its shop: the one statement not scoped by a shop, because it
 * is how the shop of a private-key call is found.
 */
export function findApiKeyForAuth(q: Queryable, hash: string): Promise<ApiKeyAuthRow | undefined> {
  return q
    .selectFrom("ApiKey")
    .innerJoin("Shop", "Shop.id", "ApiKey.shopId")
    .select([
      "ApiKey.id as id",
      "ApiKey.revokedAt as revokedAt",
      "Shop.id as shopId",
      "Shop.domain as shopDomain",
      "Shop.uninstalledAt as shopUninstalledAt",
    ])
    .where("ApiKey.hash", "=", hash)
    .executeTakeFirst();
}

/** Revokes the shop's key unless it is revoked already; returns whether this call revoked it. */
export async function revokeApiKeyRow(q: Queryable, shopId: string, keyId: string, at: Date): Promise<boolean> {
  const result = await q
    .updateTable("ApiKey")
    .set({ revokedAt: at })
    .where("shopId", "=", shopId)
    .where("id", "=", keyId)
    .where("revokedAt", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Records the key's last use. */
export async function touchApiKeyRow(q: Queryable, shopId: string, keyId: string, at: Date): Promise<void> {
  await q.updateTable("ApiKey").set({ lastUsedAt: at }).where("shopId", "=", shopId).where("id", "=", keyId).execute();
}
