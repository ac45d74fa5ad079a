import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createShopWithKey } from "../factories";
import { countEvents } from "../support/wishlist-rows";
import { OpenApiValidator, rawCall, signedProxyPath } from "../support/api";
import { createTestApp } from "../support/http";

const app = await createTestApp();
const validator = await OpenApiValidator.load(app);

/** A shopper on the shop's own domain (app proxy): a guest with `aid` until they log in as `customer`. */
async function shopper() {
  const { shop } = await createShopWithKey();
  const aid = randomUUID();
  const proxy = (path: string, customer: string | null, method = "GET", body?: unknown, query = {}) =>
    rawCall(
      app,
      validator,
      signedProxyPath(`/proxy/v1${path}`, { shop: shop.domain, logged_in_customer_id: customer ?? "", ...query }),
      {
        method,
        headers: body === undefined ? {} : { "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
    );
  const save = (customer: string | null, productId: string) =>
    proxy("/storefront/wishlist/items", customer, "POST", { productId, handle: `p${productId}`, anonymousId: aid });
  const share = async (customer: string | null) => {
    const response = await proxy("/storefront/wishlist/share", customer, "POST", undefined, customer ? {} : { aid });
    expect(response.status).toBe(200);
    return (await response.json()) as { listId: string; token: string; url: string };
  };
  const open = (token: string) => proxy(`/storefront/lists/${token}`, null);
  const identify = (customer: string) => proxy("/storefront/identify", customer, "POST", { anonymousId: aid });
  return { shop, aid, proxy, save, share, open, identify };
}

const productIds = (list: { items: Array<{ productId: string }> }) => list.items.map((item) => item.productId).sort();

describe("a guest's share link survives the merge at login (item 20)", () => {
  it("moves the guest's link to a customer list that had none: the link opens the merged list", async () => {
    const { shop, save, share, open, identify, proxy } = await shopper();
    await save(null, "1");
    const guestLink = await share(null);
    await save("31", "2");

    const merged = await (await identify("31")).json();
    expect(merged.share).toEqual({ enabled: true, token: guestLink.token });

    const opened = await open(guestLink.token);
    expect(opened.status).toBe(200);
    const shared = await opened.json();
    expect(shared.id).toBe(merged.id);
    expect(productIds(shared)).toEqual(["1", "2"]);

    // The customer's own share now answers the same link, without a second list.shared event.
    const customerLink = await share("31");
    expect(customerLink).toMatchObject({ listId: merged.id, token: guestLink.token, url: guestLink.url });
    expect(await countEvents(shop.id, "list.shared")).toBe(1);
    expect((await (await proxy("/storefront/wishlist", "31")).json()).share).toEqual({
      enabled: true,
      token: guestLink.token,
    });
  });

  it("when both lists had links, both tokens open the merged list; the customer's stays its token", async () => {
    const { save, share, open, identify } = await shopper();
    await save(null, "1");
    const guestLink = await share(null);
    await save("32", "2");
    const customerLink = await share("32");
    expect(customerLink.token).not.toBe(guestLink.token);

    const merged = await (await identify("32")).json();
    expect(merged.share).toEqual({ enabled: true, token: customerLink.token });
    for (const token of [guestLink.token, customerLink.token]) {
      const opened = await open(token);
      expect(opened.status, token).toBe(200);
      const shared = await opened.json();
      expect(shared.id).toBe(merged.id);
      expect(productIds(shared)).toEqual(["1", "2"]);
    }
    // Items the customer saves later show through the old guest link too.
    await save("32", "3");
    expect(productIds(await (await open(guestLink.token)).json())).toEqual(["1", "2", "3"]);
  });

  it("a new guest list with the same anonymous id gets a link of its own; the old link stays with the customer", async () => {
    const { save, share, open, identify } = await shopper();
    await save(null, "1");
    const before = await share(null);
    const merged = await (await identify("33")).json();
    await save(null, "9");
    const after = await share(null);
    expect(after.token).not.toBe(before.token);
    expect(after.listId).not.toBe(merged.id);
    expect((await (await open(before.token)).json()).id).toBe(merged.id);
    expect(productIds(await (await open(after.token)).json())).toEqual(["9"]);
  });

  it("carries nothing when the guest had no link, and shareEnabled false still hides the carried link", async () => {
    const { shop, save, open, identify } = await shopper();
    await save(null, "1");
    const merged = await (await identify("34")).json();
    expect(merged.share).toEqual({ enabled: false, token: null });

    const other = await shopper();
    await other.save(null, "1");
    const link = await other.share(null);
    await other.save("35", "2");
    await other.share("35");
    await other.identify("35");
    await updateShopSettings({ shopId: other.shop.id, patch: { shareEnabled: false } });
    const hidden = await other.open(link.token);
    expect(hidden.status).toBe(403);
    expect((await hidden.json()).type).toBe("http://localhost:3000/problems/sharing-disabled");
    // Another shop never opens it.
    expect((await open(link.token)).status).toBe(404);
    expect(shop.id).not.toBe(other.shop.id);
  });
});
