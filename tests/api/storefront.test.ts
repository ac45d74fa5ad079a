import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createShopWithKey } from "../factories";
import { countEvents, countLists, eventsOf } from "../support/wishlist-rows";
import { apiHarness } from "../support/harness";

const { callsOf } = await apiHarness();

async function storefront() {
  const { shop, secret } = await createShopWithKey();
  return { shop, aid: randomUUID(), ...callsOf({ shop, secret }) };
}

const events = (shopId: string) =>
  eventsOf(shopId).then((rows) => rows.map((row) => ({ type: row.type, data: JSON.parse(row.data) })));

describe("storefront wishlist: public key (anonymous)", () => {
  it("reads an empty list without creating one, then toggles on and off with one event each", async () => {
    const { shop, aid, publicCall } = await storefront();
    const empty = await publicCall(`/storefront/wishlist?aid=${aid}`);
    expect(await empty.json()).toMatchObject({
      id: null,
      count: 0,
      items: [],
      updatedAt: null,
      owner: { type: "anonymous", customerId: null },
    });
    expect(await countLists(shop.id)).toBe(0);

    const body = {
      productId: "gid://shopify/Product/101",
      variantId: "7",
      handle: "red-hat",
      title: "Red hat",
      anonymousId: aid,
    };
    const on = await (await publicCall("/storefront/wishlist/toggle", { method: "POST", body })).json();
    expect(on).toEqual({ added: true, count: 1, itemId: expect.stringMatching(/^itm_/) });
    const list = await (await publicCall(`/storefront/wishlist?aid=${aid.toUpperCase()}`)).json();
    expect(list.items).toEqual([
      {
        id: on.itemId,
        productId: "101",
        variantId: "7",
        handle: "red-hat",
        titleSnapshot: "Red hat",
        addedAt: expect.any(String),
        available: true,
        note: null,
        purchasedAt: null,
        quantity: 1,
      },
    ]);
    const off = await (await publicCall("/storefront/wishlist/toggle", { method: "POST", body })).json();
    expect(off).toEqual({ added: false, count: 0, itemId: on.itemId });

    expect(await events(shop.id)).toEqual([
      {
        type: "item.added",
        data: { listId: list.id, customerId: null, anonymousId: aid, item: list.items[0], count: 1 },
      },
      {
        type: "item.removed",
        data: { listId: list.id, customerId: null, anonymousId: aid, item: list.items[0], count: 0 },
      },
    ]);
  });

  it("holds a product once with or without a variant: in saves, toggles and removals alike (docs/decisions/032)", async () => {
    const { shop, aid, publicCall } = await storefront();
    const call = (path: string, method: string, body: Record<string, unknown>) =>
      publicCall(`/storefront/wishlist/${path}?aid=${aid}`, { method, body: { handle: "red-hat", ...body } });
    // GIVEN the product saved without a variant
    const plain = await call("items", "POST", { productId: "101" });
    expect(plain.status).toBe(201);
    const item = await plain.json();
    // WHEN the shopper saves it again with a variant: the saved item answers, unchanged, with no event
    const withVariant = await call("items", "POST", { productId: "101", variantId: "7" });
    expect(withVariant.status).toBe(200);
    expect(await withVariant.json()).toEqual(item);
    // a toggle naming a variant removes the product's one item...
    const off = await (await call("toggle", "POST", { productId: "101", variantId: "8" })).json();
    expect(off).toEqual({ added: false, count: 0, itemId: item.id });
    // ...and saves it, with that variant, when it is not saved
    const on = await (await call("toggle", "POST", { productId: "101", variantId: "8" })).json();
    expect(on).toMatchObject({ added: true, count: 1 });
    // a removal by product (another variant named, or none) removes it
    expect((await call("items", "DELETE", { productId: "101", variantId: "7" })).status).toBe(204);
    const list = await (await publicCall(`/storefront/wishlist?aid=${aid}`)).json();
    expect(list).toMatchObject({ count: 0, items: [] });
    expect((await events(shop.id)).map((event) => event.type)).toEqual([
      "item.added",
      "item.removed",
      "item.added",
      "item.removed",
    ]);
  });

  it("adds (201, then 200 for the same item without an event) and removes by itemId or by product", async () => {
    const { shop, aid, publicCall } = await storefront();
    const add = (productId: string) =>
      publicCall("/storefront/wishlist/items", {
        method: "POST",
        body: { productId, handle: `p${productId}`, anonymousId: aid },
      });
    const first = await add("1");
    expect(first.status).toBe(201);
    const item = await first.json();
    const again = await add("1");
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(item);
    await add("2");
    expect((await events(shop.id)).map((event) => event.type)).toEqual(["item.added", "item.added"]);

    expect(
      (await publicCall(`/storefront/wishlist/items?aid=${aid}&itemId=${item.id}`, { method: "DELETE", body: {} }))
        .status,
    ).toBe(204);
    expect(
      (await publicCall(`/storefront/wishlist/items?aid=${aid}`, { method: "DELETE", body: { productId: "2" } }))
        .status,
    ).toBe(204);
    // Removing what is not there: 204, no event.
    expect(
      (await publicCall(`/storefront/wishlist/items?aid=${aid}`, { method: "DELETE", body: { productId: "2" } }))
        .status,
    ).toBe(204);
    const log = await events(shop.id);
    expect(log.map((event) => [event.type, event.data.count])).toEqual([
      ["item.added", 1],
      ["item.added", 2],
      ["item.removed", 1],
      ["item.removed", 0],
    ]);
  });

  it("refuses a customerId: public keys are anonymous only", async () => {
    const { aid, publicCall } = await storefront();
    const response = await publicCall("/storefront/wishlist/toggle", {
      method: "POST",
      body: { productId: "1", handle: "a", anonymousId: aid, customerId: "5" },
    });
    expect(response.status).toBe(403);
  });
});

