import { describe, expect, it } from "vitest";
import { insertAlerts, insertMessages } from "~/data/alert-rows.server";
import { findShopsWithDueRefreshes, replaceProductReading, requestProductRefresh } from "~/data/catalogue-rows.server";
import { database } from "~/data/database.server";
import { getEnv } from "~/env.server";
import { newId } from "~/lib/ids";
import { maintainAlerts, runAlertRefresh } from "~/services/alerts/refresh.server";
import { createList, createShopWithKey } from "../../factories";

/**
 * The alerts' hourly maintenance (docs/decisions/050-wishlist-alerts.md): saved products not read for a day
 * are asked for again (webhooks the platform never delivered), alerts past their retention go with the
 * emails left carrying none, and readings of products nobody keeps are dropped. Run with its clock moved on.
 */
const DAY = 24 * 60 * 60 * 1000;

async function seed() {
  const { shop } = await createShopWithKey();
  const list = await createList(shop.id, { customerId: "7001" });
  const at = new Date();
  const item = { listId: list.id, ownerKey: "c:7001", shopId: shop.id, handle: "h", addedAt: at, variantId: "" };
  await database()
    .insertInto("Item")
    .values([{ id: newId("item"), productId: "501", ...item }])
    .execute();
  const variant = (variantId: string) => ({
    variantId,
    title: "Default Title",
    priceMinor: 1_000,
    currency: "USD",
    available: true,
    readAt: at,
    shopId: shop.id,
    productId: "",
  });
  await replaceProductReading(database(), shop.id, "501", [{ ...variant("601"), productId: "501" }]);
  await replaceProductReading(database(), shop.id, "502", [{ ...variant("602"), productId: "502" }]); // nobody saved it
  const messageId = newId("alertMessage");
  await insertMessages(database(), [{ id: messageId, shopId: shop.id, customerId: "7001", dueAt: at, createdAt: at }]);
  await database().updateTable("AlertMessage").set({ state: "sent", open: null }).where("id", "=", messageId).execute();
  const [alert] = await insertAlerts(database(), [
    {
      id: newId("alert"),
      shopId: shop.id,
      customerId: "7001",
      listId: list.id,
      itemId: "itm_x",
      productId: "501",
      variantId: "",
      kind: "back_in_stock",
      newPriceMinor: 1_000,
      currency: "USD",
      changeKey: "k",
      messageId,
      createdAt: at,
    },
  ]);
  return { shop, alert: alert!, messageId };
}

const refreshesOf = (shopId: string) =>
  database().selectFrom("ProductRefresh").select("productId").where("shopId", "=", shopId).execute();
const readingsOf = (shopId: string) =>
  database()
    .selectFrom("CatalogueVariant")
    .select("productId")
    .where("shopId", "=", shopId)
    .orderBy("productId")
    .execute();

describe("the alerts' maintenance", () => {
  it("keeps what is fresh", async () => {
    const { shop, alert } = await seed();
    await maintainAlerts({ now: new Date(Date.now() + 60 * 60 * 1000) });
    expect(await refreshesOf(shop.id)).toEqual([]);
    expect(await readingsOf(shop.id)).toEqual([{ productId: "501" }, { productId: "502" }]);
    expect(await database().selectFrom("Alert").select("id").where("id", "=", alert.id).execute()).toHaveLength(1);
  });

  it("reads again a saved product not read for a day, and drops the reading of one nobody keeps", async () => {
    const { shop } = await seed();
    await maintainAlerts({ now: new Date(Date.now() + 2 * DAY) });
    expect(await refreshesOf(shop.id)).toEqual([{ productId: "501" }]);
    expect(await readingsOf(shop.id)).toEqual([{ productId: "501" }]);
  });

  it("deletes alerts past their retention with the emails left carrying none", async () => {
    const { shop, alert, messageId } = await seed();
    await maintainAlerts({ now: new Date(Date.now() + (getEnv().ALERT_RETENTION_DAYS + 1) * DAY) });
    expect(await database().selectFrom("Alert").select("id").where("id", "=", alert.id).execute()).toEqual([]);
    expect(await database().selectFrom("AlertMessage").select("id").where("id", "=", messageId).execute()).toEqual([]);
    expect(await readingsOf(shop.id)).toEqual([{ productId: "501" }]);
  });
});

describe("a shop the platform cannot be asked for", () => {
  it("has its readings put off an hour, and the sweep leaves them be meanwhile", async () => {
    const { shop } = await seed(); // no platform session: the app holds no token for it
    await requestProductRefresh(database(), shop.id, ["501"], new Date(Date.now() - 60_000));
    const run = await runAlertRefresh({ shopId: shop.id });
    expect(run.postponed).toBe(1);
    const [waiting] = await database()
      .selectFrom("ProductRefresh")
      .select("requestedAt")
      .where("shopId", "=", shop.id)
      .execute();
    expect(waiting!.requestedAt.getTime()).toBeGreaterThan(Date.now() + 50 * 60 * 1000);
    expect(await findShopsWithDueRefreshes(database(), { before: new Date(), limit: 1_000 })).not.toContain(shop.id);
  });
});
