/** Statements on `PlatformWebhook`: the ids and body digests of processed platform webhooks. */
import type { Queryable } from "./database.server";

/** Records one processed key (a webhook id or `sha256:<body digest>`); a second time is a unique violation. */
export async function insertProcessedWebhook(
  q: Queryable,
  webhook: { id: string; topic: string; shopDomain: string },
  at: Date,
): Promise<void> {
  await q
    .insertInto("PlatformWebhook")
    .values({ ...webhook, receivedAt: at })
    .execute();
}

/** Forgets the processed keys received before `before`; returns how many. */
export async function deleteProcessedWebhooksBefore(q: Queryable, before: Date): Promise<number> {
  const result = await q.deleteFrom("PlatformWebhook").where("receivedAt", "<", before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