describe("storefront wishlist: app proxy", () => {
  it("acts for the signed customer and ignores aid; a guest uses aid", async () => {
    const { shop, aid, proxyCall } = await storefront();
    const toggled = await proxyCall("/storefront/wishlist/toggle", "8001", {
      method: "POST",
      body: { productId: "5", handle: "five", anonymousId: aid },
    });
    expect(toggled.status).toBe(200);
    const customerList = await (await proxyCall("/storefront/wishlist", "8001", { query: { aid } })).json();
    expect(customerList).toMatchObject({ owner: { type: "customer", customerId: "8001" }, count: 1 });
    const guestList = await (await proxyCall("/storefront/wishlist", null, { query: { aid } })).json();
    expect(guestList).toMatchObject({ id: null, count: 0 });
    expect((await events(shop.id))[0]!.data).toMatchObject({ customerId: "8001", anonymousId: null });
  });
});

describe("storefront wishlist: private key names the owner", () => {
  it("uses customerId or anonymousId, refuses both or neither", async () => {
    const { aid, privateCall } = await storefront();
    const forCustomer = await privateCall("/storefront/wishlist/items", {
      method: "POST",
      body: { productId: "9", handle: "nine", customerId: "gid://shopify/Customer/77" },
    });
    expect(forCustomer.status).toBe(201);
    expect(await (await privateCall("/storefront/wishlist?customerId=77")).json()).toMatchObject({ count: 1 });
    const both = await privateCall("/storefront/wishlist/items", {
      method: "POST",
      body: { productId: "9", handle: "nine", customerId: "77", anonymousId: aid },
    });
    expect(both.status).toBe(400); // ambiguous-shopper, as on every storefront operation (below)
    const neither = await privateCall("/storefront/wishlist");
    expect(neither.status).toBe(400);
    expect((await neither.json()).errors).toEqual([expect.objectContaining({ parameter: "aid" })]);
  });
});

