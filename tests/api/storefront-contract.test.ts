import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createShopWithKey } from "../factories";
import { countItems, eventsOf, itemsOf, listsOf } from "../support/wishlist-rows";
import { apiHarness } from "../support/harness";

const { callsOf } = await apiHarness();

async function storefront() {
  const { shop, secret } = await createShopWithKey();
  return { shop, aid: randomUUID(), ...callsOf({ shop, secret }) };
}

const problemType = async (response: Response) => ((await response.json()) as { type: string }).type;

describe("storefront bodies accept and ignore members they do not know (item 14)", () => {
  it("toggle, add, remove and identify answer as usual with further members, which are not stored", async () => {
    const { shop, aid, publicCall, proxyCall } = await storefront();
    const extra = { colour: "red", source: { widget: "pdp", position: 3 }, quantity: 2, tags: ["x"] };
    const toggled = await publicCall("/storefront/wishlist/toggle", {
      method: "POST",
      body: { productId: "1", handle: "one", anonymousId: aid, ...extra },
    });
    expect(toggled.status).toBe(200);
    expect(await toggled.json()).toMatchObject({ added: true, count: 1 });
    const added = await publicCall("/storefront/wishlist/items", {
      method: "POST",
      body: { productId: "2", handle: "two", title: "Two", anonymousId: aid, ...extra },
    });
    expect(added.status).toBe(201);
    expect(Object.keys(await added.json()).sort()).toEqual(
      [
        "addedAt",
        "available",
        "handle",
        "id",
        "note",
        "productId",
        "purchasedAt",
        "quantity",
        "titleSnapshot",
        "variantId",
      ].sort(),
    );
    const removed = await publicCall(`/storefront/wishlist/items?aid=${aid}`, {
      method: "DELETE",
      body: { productId: "1", ...extra },
    });
    expect(removed.status).toBe(204);
    const merged = await proxyCall("/storefront/identify", "4242", {
      method: "POST",
      body: { anonymousId: aid, ...extra },
    });
    expect(merged.status).toBe(200);
    expect(await merged.json()).toMatchObject({ owner: { type: "customer", customerId: "4242" }, count: 1 });
    const events = await eventsOf(shop.id);
    expect(events.map((event) => event.data).join("\n")).not.toContain("colour");
  });

  it.each([
    ["a non-string title", { title: 5 }],
    ["a boolean productId", { productId: true }],
    ["a non-numeric variantId", { variantId: "blue" }],
    ["an anonymousId that is not a UUID", { anonymousId: "not-a-uuid" }],
    ["a null handle", { handle: null }],
  ])("still refuses %s (422 with a pointer to it)", async (_, override) => {
    const { aid, publicCall } = await storefront();
    const response = await publicCall("/storefront/wishlist/toggle", {
      method: "POST",
      body: { productId: "1", handle: "one", anonymousId: aid, ...override },
    });
    expect(response.status).toBe(422);
    const problem = await response.json();
    expect(problem.errors).toEqual([expect.objectContaining({ pointer: `#/${Object.keys(override)[0]}` })]);
  });

  it("share takes the guest's id in the body (anonymousId) as well as in the query (aid), and no body at all", async () => {
    const { aid, publicCall, proxyCall } = await storefront();
    await publicCall("/storefront/wishlist/toggle", {
      method: "POST",
      body: { productId: "1", handle: "one", anonymousId: aid },
    });
    const byBody = await publicCall("/storefront/wishlist/share", { method: "POST", body: { anonymousId: aid } });
    expect(byBody.status).toBe(200);
    const link = await byBody.json();
    const list = await (await publicCall(`/storefront/wishlist?aid=${aid}`)).json();
    expect(link).toMatchObject({ listId: list.id, enabled: true });
    const byQuery = await publicCall(`/storefront/wishlist/share?aid=${aid}`, { method: "POST" });
    expect(await byQuery.json()).toEqual(link);
    const both = await publicCall(`/storefront/wishlist/share?aid=${aid}`, {
      method: "POST",
      body: { anonymousId: aid.toUpperCase(), referrer: "pdp" },
    });
    expect(await both.json()).toEqual(link);
    // A proxy guest too.
    const proxied = await proxyCall("/storefront/wishlist/share", null, { method: "POST", body: { anonymousId: aid } });
    expect(await proxied.json()).toEqual(link);
  });

  it("share refuses an aid and an anonymousId that name different guests, and a malformed anonymousId", async () => {
    const { aid, publicCall } = await storefront();
    const conflicting = await publicCall(`/storefront/wishlist/share?aid=${aid}`, {
      method: "POST",
      body: { anonymousId: randomUUID() },
    });
    expect(conflicting.status).toBe(400);
    expect(await problemType(conflicting)).toBe("http://localhost:3000/problems/invalid-parameter");
    const malformed = await publicCall("/storefront/wishlist/share", { method: "POST", body: { anonymousId: 7 } });
    expect(malformed.status).toBe(422);
    const none = await publicCall("/storefront/wishlist/share", { method: "POST" });
    expect(none.status).toBe(400);
  });
});

