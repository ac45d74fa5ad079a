import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createShopWithKey } from "../factories";
import { eventsOf } from "../support/wishlist-rows";
import { rawCall } from "../support/openapi-client";
import { apiHarness } from "../support/harness";

const { app, validator, callsOf } = await apiHarness();

async function shopper() {
  const { shop, secret } = await createShopWithKey();
  const aid = randomUUID();
  const { proxyCall } = callsOf({ shop, secret });
  const proxy = (path: string, customer: string | null, body?: unknown, query: Record<string, string> = {}) =>
    proxyCall(path, customer, { method: body === undefined ? "GET" : "POST", body, query });
  const save = (customer: string | null, productId: string, variantId?: string) =>
    proxy("/storefront/wishlist/items", customer, {
      productId,
      handle: `p${productId}`,
      anonymousId: aid,
      ...(variantId ? { variantId } : {}),
    });
  return { shop, secret, aid, proxy, save };
}

const mergedEvents = (shopId: string) =>
  eventsOf(shopId, "list.merged").then((rows) => rows.map((row) => JSON.parse(row.data)));

describe("POST /storefront/identify (guest merge)", () => {
  it("unions by product whatever the variant, keeps the earliest addedAt and the guest's variant where the customer had none, counts only moved items, retires the guest list", async () => {
    const { shop, aid, proxy, save } = await shopper();
    await save(null, "1"); // guest only -> moves
    const guestVariant = await (await save(null, "2", "20")).json(); // the customer has variant 21: theirs stays
    const guestOverlap = await (await save(null, "3")).json(); // guest first...
    await new Promise((resolve) => setTimeout(resolve, 5));
    const customerOverlap = await (await save("500", "3")).json(); // ...customer later: guest's date wins
    const customerVariant = await (await save("500", "2", "21")).json();
    const customerOnly = await (await save("500", "4")).json();
    // The finding of issue 25: the customer saved the product without a variant, the guest with one.
    const customerPlain = await (await save("500", "5")).json();
    await save(null, "5", "50");

    const response = await proxy("/storefront/identify", "500", { anonymousId: aid });
    expect(response.status).toBe(200);
    const list = await response.json();
    expect(list.owner).toEqual({ type: "customer", customerId: "500" });
    expect(list.count).toBe(5);
    const byProduct = Object.fromEntries(
      list.items.map((item: { productId: string; variantId: string | null }) => [item.productId, item]),
    );
    expect(Object.keys(byProduct).sort()).toEqual(["1", "2", "3", "4", "5"]);
    expect(byProduct["2"]).toEqual({ ...customerVariant, addedAt: guestVariant.addedAt });
    expect(byProduct["3"]).toMatchObject({ id: customerOverlap.id, addedAt: guestOverlap.addedAt });
    expect(byProduct["4"]).toEqual(customerOnly);
    expect(byProduct["5"]).toEqual({ ...customerPlain, variantId: "50" });

    expect(await mergedEvents(shop.id)).toEqual([
      { listId: list.id, customerId: "500", mergedCount: 1, fromListId: expect.stringMatching(/^lst_/) },
    ]);
    // The anonymous id now reads an empty list and can never reach the customer's.
    const guestView = await (await proxy("/storefront/wishlist", null, undefined, { aid })).json();
    expect(guestView).toMatchObject({ id: null, count: 0 });
  });

  it("is repeatable: a second call merges nothing, emits nothing, and still answers the list", async () => {
    const { shop, aid, proxy, save } = await shopper();
    await save(null, "1");
    await proxy("/storefront/identify", "600", { anonymousId: aid });
    const again = await proxy("/storefront/identify", "600", { anonymousId: aid });
    expect(again.status).toBe(200);
    expect((await again.json()).count).toBe(1);
    expect(await mergedEvents(shop.id)).toHaveLength(1);
  });

  it("with an empty (or absent) guest list answers the customer's list", async () => {
    const { shop, proxy } = await shopper();
    const response = await proxy("/storefront/identify", "700", { anonymousId: randomUUID() });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      count: 0,
      items: [],
      owner: { type: "customer", customerId: "700" },
    });
    expect(await mergedEvents(shop.id)).toHaveLength(0);
  });

  it("lets a guest start a new list with the same anonymous id after the merge", async () => {
    const { aid, proxy, save } = await shopper();
    await save(null, "1");
    await proxy("/storefront/identify", "800", { anonymousId: aid });
    expect((await save(null, "9")).status).toBe(201);
    const guest = await (await proxy("/storefront/wishlist", null, undefined, { aid })).json();
    expect(guest.items.map((item: { productId: string }) => item.productId)).toEqual(["9"]);
  });

  it("is refused to public keys (403) and to proxy guests (403); a bad anonymousId is 422", async () => {
    const { shop, aid, proxy } = await shopper();
    const publicCall = await rawCall(app, validator, "/v1/storefront/identify", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Service-Shop": shop.domain,
        "X-Service-Public-Key": shop.publicKey,
      },
      body: JSON.stringify({ anonymousId: aid }),
    });
    expect(publicCall.status).toBe(403);
    expect((await proxy("/storefront/identify", null, { anonymousId: aid })).status).toBe(403);
    expect((await proxy("/storefront/identify", "1", { anonymousId: "nope" })).status).toBe(422);
  });

  it("works for a private key naming the customer", async () => {
    const { secret, aid, save } = await shopper();
    await save(null, "1");
    const response = await rawCall(app, validator, "/v1/storefront/identify", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${secret}` },
      body: JSON.stringify({ anonymousId: aid, customerId: "900" }),
    });
    expect(response.status).toBe(200);
    expect((await response.json()).count).toBe(1);
  });
  it("refuses a shopper named in the query (400), so the call counts against the customer it merges into", async () => {
    const { secret, aid, save } = await shopper();
    await save(null, "1");
    const identify = (query: string) =>
      rawCall(app, validator, `/v1/storefront/identify${query}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${secret}` },
        body: JSON.stringify({ anonymousId: aid, customerId: "910" }),
      });
    // The attacker review of issue 26: the rate limit counted the query's customer (111) while the merge went
    // to the body's (910), so one customer could be merged into past the shopper limit.
    const both = await identify(`?customerId=111&aid=${randomUUID()}`);
    expect(both.status).toBe(400);
    expect(await both.json()).toMatchObject({
      errors: [
        { parameter: "aid", detail: expect.stringContaining("JSON body") },
        { parameter: "customerId", detail: expect.stringContaining("JSON body") },
      ],
    });
    expect((await identify("?customerId=910")).status).toBe(400);
    // Nothing was merged by the refused calls; the body alone merges.
    const merged = await identify("");
    expect(merged.status).toBe(200);
    expect((await merged.json()).count).toBe(1);
  });
});
