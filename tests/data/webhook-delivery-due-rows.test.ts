import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { countDueDeliveriesByShop, insertDeliveryDues } from "~/data/webhook-delivery-due-rows.server";
import { createShop, createDelivery, createWebhookEndpoint } from "../factories";

/** The owed-delivery rows on both engines (docs/decisions/025-queue-reconciliation.md). */
const dueRows = (shopId: string) =>
  database().selectFrom("WebhookDeliveryDue").selectAll().where("shopId", "=", shopId).execute();

describe("recording deliveries as owed", () => {
  it("skips a delivery the log shows ended (a worker finished it before the relay recorded it)", async () => {
    const shop = await createShop();
    const { endpoint } = await createWebhookEndpoint(shop.id);
    // Events with one logged attempt each: failed with a retry due, failed for good, and (below) delivered.
    const retrying = await createDelivery(shop.id, endpoint.id, { nextRetryAt: new Date(Date.now() + 60_000) });
    const failedForGood = await createDelivery(shop.id, endpoint.id);
    const delivered = await createDelivery(shop.id, endpoint.id);
    await database()
      .updateTable("WebhookDelivery")
      .set({ status: "succeeded" })
      .where("id", "=", delivered.id)
      .execute();
    const fresh = await createDelivery(shop.id, endpoint.id);
    await database().deleteFrom("WebhookDelivery").where("id", "=", fresh.id).execute(); // never attempted

    const at = new Date();
    await insertDeliveryDues(
      database(),
      [retrying, failedForGood, delivered, fresh].map((due) => ({ ...due, shopId: shop.id })),
      at,
    );
    const owed = (await dueRows(shop.id)).map((row) => row.eventId).sort();
    expect(owed).toEqual([retrying.eventId, fresh.eventId].sort());
    expect(await countDueDeliveriesByShop(database(), [shop.id, "shop_none"])).toEqual(new Map([[shop.id, 2]]));
  });
});