describe("toggle and add act for the shopper the rate limit and idempotency count", () => {
  it.each(["/storefront/wishlist/toggle", "/storefront/wishlist/items"])(
    "%s refuses a query aid and a body anonymousId naming different guests, and takes the guest from either",
    async (path) => {
      const { shop, aid, publicCall } = await storefront();
      // A rotating query aid with a fixed body anonymousId would be counted as a new shopper each time.
      const rotated = await publicCall(`${path}?aid=${randomUUID()}`, {
        method: "POST",
        body: { productId: "1", handle: "one", anonymousId: aid },
      });
      expect(rotated.status).toBe(400);
      expect(await problemType(rotated)).toBe("http://localhost:3000/problems/invalid-parameter");
      expect(await countItems(shop.id)).toBe(0);

      const byQuery = await publicCall(`${path}?aid=${aid}`, {
        method: "POST",
        body: { productId: "2", handle: "two" },
      });
      expect([200, 201]).toContain(byQuery.status);
      const both = await publicCall(`${path}?aid=${aid}`, {
        method: "POST",
        body: { productId: "3", handle: "three", anonymousId: aid },
      });
      expect([200, 201]).toContain(both.status);
      const lists = await listsOf(shop.id);
      expect(lists.map((list) => list.anonymousId)).toEqual([aid]);
      expect((await itemsOf(shop.id)).map((item) => item.productId).sort()).toEqual(["2", "3"]);
    },
  );
});

