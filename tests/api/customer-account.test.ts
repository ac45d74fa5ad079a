/**
 * The customer account extension's calling mode (docs/decisions/047-customer-account-session-tokens.md), end to
 * end through the web process's app: session tokens signed here as the platform signs them (HS256 with the app's
 * secret, stand-in/customer-account-token.ts), verified by the app through the platform library. A token that
 * is not the platform's for a logged-in customer of this shop, or a list or item of another customer, is a
 * problem document and writes nothing (every table digested before and after).
 */
import { createHmac, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getEnv, resetEnvCache } from "~/env.server";
import { updateShopSettings } from "~/services/shops/shops.server";
import { SHOPIFY_API_VERSION } from "~/shopify-api-version";
import { createList as createNamedList } from "~/services/wishlists/named-lists.server";
import { addItem } from "~/services/wishlists/wishlists.server";
import { signCustomerAccountToken, type CustomerAccountTokenClaims } from "../../stand-in/customer-account-token";
import { createShop, createShopWithKey } from "../factories";
import { changesBetween, databaseState } from "../support/fuzz";
import { apiHarness } from "../support/harness";
import { BASE_URL } from "../support/http";
import { eventsOf } from "../support/wishlist-rows";

// Each case calls as one of a few customers: well within a minute, more than the storefront's 60 a minute.
process.env.RATE_LIMIT_STOREFRONT_PER_MINUTE = "100000";
resetEnvCache();

const { app, call } = await apiHarness();
const { shop, secret } = await createShopWithKey();
await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true } });
const other = await createShopWithKey();
const { apiKey, apiSecret } = { apiKey: getEnv().SHOPIFY_API_KEY, apiSecret: getEnv().SHOPIFY_API_SECRET };

const ADA = "7001";
const GRACE = "7002";
const SANDBOX = "https://extensions.shopifycdn.com";

type Claims = Partial<Omit<CustomerAccountTokenClaims, "customerId">> & { customerId?: string | null };

/** A token as the platform signs it for `customerId` of the shop (or what `claims` change). */
const tokenFor = (customerId: string | null, claims: Claims = {}) =>
  signCustomerAccountToken({ shopDomain: shop.domain, apiKey, apiSecret, customerId, ...claims });

