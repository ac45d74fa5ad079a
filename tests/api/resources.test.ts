import { describe, expect, it } from "vitest";
import { findApiKeyById } from "~/data/api-key-rows.server";
import { database } from "~/data/database.server";
import { newId } from "~/lib/ids";
import { createList, createShopWithKey } from "../factories";
import { rawCall } from "../support/openapi-client";
import { apiHarness } from "../support/harness";

const { app, validator, clientFor } = await apiHarness();

async function shopClient() {
  const { shop, key, secret } = await createShopWithKey();
  return { shop, key, secret, api: clientFor(secret) };
}

describe("GET /v1/shop", () => {
  it("gives the overview with settings defaults, the public key, and usage counts", async () => {
    const { shop, api } = await shopClient();
    const list = await createList(shop.id, { customerId: "5" });
    for (const productId of ["1", "2", "3"]) {
      await database()
        .insertInto("Item")
        .values({
          id: newId("item"),
          listId: list.id,
          ownerKey: "c:5",
          shopId: shop.id,
          productId,
          handle: `p${productId}`,
        })
        .execute();
    }
    await createList(shop.id);
    const { data, response } = await api.GET("/shop");
    expect(response.status).toBe(200);
    expect(data).toEqual({
      domain: shop.domain,
      plan: "FREE",
      planUpdatedAt: shop.planUpdatedAt.toISOString(),
      installedAt: shop.installedAt.toISOString(),
      settings: {
        guestEnabled: true,
        shareEnabled: true,
        sharePath: "/pages/wishlist",
        metafieldSyncEnabled: false,
        integrationConfigured: false,
        strings: {},
        headlessOrigins: [],
        multipleLists: false,
        maxListsPerOwner: 20,
        boughtItems: "keep",
      },
      publicKey: shop.publicKey,
      usage: { lists: 2, items: 3 },
    });
  });
});

describe("PATCH /v1/shop/settings", () => {
  it("changes only the members sent and returns the whole settings object", async () => {
    const { api } = await shopClient();
    const { data } = await api.PATCH("/shop/settings", {
      body: {
        shareEnabled: false,
        strings: { en: { add: "Save" } },
        headlessOrigins: ["https://a.example", "https://a.example"],
      },
    });
    expect(data).toMatchObject({
      guestEnabled: true,
      shareEnabled: false,
      strings: { en: { add: "Save" } },
      headlessOrigins: ["https://a.example"],
    });
    const again = await api.GET("/shop");
    expect(again.data?.settings.shareEnabled).toBe(false);
    expect(again.data?.settings.headlessOrigins).toEqual(["https://a.example"]);
  });

  it("bounds the texts a shop stores: 50 locales, 50 texts each, 128 KiB in all (422, nothing changed)", async () => {
    const { api } = await shopClient();
    const texts = (count: number, length = 10) =>
      Object.fromEntries(Array.from({ length: count }, (_, index) => [`key${index}`, "x".repeat(length)]));
    const locales = (count: number, perLocale: number, length?: number) =>
      Object.fromEntries(
        Array.from({ length: count }, (_, index) => [
          `l${String(index).padStart(2, "0")}`.replace(/\d/g, (d) => "abcdefghij"[Number(d)]!),
          texts(perLocale, length),
        ]),
      );

    const refused = [
      { strings: locales(51, 1), pointer: "#/strings", detail: "at most 50 locales" },
      { strings: { en: texts(51) }, pointer: "#/strings/en", detail: "at most 50 texts per locale" },
      { strings: locales(50, 10, 300), pointer: "#/strings", detail: "at most 128 KiB of texts in all (as JSON)" },
    ];
    for (const { strings, pointer, detail } of refused) {
      const { response, error } = await api.PATCH("/shop/settings", { body: { shareEnabled: false, strings } });
      expect(response.status).toBe(422);
      expect(error?.errors).toContainEqual({ pointer, detail });
    }
    expect((await api.GET("/shop")).data?.settings).toMatchObject({ shareEnabled: true, strings: {} });

    const { response } = await api.PATCH("/shop/settings", { body: { strings: locales(50, 50, 40) } });
    expect(response.status).toBe(200);
  });
});

