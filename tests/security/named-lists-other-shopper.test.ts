/**
 * Named lists (issue 28): every new operation, and the listId of toggle, add and remove, naming a list or an
 * item of another shopper of the same shop, in the three storefront modes. The other-shop case is in
 * tests/api/named-lists.test.ts, the other customer of the session token mode in
 * tests/api/customer-account.test.ts; here the shop filter alone cannot be what refuses: 404 (removing another's
 * item by id without a list: 204, as for any absent item), and nothing written.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { resetEnvCache } from "~/env.server";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createShopWithKey } from "../factories";
import { changesBetween, databaseState } from "../support/fuzz";
import { apiHarness, type CallInit } from "../support/harness";

process.env.RATE_LIMIT_STOREFRONT_PER_MINUTE = "100000";
resetEnvCache();
const { callsOf } = await apiHarness();
const { shop, secret } = await createShopWithKey();
await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true } });
const calls = callsOf({ shop, secret });

function as(mode: "public" | "private" | "proxy", who: string) {
  return (path: string, init: CallInit = {}) => {
    const method = init.method ?? "GET";
    const body =
      init.body !== undefined || (method !== "GET" && method !== "DELETE")
        ? { ...((init.body as object) ?? {}) }
        : undefined;
    if (mode === "proxy") {
      const [bare, search = ""] = path.split("?");
      return calls.proxyCall(bare!, who, {
        ...init,
        query: Object.fromEntries(new URLSearchParams(search)),
        ...(body ? { body } : {}),
      });
    }
    const sep = path.includes("?") ? "&" : "?";
    return mode === "public"
      ? calls.publicCall(`${path}${sep}aid=${who}`, { ...init, ...(body ? { body } : {}) })
      : calls.privateCall(`${path}${sep}customerId=${who}`, { ...init, ...(body ? { body } : {}) });
  };
}

describe.each(["public", "private", "proxy"] as const)("another shopper of the same shop, %s", (mode) => {
  it("their lists and items are 404s, and nothing is written", async () => {
    const id = () => (mode === "public" ? randomUUID() : String(6_000_000 + Math.floor(Math.random() * 1e6)));
    const me = as(mode, id());
    const them = as(mode, id());
    const theirs = await (await them("/storefront/wishlists", { method: "POST", body: { name: "T" } })).json();
    const theirItem = await (
      await them("/storefront/wishlist/items", {
        method: "POST",
        body: { productId: "5", handle: "h", listId: theirs.id },
      })
    ).json();
    const theirDefaultItem = await (
      await them("/storefront/wishlist/items", { method: "POST", body: { productId: "6", handle: "h" } })
    ).json();
    const mine = await (await me("/storefront/wishlists", { method: "POST", body: { name: "M" } })).json();
    const myItem = await (
      await me("/storefront/wishlist/items", { method: "POST", body: { productId: "7", handle: "h" } })
    ).json();
    const before = await databaseState();
    const answers: number[] = [];
    for (const [path, init] of [
      [`/storefront/wishlists/${theirs.id}`, {}],
      [`/storefront/wishlists/${theirs.id}`, { method: "PATCH", body: { name: "x" } }],
      [`/storefront/wishlists/${theirs.id}`, { method: "DELETE" }],
      [`/storefront/wishlists/${theirs.id}/share`, { method: "POST" }],
      [`/storefront/wishlists/${theirs.id}/share`, { method: "DELETE" }],
      [`/storefront/wishlist/items/${theirItem.id}`, { method: "PATCH", body: { note: "x" } }],
      [`/storefront/wishlist/items/${theirDefaultItem.id}`, { method: "PATCH", body: { quantity: 5 } }],
      [`/storefront/wishlist/items/${theirItem.id}/move`, { method: "POST", body: { listId: mine.id } }],
      [
        `/storefront/wishlist/items/${theirDefaultItem.id}/move`,
        { method: "POST", body: { listId: mine.id, copy: true } },
      ],
      [`/storefront/wishlist/items/${myItem.id}/move`, { method: "POST", body: { listId: theirs.id } }],
      [`/storefront/wishlist/items`, { method: "POST", body: { productId: "8", handle: "h", listId: theirs.id } }],
      [`/storefront/wishlist/toggle`, { method: "POST", body: { productId: "5", handle: "h", listId: theirs.id } }],
      [`/storefront/wishlist/items?itemId=${theirItem.id}&listId=${theirs.id}`, { method: "DELETE", body: {} }],
      [`/storefront/wishlist/items?listId=${theirs.id}`, { method: "DELETE", body: { productId: "5" } }],
    ] as Array<[string, CallInit]>) {
      answers.push((await me(path, init)).status);
    }
    const r = await me(`/storefront/wishlist/items?itemId=${theirItem.id}`, { method: "DELETE", body: {} });
    answers.push(r.status);
    expect(changesBetween(before, await databaseState())).toEqual([]);
    expect(answers).toEqual([404, 404, 404, 404, 404, 404, 404, 404, 404, 404, 404, 404, 404, 404, 204]);
  });
});
