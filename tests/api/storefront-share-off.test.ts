import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createShopWithKey } from "../factories";
import { rawCall, signedProxyPath } from "../support/openapi-client";
import { countEvents, countLists, eventsOf, listsOf } from "../support/wishlist-rows";
import { apiHarness } from "../support/harness";

const { app, validator, call, callsOf } = await apiHarness();
const PROBLEMS = "http://localhost:3000/problems";

/** A shop, and a shopper calling it through the app proxy (`customer` null: a guest with `aid`). */
async function shopper() {
  const { shop, secret } = await createShopWithKey();
  const aid = randomUUID();
  const { proxyCall } = callsOf({ shop, secret });
  const proxy = (path: string, customer: string | null, method = "GET", body?: unknown, query = {}) =>
    proxyCall(path, customer, { method, body, query });
  const guestQuery = (customer: string | null) => (customer ? {} : { aid });
  const save = (customer: string | null, productId: string) =>
    proxy("/storefront/wishlist/items", customer, "POST", { productId, handle: `p${productId}`, anonymousId: aid });
  const share = async (customer: string | null) => {
    const response = await proxy("/storefront/wishlist/share", customer, "POST", undefined, guestQuery(customer));
    expect(response.status).toBe(200);
    return (await response.json()) as { listId: string; token: string; url: string };
  };
  const unshare = (customer: string | null) =>
    proxy("/storefront/wishlist/share", customer, "DELETE", undefined, guestQuery(customer));
  const open = (token: string) => proxy(`/storefront/lists/${token}`, null);
  const read = async (customer: string | null) =>
    (await (await proxy("/storefront/wishlist", customer, "GET", undefined, guestQuery(customer))).json()) as {
      id: string | null;
      count: number;
      share: { enabled: boolean; token: string | null };
    };
  const identify = (customer: string) => proxy("/storefront/identify", customer, "POST", { anonymousId: aid });
  /** Any /v1 call with the shop's public key (a headless guest). */
  const publicCall = (path: string, init: RequestInit = {}) =>
    call(`/v1${path}`, {
      ...init,
      headers: { "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey, ...init.headers },
    });
  /** Any /v1 call with the shop's private key. */
  const privateCall = (path: string, init: RequestInit = {}) =>
    call(`/v1${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${secret}`, ...init.headers },
    });
  return { shop, aid, proxy, save, share, unshare, open, read, identify, publicCall, privateCall };
}

async function expectNotFound(response: Response) {
  expect(response.status).toBe(404);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect((await response.json()).type).toBe(`${PROBLEMS}/not-found`);
}

