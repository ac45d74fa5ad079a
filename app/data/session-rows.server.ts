/** Statements on `Session`: the platform's OAuth sessions of each shop. */
import type { Queryable } from "./database.server";

export async function deleteSessionsOfShop(q: Queryable, shopDomain: string): Promise<number> {
  const result = await q.deleteFrom("Session").where("shop", "=", shopDomain).executeTakeFirst();
  return Number(result.numDeletedRows);
}