describe("/v1/keys", () => {
  it("creates a key whose secret is shown once and works; lists without secrets; revokes it", async () => {
    const { key: firstKey, api } = await shopClient();
    const created = await api.POST("/keys", { body: { label: "  Server  " } });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ label: "Server", kind: "private", revokedAt: null, lastUsedAt: null });
    const secret = created.data!.secret;
    expect(secret).toMatch(/^svc_sk_[A-Za-z0-9]{32}$/);
    expect(created.data!.hint).toBe(secret.slice(-4));

    const listed = await api.GET("/keys");
    expect(listed.data?.map((key) => key.id)).toEqual([created.data!.id, firstKey.id]);
    expect(JSON.stringify(listed.data)).not.toContain(secret);

    const withNewKey = clientFor(secret);
    expect((await withNewKey.GET("/shop")).response.status).toBe(200);

    expect((await api.DELETE("/keys/{id}", { params: { path: { id: created.data!.id } } })).response.status).toBe(204);
    expect((await api.DELETE("/keys/{id}", { params: { path: { id: created.data!.id } } })).response.status).toBe(204);
    expect((await withNewKey.GET("/shop")).response.status).toBe(401);
    const after = await api.GET("/keys");
    expect(after.data?.find((key) => key.id === created.data!.id)?.revokedAt).toEqual(expect.any(String));
  });

  it("records lastUsedAt on use, at most once a minute per process", async () => {
    const { shop, key, api } = await shopClient();
    const lastUsedAt = async () => (await findApiKeyById(database(), shop.id, key.id))!.lastUsedAt;
    await api.GET("/shop");
    await expect.poll(lastUsedAt).not.toBeNull();
    const first = await lastUsedAt();
    await api.GET("/shop");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await lastUsedAt()).toEqual(first);
  });
});

describe("/v1/lists", () => {
  it("pages through summaries in a stable order with cursors, filtered by customerId in either form", async () => {
    const { shop, api, secret } = await shopClient();
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      const owner = { customerId: String(100 + (index % 2)) };
      ids.push((await createList(shop.id, owner, { isDefault: index < 2 ? true : null })).id);
    }
    const retired = await createList(shop.id);
    await database().updateTable("List").set({ retiredAt: new Date() }).where("id", "=", retired.id).execute();

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const { data } = await api.GET("/lists", { params: { query: { limit: 2, ...(cursor ? { cursor } : {}) } } });
      expect(data!.data.length).toBeLessThanOrEqual(2);
      for (const list of data!.data) {
        expect(list).not.toHaveProperty("items");
        seen.push(list.id);
      }
      cursor = data!.pageInfo.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(ids);

    const byString = await api.GET("/lists", { params: { query: { customerId: "101" } } });
    expect(byString.data?.data.map((list) => list.owner)).toEqual([
      { type: "customer", customerId: "101" },
      { type: "customer", customerId: "101" },
    ]);
    // A query string carries text only, so a typed client sends `customerId: 101` as the bytes of "101": the
    // forms told apart here are what can really arrive on the wire.
    const lists = async (query: string) => {
      const response = await rawCall(app, validator, `/v1/lists?${query}`, {
        headers: { Authorization: `Bearer ${secret}` },
      });
      expect(response.status, query).toBe(200);
      return ((await response.json()) as { data: Array<{ id: string }> }).data.map((list) => list.id);
    };
    expect(byString.data!.data.map((list) => list.id)).toEqual([ids[1], ids[3]]);
    expect(await lists("customerId=101")).toEqual([ids[1], ids[3]]);
    expect(await lists("customerId=%31%30%30")).toEqual([ids[0], ids[2], ids[4]]); // percent-encoded digits
    // Beyond 2^53 only the digit string is exact: read as a number, 2^53+1 would become 2^53.
    const big = await createList(shop.id, { customerId: "9007199254740993" });
    expect(await lists("customerId=9007199254740993")).toEqual([big.id]);
    expect(await lists("customerId=9007199254740992")).toEqual([]);
  });

  it("returns a full list with its items, newest first", async () => {
    const { shop, api } = await shopClient();
    const list = await createList(shop.id, { anonymousId: "5b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c11" });
    await database()
      .insertInto("Item")
      .values({
        id: newId("item"),
        listId: list.id,
        ownerKey: "a:5b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c11",
        shopId: shop.id,
        productId: "9",
        handle: "old",
        addedAt: new Date("2026-01-01T00:00:00Z"),
      })
      .execute();
    await database()
      .insertInto("Item")
      .values({
        id: newId("item"),
        listId: list.id,
        ownerKey: "a:5b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c11",
        shopId: shop.id,
        productId: "10", // a list holds a product once (docs/decisions/032-one-item-per-product.md)
        variantId: "3",
        handle: "new",
        titleSnapshot: "Hat",
      })
      .execute();
    const { data } = await api.GET("/lists/{id}", { params: { path: { id: list.id } } });
    expect(data).toMatchObject({
      id: list.id,
      owner: { type: "anonymous", customerId: null },
      default: true,
      count: 2,
      share: { enabled: false, token: null },
    });
    expect(data!.items.map((item) => [item.handle, item.variantId])).toEqual([
      ["new", "3"],
      ["old", null],
    ]);
  });
});