/** A call as the extension makes it: the token as a bearer credential, from the platform's sandbox. */
async function asCustomer(
  token: string,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  return call(`/v1${path}`, {
    method: init.method ?? "GET",
    headers: {
      Authorization: `Bearer ${token}`,
      Origin: SANDBOX,
      ...(init.body === undefined ? {} : { "Content-Type": "application/json" }),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

const saved = async (customerId: string, listId?: string) =>
  (
    await addItem({
      shopId: shop.id,
      owner: { kind: "customer", customerId },
      item: { productId: String(8_100_000_000 + Math.floor(Math.random() * 1e6)), handle: "aurora-linen-shirt" },
      ...(listId ? { listId } : {}),
    })
  ).item;

const namedList = async (customerId: string, name = `Gifts ${randomUUID().slice(0, 8)}`) =>
  createNamedList({ shopId: shop.id, owner: { kind: "customer", customerId }, name });

/**
 * Runs `act`, then expects its answer to be the problem `slug` with `status` and no table to have changed (but
 * the record of the request's own Idempotency-Key, which keeps a refusal for its replays).
 */
async function refusedWithNothingWritten(
  act: () => Promise<Response>,
  status: number,
  slug: string,
  idempotencyKey?: string,
) {
  const before = await databaseState();
  const response = await act();
  const after = await databaseState();
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const problem = (await response.json()) as { type: string; status: number; detail: string };
  expect(problem.type).toBe(`http://localhost:3000/problems/${slug}`);
  expect(problem.status).toBe(status);
  expect(changesBetween(before, after, idempotencyKey)).toEqual([]);
  return { response, problem };
}

describe("the customer account session token: the customer's own lists", () => {
  it("lists, reads, moves, removes, saves and edits as the token's customer, through the platform library", async () => {
    // GIVEN Ada with an item on her default list and a named list
    const gifts = await namedList(ADA, "Gifts");
    const item = await saved(ADA);
    const token = await tokenFor(ADA);

    // WHEN the extension reads her lists
    const lists = await asCustomer(token, "/storefront/wishlists");
    expect(lists.status).toBe(200);
    const body = (await lists.json()) as { data: Array<{ id: string; name: string; count: number }> };
    expect(body.data.map((list) => [list.name, list.count])).toEqual([
      ["Wishlist", 1],
      ["Gifts", 0],
    ]);

    // THEN it can move the item, set its quantity, remove it, and save another on a named list
    const moved = await asCustomer(token, `/storefront/wishlist/items/${item.id}/move`, {
      method: "POST",
      body: { listId: gifts.id },
    });
    expect(moved.status).toBe(200);
    const list = await asCustomer(token, `/storefront/wishlists/${gifts.id}`);
    expect(((await list.json()) as { items: Array<{ id: string }> }).items.map((entry) => entry.id)).toEqual([item.id]);
    const edited = await asCustomer(token, `/storefront/wishlist/items/${item.id}`, {
      method: "PATCH",
      body: { quantity: 3, note: "size M" },
    });
    expect(await edited.json()).toMatchObject({ quantity: 3, note: "size M" });
    const added = await asCustomer(token, "/storefront/wishlist/items", {
      method: "POST",
      body: { productId: "8100000002", handle: "harbor-wool-coat", listId: gifts.id },
    });
    expect(added.status).toBe(201);
    const removed = await asCustomer(token, `/storefront/wishlist/items?itemId=${item.id}&listId=${gifts.id}`, {
      method: "DELETE",
      body: {},
    });
    expect(removed.status).toBe(204);
    const after = (await (await asCustomer(token, `/storefront/wishlists/${gifts.id}`)).json()) as {
      items: Array<{ productId: string }>;
    };
    expect(after.items.map((entry) => entry.productId)).toEqual(["8100000002"]);

    // AND the events name Ada's lists, as for any other mode
    const events = await eventsOf(shop.id);
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(["item.removed", "item.added", "item.updated"]),
    );
  });

  it("acts for the token's customer only: an anonymous id is ignored, customerId is a 403", async () => {
    const token = await tokenFor(GRACE);
    const guest = randomUUID();
    const toggled = await asCustomer(token, "/storefront/wishlist/toggle", {
      method: "POST",
      body: { productId: "8100000003", handle: "meadow-sun-hat", anonymousId: guest },
    });
    expect(toggled.status).toBe(200);
    const read = (await (await asCustomer(token, `/storefront/wishlist?aid=${guest}`)).json()) as {
      owner: { type: string; customerId?: string };
    };
    expect(read.owner).toEqual({ type: "customer", customerId: GRACE });
    const { problem } = await refusedWithNothingWritten(
      () =>
        asCustomer(token, "/storefront/wishlist/items", {
          method: "POST",
          body: { productId: "8100000004", handle: "canyon-leather-boots", customerId: ADA },
        }),
      403,
      "forbidden",
    );
    expect(problem.detail).toContain("customerId is refused");
  });

  it("takes dest written as an origin, and a customer id in the platform's canonical form", async () => {
    const token = await tokenFor(null, {
      overrides: { dest: `https://${shop.domain}`, sub: `gid://shopify/Customer/00${ADA}` },
    });
    const read = (await (await asCustomer(token, "/storefront/wishlist")).json()) as { owner: { customerId: string } };
    expect(read.owner.customerId).toBe(ADA);
  });

  it("replays an Idempotency-Key for the same customer only", async () => {
    const gifts = await namedList(GRACE);
    const item = await saved(GRACE);
    const key = `move-${randomUUID()}`;
    const move = async (customerId: string) =>
      asCustomer(await tokenFor(customerId), `/storefront/wishlist/items/${item.id}/move`, {
        method: "POST",
        body: { listId: gifts.id, copy: true },
        headers: { "Idempotency-Key": key },
      });
    expect((await move(GRACE)).status).toBe(201);
    const replay = await move(GRACE);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    // Ada with Grace's key: her own request (no replay of Grace's answer), which meets an item she does not have.
    const { response } = await refusedWithNothingWritten(() => move(ADA), 404, "not-found", key);
    expect(response.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("what the mode refuses, with nothing written", () => {
  const TOGGLE = { method: "POST", body: { productId: "8100000005", handle: "tidal-swim-shorts" } } as const;

  it.each<[string, () => Promise<string>, string]>([
    ["signed with another secret", () => tokenFor(ADA, { apiSecret: "not-the-app-secret" }), "does not verify"],
    ["expired", () => tokenFor(ADA, { lifetimeSeconds: -60 }), "has expired"],
    ["not valid yet", () => tokenFor(ADA, { notBeforeSeconds: 120 }), "is not valid yet"],
    ["for another app (aud)", () => tokenFor(ADA, { apiKey: "another-app" }), "another app"],
    ["without exp", () => tokenFor(ADA, { omit: ["exp"] }), "must carry `exp` and `nbf`"],
    ["without nbf", () => tokenFor(ADA, { omit: ["nbf"] }), "must carry `exp` and `nbf`"],
    ["without sub (no customer logged in)", () => tokenFor(null), "names no customer"],
    [
      "with a sub that is not a customer",
      () => tokenFor(null, { overrides: { sub: "gid://shopify/StaffMember/1" } }),
      "names no customer",
    ],
    ["with a bare customer id as sub", () => tokenFor(null, { overrides: { sub: ADA } }), "names no customer"],
    [
      "for a shop that is no shop domain",
      () => tokenFor(ADA, { overrides: { dest: "evil.example" } }),
      "not a shop domain",
    ],
    [
      "for a shop the app is not installed on",
      () => tokenFor(ADA, { shopDomain: "nowhere.myshopify.com" }),
      "not installed",
    ],
    ["with alg none", async () => unsigned(await tokenFor(ADA)), "does not verify"],
  ])("a token %s: 401", async (_case, token, detail) => {
    const { response, problem } = await refusedWithNothingWritten(
      async () => asCustomer(await token(), "/storefront/wishlist/toggle", TOGGLE),
      401,
      "unauthorized",
    );
    expect(problem.detail).toContain(detail);
    // The library's error quotes the token: the answer never does.
    expect(problem.detail).not.toMatch(/eyJ/);
    // The extension can read the refusal.
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("a guest cannot use it: a token without a customer naming an anonymous id is a 401", async () => {
    const guest = randomUUID();
    await refusedWithNothingWritten(
      async () =>
        asCustomer(await tokenFor(null), "/storefront/wishlist/toggle", {
          method: "POST",
          body: { ...TOGGLE.body, anonymousId: guest },
        }),
      401,
      "unauthorized",
    );
    await refusedWithNothingWritten(
      async () => asCustomer(await tokenFor(null), `/storefront/wishlists?aid=${guest}`),
      401,
      "unauthorized",
    );
  });

  it("another shop's token reaches that shop's lists, never this one's", async () => {
    // GIVEN Ada's list here, and a token the platform signed for the same customer id at another shop
    const gifts = await namedList(ADA);
    const item = await saved(ADA, gifts.id);
    const otherToken = await tokenFor(ADA, { shopDomain: other.shop.domain });
    // THEN her lists and items here are another shop's to that token: 404, nothing written
    await refusedWithNothingWritten(
      () => asCustomer(otherToken, `/storefront/wishlists/${gifts.id}`),
      404,
      "not-found",
    );
    await refusedWithNothingWritten(
      () => asCustomer(otherToken, `/storefront/wishlist/items/${item.id}`, { method: "PATCH", body: { quantity: 2 } }),
      404,
      "not-found",
    );
    const lists = (await (await asCustomer(otherToken, "/storefront/wishlists")).json()) as {
      data: Array<{ id: string | null }>;
    };
    expect(lists.data.map((list) => list.id)).toEqual([null]);
  });

  it("another customer's lists and items are 404s", async () => {
    // GIVEN Grace's named list with an item, and Ada's own list and item
    const graces = await namedList(GRACE);
    const gracesItem = await saved(GRACE, graces.id);
    const adas = await namedList(ADA);
    const adasItem = await saved(ADA);
    const ada = await tokenFor(ADA);
    for (const act of [
      () => asCustomer(ada, `/storefront/wishlists/${graces.id}`),
      () => asCustomer(ada, `/storefront/wishlists/${graces.id}`, { method: "PATCH", body: { name: "Mine now" } }),
      () => asCustomer(ada, `/storefront/wishlists/${graces.id}?`, { method: "DELETE" }),
      () => asCustomer(ada, `/storefront/wishlists/${graces.id}/share`, { method: "POST" }),
      () => asCustomer(ada, `/storefront/wishlist/items/${gracesItem.id}`, { method: "PATCH", body: { quantity: 9 } }),
      () =>
        asCustomer(ada, `/storefront/wishlist/items/${gracesItem.id}/move`, {
          method: "POST",
          body: { listId: adas.id },
        }),
      () =>
        asCustomer(ada, `/storefront/wishlist/items/${adasItem.id}/move`, {
          method: "POST",
          body: { listId: graces.id },
        }),
      () =>
        asCustomer(ada, "/storefront/wishlist/toggle", { method: "POST", body: { ...TOGGLE.body, listId: graces.id } }),
      () =>
        asCustomer(ada, `/storefront/wishlist/items?itemId=${gracesItem.id}&listId=${graces.id}`, {
          method: "DELETE",
          body: {},
        }),
    ]) {
      await refusedWithNothingWritten(act, 404, "not-found");
    }
    // AND removing Grace's item by its id from Ada's default list removes nothing (204, as for any absent item)
    const before = await databaseState();
    const removed = await asCustomer(ada, `/storefront/wishlist/items?itemId=${gracesItem.id}`, {
      method: "DELETE",
      body: {},
    });
    expect(removed.status).toBe(204);
    expect(changesBetween(before, await databaseState())).toEqual([]);
  });

  it.each([
    ["POST /storefront/identify", "/storefront/identify", { method: "POST", body: { anonymousId: randomUUID() } }],
    ["GET /storefront/config", "/storefront/config", { headers: { "Accept-Language": "en" } }],
    ["GET /shop", "/shop", {}],
    ["GET /lists", "/lists", {}],
  ])("%s is not the account page's: 403", async (_name, path, init) => {
    const { problem } = await refusedWithNothingWritten(
      async () => asCustomer(await tokenFor(ADA), path, init),
      403,
      "forbidden",
    );
    expect(problem.detail).toContain("Customer account session tokens");
  });

  it("a shop that uninstalled the app: 403 shop-uninstalled once the token verifies", async () => {
    const gone = await createShop();
    await uninstall(gone.domain);
    await refusedWithNothingWritten(
      async () => asCustomer(await tokenFor(ADA, { shopDomain: gone.domain }), "/storefront/wishlists"),
      403,
      "shop-uninstalled",
    );
  });

  it("a private key is still a private key, and a bearer credential of neither form is a 401", async () => {
    const response = await app.request(`${BASE_URL}/v1/storefront/wishlist?customerId=${ADA}`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(response.status).toBe(200);
    const { problem } = await refusedWithNothingWritten(
      () => asCustomer("not-a-key-nor-a-token", "/storefront/wishlist"),
      401,
      "unauthorized",
    );
    expect(problem.detail).toContain("svc_sk_");
  });
});

describe("CORS for the platform's extension sandbox, as the platform library grants it", () => {
  const preflight = (path: string, headers: string) =>
    app.request(`${BASE_URL}/v1${path}`, {
      method: "OPTIONS",
      headers: { Origin: SANDBOX, "Access-Control-Request-Method": "PATCH", "Access-Control-Request-Headers": headers },
    });

  it("grants a storefront preflight that asks for Authorization to any origin", async () => {
    const response = await preflight(
      "/storefront/wishlist/items/itm_01jd2x6c5ef0q8w3d0s8b2n7k4",
      "authorization, content-type",
    );
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toContain("PATCH");
    expect(response.headers.get("access-control-allow-headers")).toContain("Authorization");
    expect(response.headers.get("access-control-allow-headers")).toContain("Idempotency-Key");
  });

  it("grants no preflight for a private operation, nor one that asks for no Authorization", async () => {
    expect((await preflight("/shop", "authorization")).headers.get("access-control-allow-origin")).toBeNull();
    expect(
      (await preflight("/storefront/wishlists", "content-type")).headers.get("access-control-allow-origin"),
    ).toBeNull();
  });

  it("grants the answers, exposing the rate-limit headers the extension may read", async () => {
    const response = await asCustomer(await tokenFor(ADA), "/storefront/wishlists");
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-expose-headers")).toContain("X-RateLimit-Remaining-Shopper");
  });
});

/** The token with its header replaced by `{"alg":"none"}` and no signature. */
function unsigned(token: string): string {
  const [, payload] = token.split(".");
  const header = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
  return `${header}.${payload}.x`;
}

/** The platform's app/uninstalled webhook for the shop, signed as the platform signs it. */
async function uninstall(domain: string) {
  const body = JSON.stringify({ id: 1, name: "Shop", domain, myshopify_domain: domain });
  const response = await app.request(`${BASE_URL}/webhooks/app/uninstalled`, {
    method: "POST",
    body,
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": "app/uninstalled",
      "X-Shopify-Shop-Domain": domain,
      "X-Shopify-API-Version": SHOPIFY_API_VERSION,
      "X-Shopify-Webhook-Id": randomUUID(),
      "X-Shopify-Hmac-Sha256": createHmac("sha256", apiSecret).update(body).digest("base64"),
    },
  });
  expect(response.status).toBe(200);
}
