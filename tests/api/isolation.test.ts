import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { insertItem } from "~/data/item-rows.server";
import { createApiKey } from "~/services/keys/api-keys.server";
import { createList, createShopWithKey } from "../factories";
import { apiHarness } from "../support/harness";

const { clientFor } = await apiHarness();
const a = await createShopWithKey("shop A");
const b = await createShopWithKey("shop B");
const bList = await createList(b.shop.id, { customerId: "777" });
await insertItem(database(), b.shop.id, {
  listId: bList.id,
  productId: "1",
  variantId: "",
  handle: "b-secret",
  titleSnapshot: "",
  addedAt: new Date(),
});
const bKey = await createApiKey({ shopId: b.shop.id, label: "B's second key" });

const asA = clientFor(a.secret);

describe("tenant isolation: shop A's credentials never reach shop B", () => {
  it("GET /lists/{B's list} is 404", async () => {
    const { response } = await asA.GET("/lists/{id}", { params: { path: { id: bList.id } } });
    expect(response.status).toBe(404);
  });

  it("DELETE /keys/{B's key} is 404 and B's key keeps working", async () => {
    const { response } = await asA.DELETE("/keys/{id}", { params: { path: { id: bKey.key.id } } });
    expect(response.status).toBe(404);
    expect(
      (
        await database()
          .selectFrom("ApiKey")
          .select("revokedAt")
          .where("id", "=", bKey.key.id)
          .executeTakeFirstOrThrow()
      ).revokedAt,
    ).toBeNull();
  });

  it("browsing lists and keys shows only A's", async () => {
    const lists = await asA.GET("/lists", { params: { query: { customerId: "777" } } });
    expect(lists.data?.data).toEqual([]);
    const all = await asA.GET("/lists");
    expect(all.data?.data.map((list) => list.id)).not.toContain(bList.id);
    const keys = await asA.GET("/keys");
    expect(keys.data?.map((key) => key.id)).toEqual([a.key.id]);
  });

  it("the overview counts only A's usage, and A's settings changes leave B's alone", async () => {
    const overview = await asA.GET("/shop");
    expect(overview.data).toMatchObject({ domain: a.shop.domain, usage: { lists: 0, items: 0 } });
    await asA.PATCH("/shop/settings", { body: { guestEnabled: false } });
    const bSettings = JSON.parse(
      (await database().selectFrom("Shop").select("settings").where("id", "=", b.shop.id).executeTakeFirstOrThrow())
        .settings,
    );
    expect(bSettings.guestEnabled).toBe(true);
  });
});