describe("storefront wishlist: bad inputs", () => {
  it.each([
    ["a bad UUID", "/storefront/wishlist?aid=not-a-uuid", "GET", undefined, 400],
    ["a version-9 UUID", "/storefront/wishlist?aid=00000000-0000-9000-8000-000000000000", "GET", undefined, 400],
    ["no aid for a guest", "/storefront/wishlist", "GET", undefined, 400],
    ["a missing body", "/storefront/wishlist/toggle", "POST", undefined, 422],
    ["a missing handle", "/storefront/wishlist/toggle", "POST", { productId: "1" }, 422],
    ["a non-numeric productId", "/storefront/wishlist/toggle", "POST", { productId: "abc", handle: "a" }, 422],
    [
      "a title that is not a string",
      "/storefront/wishlist/items",
      "POST",
      { productId: "1", handle: "a", title: 5 },
      422,
    ],
    ["a DELETE naming no item", "/storefront/wishlist/items?aid=AID", "DELETE", {}, 422],
    ["an itemId with the wrong prefix", "/storefront/wishlist/items?aid=AID&itemId=lst_1", "DELETE", {}, 400],
  ] as const)("%s -> %i", async (_, path, method, body, status) => {
    const { aid, publicCall } = await storefront();
    const withAid = body && typeof body === "object" && method === "POST" ? { ...body, anonymousId: aid } : body;
    const response = await publicCall(path.replace("AID", aid), { method, body: withAid });
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
  });

  it("with guestEnabled false refuses anonymous writes (403) but still reads, and customers still write", async () => {
    const { shop, aid, publicCall, proxyCall } = await storefront();
    await updateShopSettings({ shopId: shop.id, patch: { guestEnabled: false } });
    const refused = await publicCall("/storefront/wishlist/toggle", {
      method: "POST",
      body: { productId: "1", handle: "a", anonymousId: aid },
    });
    expect(refused.status).toBe(403);
    expect((await refused.json()).type).toBe("http://localhost:3000/problems/guest-wishlists-disabled");
    expect((await publicCall(`/storefront/wishlist?aid=${aid}`)).status).toBe(200);
    const customer = await proxyCall("/storefront/wishlist/toggle", "42", {
      method: "POST",
      body: { productId: "1", handle: "a" },
    });
    expect(customer.status).toBe(200);
    expect(await countEvents(shop.id)).toBe(1);
  });
});

describe("a customer and a guest named in one request", () => {
  const item = { productId: "7", handle: "seven" };
  // Every storefront operation that names its shopper, with each place the two may be sent.
  const cases = [
    { operation: "GET /storefront/wishlist", method: "GET", path: "/storefront/wishlist", query: true, body: null },
    ...(
      [
        ["POST", "/storefront/wishlist/toggle", item],
        ["POST", "/storefront/wishlist/items", item],
        ["DELETE", "/storefront/wishlist/items", { productId: "7" }],
        ["POST", "/storefront/wishlist/share", {}],
        ["DELETE", "/storefront/wishlist/share", {}],
      ] as const
    ).flatMap(([method, path, body]) => [
      { operation: `${method} ${path}`, method, path, query: true, body },
      { operation: `${method} ${path}`, method, path, query: false, body },
    ]),
  ];

  it.each(cases)(
    "$operation (both in the query: $query): 400 ambiguous-shopper pointing at what was sent",
    async ({ method, path, query, body }) => {
      // GIVEN a private key, a customer id and a guest's anonymous id
      const { aid, privateCall } = await storefront();
      // WHEN both are sent: in the query, or the customer in the query and the guest in the body
      const response = await privateCall(`${path}?customerId=31${query ? `&aid=${aid}` : ""}`, {
        method,
        body: body === null ? undefined : { ...body, ...(query ? {} : { anonymousId: aid }) },
      });
      // THEN one status and one problem type, whichever operation, each member named where it was sent
      expect(response.status).toBe(400);
      const problem = await response.json();
      expect(problem.type).toBe("http://localhost:3000/problems/ambiguous-shopper");
      expect(problem.errors).toEqual([
        { parameter: "customerId", detail: expect.any(String) },
        query
          ? { parameter: "aid", detail: expect.any(String) }
          : { pointer: "#/anonymousId", detail: expect.any(String) },
      ]);
    },
  );

  it("both in the body of a save: the same answer, pointing at the body's members", async () => {
    const { aid, privateCall } = await storefront();
    const response = await privateCall("/storefront/wishlist/toggle", {
      method: "POST",
      body: { ...item, customerId: "31", anonymousId: aid },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      type: "http://localhost:3000/problems/ambiguous-shopper",
      errors: [{ pointer: "#/customerId" }, { pointer: "#/anonymousId" }],
    });
  });
});
