/**
 * Statements on `Session`: the platform's OAuth sessions of each shop (the admin's session storage and the
 * offline token of server-side Admin API calls), scoped by the shop's domain or the session's id, which the
 * platform library derives from the shop (docs/decisions/017-data-layer.md).
 */
import type { Insertable, Selectable } from "kysely";
import type { DB, Queryable } from "./database.server";

export type SessionRow = Selectable<DB["Session"]>;
export type SessionValues = Required<Insertable<DB["Session"]>>;

/** Creates the session or replaces every column of the one with its id, in one statement. */
export async function upsertSession(q: Queryable, session: SessionValues): Promise<void> {
  const { id: _id, ...columns } = session;
  await q
    .insertInto("Session")
    .values(session)
    .onConflict((conflict) => conflict.column("id").doUpdateSet(columns))
    .execute();
}

export function findSessionById(q: Queryable, id: string): Promise<SessionRow | undefined> {
  return q.selectFrom("Session").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Deletes the sessions with these ids; returns how many there were. */
export async function deleteSessionsById(q: Queryable, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await q.deleteFrom("Session").where("id", "in", ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The shop's sessions, latest expiry first (offline sessions, which never expire, last), at most `limit`. */
export function findSessionsOfShop(q: Queryable, shopDomain: string, limit: number): Promise<SessionRow[]> {
  return q
    .selectFrom("Session")
    .selectAll()
    .where("shop", "=", shopDomain)
    .orderBy("expires", (order) => order.desc().nullsLast())
    .orderBy("id")
    .limit(limit)
    .execute();
}

export async function deleteSessionsOfShop(q: Queryable, shopDomain: string): Promise<number> {
  const result = await q.deleteFrom("Session").where("shop", "=", shopDomain).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The shop's offline (app) access token, which server-side calls to the platform's Admin API use. */
export async function findOfflineAccessToken(q: Queryable, shopDomain: string): Promise<string | null> {
  const row = await q
    .selectFrom("Session")
    .select("accessToken")
    .where("shop", "=", shopDomain)
    .where("isOnline", "=", false)
    .executeTakeFirst();
  return row?.accessToken || null;
}
