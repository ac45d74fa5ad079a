import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { insertDefaultLists, retireList } from "~/data/list-rows.server";
import { createShopWithKey } from "../factories";
import { countEvents } from "../support/wishlist-rows";
import { apiHarness } from "../support/harness";

const { callsOf } = await apiHarness();

/** A shopper on the shop's own domain (app proxy): a guest with `aid` until they log in as `customer`. */
async function shopper() {
  const { shop, secret } = await createShopWithKey();
  const aid = randomUUID();
  const { proxyCall } = callsOf({ shop, secret });
  const proxy = (path: string, customer: string | null, method = "GET", body?: unknown, query = {}) =>
    proxyCall(path, customer, { method, body, query });
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

async function expectUnknown(response: Response) {
  expect(response.status).toBe(404);
  expect((await response.json()).type).toBe("http://localhost:3000/problems/not-found");
}

describe("a guest's share link ends at login: it never shows more than the guest shared (issue 25, item 2)", () => {
  it("the guest shared 4 items and logged in: the link opens nothing rather than the customer's 5, and the answer says so", async () => {
    // GIVEN a customer with account items, and a guest in another session who shares 4 items
    const { shop, save, share, open, identify, proxy } = await shopper();
    for (const product of ["1", "2", "3", "4"]) await save(null, product);
    const guestLink = await share(null);
    for (const product of ["4", "5", "6", "7"]) await save("31", product);
    expect(productIds(await (await open(guestLink.token)).json())).toEqual(["1", "2", "3", "4"]);

    // WHEN the guest logs in
    const merged = await (await identify("31")).json();

    // THEN the list is merged, the guest's link is off (said in the answer), and a fresh browser gets 404
    expect(merged).toMatchObject({ count: 7, guestShareLinkEnded: true, share: { enabled: false, token: null } });
    await expectUnknown(await open(guestLink.token));
    // Sharing the customer's list is a new choice: a new token and its own list.shared event.
    const customerLink = await share("31");
    expect(customerLink.token).not.toBe(guestLink.token);
    expect(productIds(await (await open(customerLink.token)).json())).toEqual(["1", "2", "3", "4", "5", "6", "7"]);
    expect(await countEvents(shop.id, "list.shared")).toBe(2);
    await expectUnknown(await open(guestLink.token));
    expect((await (await proxy("/storefront/wishlist", "31")).json()).share).toEqual({
      enabled: true,
      token: customerLink.token,
    });
  });

  it("when both lists had links, the customer's stays as it was and the guest's ends", async () => {
    const { save, share, open, identify } = await shopper();
    await save(null, "1");
    const guestLink = await share(null);
    await save("32", "2");
    const customerLink = await share("32");

    const merged = await (await identify("32")).json();
    expect(merged).toMatchObject({ guestShareLinkEnded: true, share: { enabled: true, token: customerLink.token } });
    await expectUnknown(await open(guestLink.token));
    // The customer shared their list, so it shows what it holds now, the guest's items included.
    expect(productIds(await (await open(customerLink.token)).json())).toEqual(["1", "2"]);
  });

  it("a new guest list with the same anonymous id gets a link of its own; the ended link stays dead", async () => {
    const { save, share, open, identify } = await shopper();
    await save(null, "1");
    const before = await share(null);
    await identify("33");
    await save(null, "9");
    const after = await share(null);
    expect(after.token).not.toBe(before.token);
    await expectUnknown(await open(before.token));
    expect(productIds(await (await open(after.token)).json())).toEqual(["9"]);
  });

  it("ends nothing when the guest had no link, and a repeated login says nothing ended", async () => {
    const { save, share, identify } = await shopper();
    await save("34", "2");
    const customerLink = await share("34");
    await save(null, "1");
    const merged = await (await identify("34")).json();
    expect(merged).toMatchObject({ guestShareLinkEnded: false, share: { enabled: true, token: customerLink.token } });
    expect(await (await identify("34")).json()).toMatchObject({ guestShareLinkEnded: false });
  });

  it("a link a retired guest list kept from before this rule opens nothing", async () => {
    // GIVEN the state the earlier merge left: the retired guest list kept its token and named the customer
    const { shop, save, share, open } = await shopper();
    await save(null, "1");
    const guestLink = await share(null);
    await save("35", "2");
    const db = database();
    await retireList(db, shop.id, guestLink.listId, new Date(), { customerId: "35" });
    await insertDefaultLists(db, shop.id, "customerId", ["35"], new Date());
    // THEN the token answers as unknown rather than opening the customer's list
    await expectUnknown(await open(guestLink.token));
  });
});
