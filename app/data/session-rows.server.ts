/** Statements on `Session`: the platform's OAuth sessions of each shop. */
import type { Queryable } from "./database.server";

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
