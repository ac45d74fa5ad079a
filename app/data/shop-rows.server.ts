/**
 * Statements on `Shop` and its `HeadlessOrigin` mirror (docs/decisions/017-data-layer.md). Every function
 * takes the handle to run on (`database()` or a transaction's `tx`) and is scoped by the shop's id or
 * domain.
 */
import type { Selectable } from "kysely";
import { engine, type DB, type Queryable } from "./database.server";

export type ShopRow = Selectable<DB["Shop"]>;

/** What authentication needs of a shop, on every API and storefront request. */
export type ShopAuthRow = Pick<ShopRow, "id" | "domain" | "publicKey" | "settings" | "uninstalledAt">;

export function findShopForAuth(q: Queryable, domain: string): Promise<ShopAuthRow | undefined> {
  return q
    .selectFrom("Shop")
    .select(["id", "domain", "publicKey", "settings", "uninstalledAt"])
    .where("domain", "=", domain)
    .executeTakeFirst();
}

/**
 * The shop row; with `lock`, held until the transaction ends (PostgreSQL `FOR NO KEY UPDATE`; SQLite's
 * writers are serialised already), so a read-modify-write of its settings cannot lose a concurrent one. Not
 * `FOR UPDATE`: that also waits for every transaction inserting rows that reference the shop (the foreign
 * keys' `FOR KEY SHARE`), an import's batch say, which a settings change has no reason to wait for.
 */
export function findShopById(q: Queryable, shopId: string, { lock = false } = {}): Promise<ShopRow | undefined> {
  return q
    .selectFrom("Shop")
    .selectAll()
    .where("id", "=", shopId)
    .$if(lock && engine() === "postgres", (query) => query.forNoKeyUpdate())
    .executeTakeFirst();
}

/**
 * Creates the shop, or marks the one with this domain installed again; returns the row either way. One
 * statement, so concurrent first installs of a shop make one row.
 */
export function upsertShop(
  q: Queryable,
  shop: { id: string; domain: string; publicKey: string; settings: string },
  at: Date,
): Promise<ShopRow> {
  return q
    .insertInto("Shop")
    .values({ ...shop, planUpdatedAt: at, installedAt: at, createdAt: at, updatedAt: at })
    .onConflict((conflict) => conflict.column("domain").doUpdateSet({ uninstalledAt: null, updatedAt: at }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Rewrites the settings document; `metafieldBackfillAt` (a Date, or null to cancel) records that the worker
 * owes the metafield sync's backfill, and is left as it is when undefined.
 */
export async function updateShopSettingsText(
  q: Queryable,
  shopId: string,
  settings: string,
  at: Date,
  { metafieldBackfillAt }: { metafieldBackfillAt?: Date | null } = {},
) {
  const result = await q
    .updateTable("Shop")
    .set({ settings, updatedAt: at, ...(metafieldBackfillAt === undefined ? {} : { metafieldBackfillAt }) })
    .where("id", "=", shopId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Rewrites the alerts' settings document (`Shop.alertSettings`), and the sealed SMTP password when given
 * (a string to set, null to remove; undefined leaves it). `onlyIfUnset`: only while the document is still
 * the empty default (the demo seed, which must not undo a developer's own settings).
 */
export async function updateAlertSettingsText(
  q: Queryable,
  shopId: string,
  alertSettings: string,
  at: Date,
  { smtpPasswordSealed, onlyIfUnset = false }: { smtpPasswordSealed?: string | null; onlyIfUnset?: boolean } = {},
): Promise<boolean> {
  let update = q
    .updateTable("Shop")
    .set({ alertSettings, updatedAt: at, ...(smtpPasswordSealed === undefined ? {} : { smtpPasswordSealed }) })
    .where("id", "=", shopId);
  if (onlyIfUnset) update = update.where("alertSettings", "=", "{}");
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Records the merchant's confirmation of the share page, once: a later confirmation keeps the first time. */
export async function confirmSharePage(q: Queryable, shopId: string, at: Date): Promise<void> {
  await q
    .updateTable("Shop")
    .set({ sharePageConfirmedAt: at, updatedAt: at })
    .where("id", "=", shopId)
    .where("sharePageConfirmedAt", "is", null)
    .execute();
}

/**
 * Marks the shop uninstalled unless an uninstall signed at or after `signedAt` was applied already.
 * Returns whether the row changed.
 */
export async function markUninstalled(q: Queryable, domain: string, at: Date, signedAt: Date | null) {
  const result = await q
    .updateTable("Shop")
    .set({ uninstalledAt: at, updatedAt: at, ...(signedAt && { uninstallSignedAt: signedAt }) })
    .where("domain", "=", domain)
    .$if(signedAt !== null, (query) =>
      query.where((eb) => eb.or([eb("uninstallSignedAt", "is", null), eb("uninstallSignedAt", "<", signedAt!)])),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function shopExists(q: Queryable, domain: string): Promise<boolean> {
  return (await q.selectFrom("Shop").select("id").where("domain", "=", domain).executeTakeFirst()) !== undefined;
}

/** Replaces the shop's headless origins (call inside the transaction that saves the settings). */
export async function replaceHeadlessOrigins(q: Queryable, shopId: string, origins: readonly string[]) {
  await q.deleteFrom("HeadlessOrigin").where("shopId", "=", shopId).execute();
  if (origins.length) {
    await q
      .insertInto("HeadlessOrigin")
      .values(origins.map((origin) => ({ shopId, origin })))
      .execute();
  }
}

/** Whether any shop declares this browser origin (CORS preflight, which names no shop). */
export async function isAnyShopOrigin(q: Queryable, origin: string): Promise<boolean> {
  const row = await q.selectFrom("HeadlessOrigin").select("shopId").where("origin", "=", origin).executeTakeFirst();
  return row !== undefined;
}

/** The shop's usage: lists (not retired) and saved items, counted on the shop-scoped indexes. */
export async function countShopUsage(q: Queryable, shopId: string): Promise<{ lists: number; items: number }> {
  const [lists, items] = await Promise.all([
    q
      .selectFrom("List")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("shopId", "=", shopId)
      .where("retiredAt", "is", null)
      .executeTakeFirstOrThrow(),
    q
      .selectFrom("Item")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("shopId", "=", shopId)
      .executeTakeFirstOrThrow(),
  ]);
  return { lists: Number(lists.n), items: Number(items.n) };
}