describe("required bodies and well-formed ids (item 15)", () => {
  it("DELETE /storefront/wishlist/items without a body is 400 body-required and removes nothing; {} is accepted", async () => {
    const { aid, publicCall } = await storefront();
    const item = await (
      await publicCall("/storefront/wishlist/items", {
        method: "POST",
        body: { productId: "1", handle: "one", anonymousId: aid },
      })
    ).json();
    const missing = await publicCall(`/storefront/wishlist/items?aid=${aid}&itemId=${item.id}`, { method: "DELETE" });
    expect(missing.status).toBe(400);
    expect(await problemType(missing)).toBe("http://localhost:3000/problems/body-required");
    expect((await (await publicCall(`/storefront/wishlist?aid=${aid}`)).json()).count).toBe(1);
    const empty = await publicCall(`/storefront/wishlist/items?aid=${aid}&itemId=${item.id}`, {
      method: "DELETE",
      body: {},
    });
    expect(empty.status).toBe(204);
    expect((await (await publicCall(`/storefront/wishlist?aid=${aid}`)).json()).count).toBe(0);
  });

  it("PATCH /shop/settings without a body is 400 body-required and changes nothing; {} answers the settings", async () => {
    const { privateCall } = await storefront();
    const missing = await privateCall("/shop/settings", { method: "PATCH" });
    expect(missing.status).toBe(400);
    expect(await problemType(missing)).toBe("http://localhost:3000/problems/body-required");
    const empty = await privateCall("/shop/settings", { method: "PATCH", body: {} });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toMatchObject({ guestEnabled: true, shareEnabled: true });
  });

  it.each([
    ["an empty customerId", "/lists?customerId="],
    ["an exponent customerId", "/lists?customerId=1e3"],
    ["a hexadecimal customerId", "/lists?customerId=0x10"],
    ["a negative customerId", "/lists?customerId=-1"],
    ["a customerId beyond 64 bits", "/lists?customerId=18446744073709551616"],
    ["an exponent limit", "/lists?limit=1e1"],
    ["a hexadecimal limit", "/lists?limit=0x10"],
    ["an empty limit", "/lists?limit="],
    ["a fractional limit", "/exports?limit=10.0"],
    ["a storefront customerId beyond 64 bits", "/storefront/wishlist?customerId=99999999999999999999"],
    ["an empty storefront customerId", "/storefront/wishlist?customerId="],
  ])("refuses %s (400 invalid-parameter)", async (_, path) => {
    const { privateCall } = await storefront();
    const response = await privateCall(path);
    expect(response.status).toBe(400);
    expect(await problemType(response)).toBe("http://localhost:3000/problems/invalid-parameter");
  });

  it.each([
    ["an empty customerId", ""],
    ["a customerId beyond 64 bits", "18446744073709551616"],
    ["a negative integer customerId", -5],
    ["an integer customerId beyond 2^53-1", Number.MAX_SAFE_INTEGER + 1],
  ])("refuses %s in a body (422)", async (_, customerId) => {
    const { privateCall } = await storefront();
    const response = await privateCall("/storefront/wishlist/items", {
      method: "POST",
      body: { productId: "1", handle: "one", customerId },
    });
    expect(response.status).toBe(422);
  });

  it("canonicalises platform ids: leading zeros name the same customer, product and variant", async () => {
    const { privateCall, proxyCall } = await storefront();
    const saved = await privateCall("/storefront/wishlist/items", {
      method: "POST",
      body: { productId: "0042", variantId: "007", handle: "hat", customerId: "0123" },
    });
    expect(saved.status).toBe(201);
    expect(await saved.json()).toMatchObject({ productId: "42", variantId: "7" });
    // The same customer however written, including a signed proxy customer with a leading zero.
    const list = await (await privateCall("/storefront/wishlist?customerId=123")).json();
    expect(list).toMatchObject({ owner: { type: "customer", customerId: "123" }, count: 1 });
    expect((await (await privateCall("/storefront/wishlist?customerId=gid://shopify/Customer/00123")).json()).id).toBe(
      list.id,
    );
    expect((await (await proxyCall("/storefront/wishlist", "0123")).json()).id).toBe(list.id);
    const browsed = await (await privateCall("/lists?customerId=000123")).json();
    expect(browsed.data.map((summary: { id: string }) => summary.id)).toEqual([list.id]);
    // The same product and variant: toggling "42"/"7" removes the item saved as "0042"/"007".
    const off = await privateCall("/storefront/wishlist/toggle", {
      method: "POST",
      body: { productId: 42, variantId: "gid://shopify/ProductVariant/7", handle: "hat", customerId: 123 },
    });
    expect(await off.json()).toMatchObject({ added: false, count: 0 });
  });

  it("accepts the largest 64-bit id and 0", async () => {
    const { privateCall } = await storefront();
    for (const customerId of ["18446744073709551615", "0"]) {
      const response = await privateCall("/storefront/wishlist/items", {
        method: "POST",
        body: { productId: "18446744073709551615", handle: "max", customerId },
      });
      expect(response.status, customerId).toBe(201);
    }
  });
});