describe("DELETE /storefront/wishlist/share turns the share link off", () => {
  it("a guest's link answers 404 afterwards; the list reads as never shared; the list and its items stay", async () => {
    // GIVEN a guest who saved a product and shared the list
    const { shop, save, share, unshare, open, read } = await shopper();
    await save(null, "1");
    const link = await share(null);
    expect((await open(link.token)).status).toBe(200);
    const eventsBefore = await countEvents(shop.id);

    // WHEN the guest turns the link off
    const off = await unshare(null);

    // THEN 204 with no body, the token opens nothing, and the list says it is not shared
    expect(off.status).toBe(204);
    expect(await off.text()).toBe("");
    await expectNotFound(await open(link.token));
    const list = await read(null);
    expect(list).toMatchObject({ id: link.listId, count: 1, share: { enabled: false, token: null } });
    expect((await listsOf(shop.id)).map((row) => [row.id, row.shareToken, row.shareEnabled])).toEqual([
      [link.listId, null, false],
    ]);
    // No event: the contract has none for it, and list.shared means a link was created.
    expect(await countEvents(shop.id)).toBe(eventsBefore);
  });

  it("is idempotent: a second DELETE, and a DELETE by a shopper who never shared or has no list, answer 204", async () => {
    const { shop, save, share, unshare, open } = await shopper();
    await save(null, "1");
    const link = await share(null);
    expect((await unshare(null)).status).toBe(204);
    expect((await unshare(null)).status).toBe(204);
    await expectNotFound(await open(link.token));

    // A customer with no list at all: nothing to turn off, and no list is created for it.
    const lists = await countLists(shop.id);
    expect((await unshare("901")).status).toBe(204);
    expect(await countLists(shop.id)).toBe(lists);
  });

  it("sharing again issues a new token with its own list.shared event; the old token stays dead", async () => {
    const { shop, save, share, unshare, open, read } = await shopper();
    await save(null, "1");
    const first = await share(null);
    expect((await unshare(null)).status).toBe(204);

    const second = await share(null);

    expect(second.listId).toBe(first.listId);
    expect(second.token).not.toBe(first.token);
    expect(second.token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(second.url).toBe(`https://${shop.domain}/pages/wishlist?share=${second.token}`);
    expect((await open(second.token)).status).toBe(200);
    await expectNotFound(await open(first.token));
    expect((await read(null)).share).toEqual({ enabled: true, token: second.token });
    expect((await eventsOf(shop.id, "list.shared")).map((event) => JSON.parse(event.data))).toEqual([
      { listId: first.listId, shareToken: first.token, url: first.url },
      { listId: second.listId, shareToken: second.token, url: second.url },
    ]);
  });

  it("for a customer, kills their link; the guest link of the merged list had ended at the login already", async () => {
    // GIVEN a guest link and a customer link; the login ended the guest's (docs/decisions/033)
    const { shop, save, share, unshare, open, read, identify } = await shopper();
    await save(null, "1");
    const guestLink = await share(null);
    await save("41", "2");
    const customerLink = await share("41");
    expect((await identify("41")).status).toBe(200);
    await expectNotFound(await open(guestLink.token));
    expect((await open(customerLink.token)).status).toBe(200);

    // WHEN the customer turns sharing off
    expect((await unshare("41")).status).toBe(204);

    // THEN no token opens anything, no list keeps a token, and a new share is a new token
    await expectNotFound(await open(customerLink.token));
    expect((await read("41")).share).toEqual({ enabled: false, token: null });
    expect((await listsOf(shop.id)).filter((row) => row.shareToken !== null)).toEqual([]);
    const again = await share("41");
    expect([guestLink.token, customerLink.token]).not.toContain(again.token);
    expect((await open(again.token)).status).toBe(200);
  });

  it("touches no one else's link: the same anonymous id after the merge, another customer, another shop", async () => {
    // GIVEN a guest link ended by the merge into customer 43's list, and a new guest list with the same aid
    const { save, share, unshare, open, identify } = await shopper();
    await save(null, "1");
    const mergedGuestLink = await share(null);
    await save("43", "2");
    const customerLink = await share("43");
    await identify("43");
    await save(null, "9");
    const newGuestLink = await share(null);
    const otherCustomer = await share("44");
    const otherShop = await shopper();
    await otherShop.save("43", "1");
    const otherShopLink = await otherShop.share("43");

    // WHEN the guest with that anonymous id turns their link off
    expect((await unshare(null)).status).toBe(204);

    // THEN only their own new link dies: the anonymous id never reaches the customer's link
    await expectNotFound(await open(newGuestLink.token));
    await expectNotFound(await open(mergedGuestLink.token));
    expect((await (await open(customerLink.token)).json()).id).toBe(customerLink.listId);
    expect((await open(otherCustomer.token)).status).toBe(200);
    // AND customer 43 of this shop turning theirs off leaves customer 43 of the other shop alone
    expect((await unshare("43")).status).toBe(204);
    await expectNotFound(await open(customerLink.token));
    expect((await open(otherCustomer.token)).status).toBe(200);
    expect((await otherShop.open(otherShopLink.token)).status).toBe(200);
  });

  it("works while the shop has sharing or guest lists turned off, so turning them back on revives nothing", async () => {
    const { shop, save, share, unshare, open } = await shopper();
    await save(null, "1");
    const link = await share(null);
    await updateShopSettings({ shopId: shop.id, patch: { shareEnabled: false, guestEnabled: false } });
    expect((await unshare(null)).status).toBe(204);
    await updateShopSettings({ shopId: shop.id, patch: { shareEnabled: true, guestEnabled: true } });
    await expectNotFound(await open(link.token));
  });

  it("takes the owner as POST does: public key with aid or anonymousId, private key with customerId", async () => {
    const { shop, aid, save, share, open, publicCall, privateCall } = await shopper();
    await save(null, "1");
    let link = await share(null);
    const json = { "Content-Type": "application/json" };
    expect((await publicCall(`/storefront/wishlist/share?aid=${aid}`, { method: "DELETE" })).status).toBe(204);
    await expectNotFound(await open(link.token));

    link = await share(null);
    const byBody = await publicCall("/storefront/wishlist/share", {
      method: "DELETE",
      headers: json,
      body: JSON.stringify({ anonymousId: aid.toUpperCase(), note: "members we do not know are ignored" }),
    });
    expect(byBody.status).toBe(204);
    await expectNotFound(await open(link.token));

    await save("45", "1");
    link = await share("45");
    const byCustomer = await privateCall("/storefront/wishlist/share", {
      method: "DELETE",
      headers: json,
      body: JSON.stringify({ customerId: "gid://shopify/Customer/45" }),
    });
    expect(byCustomer.status).toBe(204);
    await expectNotFound(await open(link.token));
    // An empty body sent as JSON is no body: the owner in the query is enough.
    link = await share("45");
    const emptyBody = await privateCall("/storefront/wishlist/share?customerId=45", {
      method: "DELETE",
      headers: json,
      body: "",
    });
    expect(emptyBody.status).toBe(204);
    await expectNotFound(await open(link.token));
    expect(await countEvents(shop.id, "list.shared")).toBe(4);
  });

  const GUEST = "5b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c11";
  const OTHER_GUEST = "6f1c2c1e-3a5b-4c7d-8e9f-0a1b2c3d4e5f";
  const JSON_TYPE = { "Content-Type": "application/json" };
  it.each<{
    name: string;
    mode: "public" | "private" | "none";
    query: string;
    body?: unknown;
    headers?: Record<string, string>;
    status: number;
    slug: string;
  }>([
    { name: "public key, no shopper named", mode: "public", query: "", status: 400, slug: "invalid-parameter" },
    {
      name: "public key, aid not a UUID",
      mode: "public",
      query: "?aid=not-a-uuid",
      status: 400,
      slug: "invalid-parameter",
    },
    {
      name: "public key, a NUL in aid",
      mode: "public",
      query: `?aid=${GUEST}%00`,
      status: 400,
      slug: "invalid-parameter",
    },
    { name: "public key, customerId", mode: "public", query: "?customerId=45", status: 403, slug: "forbidden" },
    {
      name: "public key, customerId in the body",
      mode: "public",
      query: "",
      body: { customerId: "45" },
      status: 403,
      slug: "forbidden",
    },
    {
      name: "public key, aid and anonymousId naming two guests",
      mode: "public",
      query: `?aid=${GUEST}`,
      body: { anonymousId: OTHER_GUEST },
      status: 400,
      slug: "invalid-parameter",
    },
    {
      name: "public key, anonymousId not a UUID",
      mode: "public",
      query: "",
      body: { anonymousId: "guest" },
      status: 422,
      slug: "validation-error",
    },
    {
      name: "private key, both customerId and aid",
      mode: "private",
      query: `?customerId=45&aid=${GUEST}`,
      status: 400,
      slug: "ambiguous-shopper",
    },
    {
      name: "private key, customerId not an id",
      mode: "private",
      query: "?customerId=abc",
      status: 400,
      slug: "invalid-parameter",
    },
    {
      name: "private key, malformed JSON",
      mode: "private",
      query: "?customerId=45",
      body: "{",
      headers: JSON_TYPE,
      status: 400,
      slug: "malformed-json",
    },
    {
      name: "private key, a body that is not JSON",
      mode: "private",
      query: "?customerId=45",
      body: "x",
      headers: { "Content-Type": "text/plain" },
      status: 415,
      slug: "unsupported-media-type",
    },
    {
      name: "private key, a body that is an array",
      mode: "private",
      query: "?customerId=45",
      body: [],
      status: 422,
      slug: "validation-error",
    },
    { name: "no credential", mode: "none", query: `?aid=${GUEST}`, status: 401, slug: "unauthorized" },
  ])("refuses $name ($status $slug) and changes nothing", async ({ mode, query, body, headers, status, slug }) => {
    const { shop, save, share, open, publicCall, privateCall } = await shopper();
    await save(null, "1");
    const link = await share(null);
    const init: RequestInit = {
      method: "DELETE",
      headers: { ...(body !== undefined ? JSON_TYPE : {}), ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    };
    const path = `/storefront/wishlist/share${query}`;
    const response =
      mode === "public"
        ? await publicCall(path, init)
        : mode === "private"
          ? await privateCall(path, init)
          : await rawCall(app, validator, `/v1${path}`, init);
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect((await response.json()).type).toBe(`${PROBLEMS}/${slug}`);
    expect((await open(link.token)).status).toBe(200);
    expect((await listsOf(shop.id)).filter((row) => row.shareToken === link.token)).toHaveLength(1);
  });

  it("a tampered app proxy signature is refused and the link stays", async () => {
    const { shop, aid, save, share, open } = await shopper();
    await save(null, "1");
    const link = await share(null);
    const signed = signedProxyPath("/proxy/v1/storefront/wishlist/share", {
      shop: shop.domain,
      logged_in_customer_id: "",
      aid,
    });
    const tampered = await rawCall(app, validator, signed.replace(aid, randomUUID()), { method: "DELETE" });
    expect(tampered.status).toBe(401);
    expect((await open(link.token)).status).toBe(200);
  });
});
