import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createShopWithKey } from "../factories";
import { countEvents, countLists, eventsOf } from "../support/wishlist-rows";
import { apiHarness } from "../support/harness";

const { callsOf } = await apiHarness();

async function shopper() {
  const { shop, secret } = await createShopWithKey();
  const aid = randomUUID();
  const { publicCall } = callsOf({ shop, secret });
  const call = (path: string, method = "GET", body?: unknown) => publicCall(path, { method, body });
  return { shop, aid, call };
}

describe("share links", () => {
  it("creates the link once with a list.shared event, then returns the same link; the token opens the list", async () => {
    const { shop, aid, call } = await shopper();
    await call("/storefront/wishlist/toggle", "POST", {
      productId: "1",
      handle: "one",
      title: "One",
      anonymousId: aid,
    });
    const first = await call(`/storefront/wishlist/share?aid=${aid}`, "POST");
    expect(first.status).toBe(200);
    const link = await first.json();
    expect(link).toEqual({
      listId: expect.stringMatching(/^lst_/),
      token: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      url: `https://${shop.domain}/pages/wishlist?share=${link.token}`,
      enabled: true,
    });
    const again = await (await call(`/storefront/wishlist/share?aid=${aid}`, "POST")).json();
    expect(again).toEqual(link);

    const shared = await (await call(`/storefront/lists/${link.token}`)).json();
    expect(shared).toEqual({
      id: link.listId,
      name: "Wishlist",
      default: true,
      count: 1,
      items: [expect.objectContaining({ productId: "1", titleSnapshot: "One" })],
      updatedAt: expect.any(String),
    });
    expect(shared).not.toHaveProperty("owner");
    expect(shared).not.toHaveProperty("share");

    const sharedEvents = await eventsOf(shop.id, "list.shared");
    expect(sharedEvents.map((event) => JSON.parse(event.data))).toEqual([
      { listId: link.listId, shareToken: link.token, url: link.url },
    ]);
    const list = await (await call(`/storefront/wishlist?aid=${aid}`)).json();
    expect(list.share).toEqual({ enabled: true, token: link.token });
  });

  it("parallel share requests create one token and one event", async () => {
    const { shop, aid, call } = await shopper();
    const links = await Promise.all(
      Array.from({ length: 8 }, () => call(`/storefront/wishlist/share?aid=${aid}`, "POST").then((r) => r.json())),
    );
    expect(new Set(links.map((link) => link.token)).size).toBe(1);
    expect(await countEvents(shop.id, "list.shared")).toBe(1);
  });

  it("answers 404 for an unknown token and never opens another shop's list", async () => {
    const { aid, call } = await shopper();
    const created = await call(`/storefront/wishlist/share?aid=${aid}`, "POST");
    expect(created.status).toBe(200);
    const link = await created.json();
    expect(link.token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    // The token is real: its own shop opens the list, so the 404s below are about the token and the shop.
    expect((await call(`/storefront/lists/${link.token}`)).status).toBe(200);
    expect((await call("/storefront/lists/no-such-token")).status).toBe(404);
    const other = await shopper();
    const foreign = await other.call(`/storefront/lists/${link.token}`);
    expect(foreign.status).toBe(404);
    expect((await foreign.json()).type).toBe("http://localhost:3000/problems/not-found");
  });

  it("with shareEnabled false refuses new links and hides shared lists (403 sharing-disabled)", async () => {
    const { shop, aid, call } = await shopper();
    const link = await (await call(`/storefront/wishlist/share?aid=${aid}`, "POST")).json();
    await updateShopSettings({ shopId: shop.id, patch: { shareEnabled: false } });
    const view = await call(`/storefront/lists/${link.token}`);
    expect(view.status).toBe(403);
    expect((await view.json()).type).toBe("http://localhost:3000/problems/sharing-disabled");
    const create = await call(`/storefront/wishlist/share?aid=${randomUUID()}`, "POST");
    expect(create.status).toBe(403);
    expect(await countLists(shop.id)).toBe(1);
  });
});
