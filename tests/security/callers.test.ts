import { createHmac, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { SHOPIFY_API_VERSION } from "~/shopify-api-version";
import { createShopWithKey } from "../factories";
import { rawCall } from "../support/openapi-client";
import { BASE_URL } from "../support/http";
import { apiHarness } from "../support/harness";

const { app, validator } = await apiHarness();
const SECRET = "local-dev-api-secret";

/**
 * The app proxy signature as the platform computes it, written independently of the platform library:
 * parameters sorted by key, each `key=value` (repeated keys: values joined with commas), concatenated,
 * HMAC-SHA256 hex with the app secret.
 */
function proxySignature(pairs: Array<[string, string]>, secret = SECRET) {
  const grouped = new Map<string, string[]>();
  for (const [key, value] of pairs) grouped.set(key, [...(grouped.get(key) ?? []), value]);
  const message = [...grouped.keys()]
    .sort()
    .map((key) => `${key}=${grouped.get(key)!.join(",")}`)
    .join("");
  return createHmac("sha256", secret).update(message).digest("hex");
}

const now = () => String(Math.floor(Date.now() / 1000));
const query = (pairs: Array<[string, string]>) => new URLSearchParams(pairs).toString();

/** The platform's signed query for a shopper of `shop` (customer id, or "" for a guest). */
function signedQuery(shop: string, customer: string, extra: Array<[string, string]> = []) {
  const pairs: Array<[string, string]> = [
    ["shop", shop],
    ["logged_in_customer_id", customer],
    ["path_prefix", "/apps/service"],
    ["timestamp", now()],
    ...extra,
  ];
  return query([...pairs, ["signature", proxySignature(pairs)]]);
}

async function expectProblem(response: Response, status: number, slug: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect((await response.json()).type).toBe(`${BASE_URL}/problems/${slug}`);
}

/** Shop B with customer 777's wishlist holding one product: what the pollution attack would read. */
async function victimShop() {
  const victim = await createShopWithKey();
  const response = await rawCall(app, validator, "/v1/storefront/wishlist/items", {
    method: "POST",
    headers: { Authorization: `Bearer ${victim.secret}`, "Content-Type": "application/json" },
    body: JSON.stringify({ productId: "9001", handle: "secret-product", customerId: "777" }),
  });
  expect(response.status).toBe(201);
  return victim;
}

describe("app proxy: the shop and customer come only from the verified parameters", () => {
  it("refuses a signed query of shop A with shop B and customer 777 prepended (parameter pollution)", async () => {
    const attacker = await createShopWithKey();
    const victim = await victimShop();
    const signed = signedQuery(attacker.shop.domain, "5");
    const polluted = `shop=${victim.shop.domain}&logged_in_customer_id=777&${signed}`;
    const response = await rawCall(app, validator, `/proxy/v1/storefront/wishlist?${polluted}`);
    await expectProblem(response, 401, "unauthorized");
    // Nothing of shop B was created or read through the attacker's request.
    expect(await database().selectFrom("List").select("id").where("shopId", "=", attacker.shop.id).execute()).toEqual(
      [],
    );
  });

  it.each(["shop", "logged_in_customer_id", "path_prefix", "timestamp", "signature"])(
    "refuses a query where the reserved parameter %s appears twice, first or last",
    async (name) => {
      const { shop } = await createShopWithKey();
      const signed = signedQuery(shop.domain, "5");
      const value = new URLSearchParams(signed).get(name)!;
      for (const polluted of [`${name}=${encodeURIComponent(value)}&${signed}`, `${signed}&${name}=x`]) {
        const response = await rawCall(app, validator, `/proxy/v1/storefront/wishlist?${polluted}`);
        await expectProblem(response, 401, "unauthorized");
      }
    },
  );

  it("refuses a signed guest query re-split into customer 777's (a parameter name holding '=')", async () => {
    const victim = await victimShop();
    // What the platform signs for a guest whose URL carries a=1logged_in_customer_id=777 ...
    const signedPairs: Array<[string, string]> = [
      ["a", "1logged_in_customer_id=777"],
      ["logged_in_customer_id", ""],
      ["path_prefix", "/apps/service"],
      ["shop", victim.shop.domain],
      ["timestamp", now()],
    ];
    const signature = proxySignature(signedPairs);
    // ... runs together into the same string as this set, which names customer 777.
    const resplit: Array<[string, string]> = [
      ["a", "1"],
      ["logged_in_customer_id", "777"],
      ["logged_in_customer_id=path_prefix", "/apps/service"],
      ["shop", victim.shop.domain],
      ["timestamp", signedPairs[4]![1]],
    ];
    expect(proxySignature(resplit)).toBe(signature);
    const response = await rawCall(
      app,
      validator,
      `/proxy/v1/storefront/wishlist?${query([...resplit, ["signature", signature]])}`,
    );
    await expectProblem(response, 401, "unauthorized");
  });

  it("refuses a signed guest query re-split into customer 777's with no '=' in any name or value", async () => {
    const victim = await victimShop();
    // What the platform signs for a guest whose URL carries a=x, b_logged_in_customer_id=123m... and c=y ...
    const signedPairs: Array<[string, string]> = [
      ["a", "x"],
      ["b_logged_in_customer_id", "777m"],
      ["c", "y"],
      ["logged_in_customer_id", ""],
      ["path_prefix", "/apps/service"],
      ["shop", victim.shop.domain],
      ["timestamp", now()],
    ];
    const signature = proxySignature(signedPairs);
    // ... runs together into the same string as this set, which names customer 777: the guest's own empty
    // `logged_in_customer_id=` is split across the value "yl" and the name "ogged_in_customer_id".
    const resplit: Array<[string, string]> = [
      ["a", "xb_"],
      ["logged_in_customer_id", "777"],
      ["mc", "yl"],
      ["ogged_in_customer_id", ""],
      ["path_prefix", "/apps/service"],
      ["shop", victim.shop.domain],
      ["timestamp", signedPairs[6]![1]],
    ];
    expect(proxySignature(resplit)).toBe(signature);
    // In the message's order and in another (the message is sorted by the receiver, not the sender).
    for (const pairs of [resplit, [...resplit].reverse()]) {
      const response = await rawCall(
        app,
        validator,
        `/proxy/v1/storefront/wishlist?${query([...pairs, ["signature", signature]])}`,
      );
      await expectProblem(response, 401, "unauthorized");
    }
  });

  it("refuses a signature of an hour ago re-split into a fresh timestamp (the 90 s limit)", async () => {
    const { shop } = await createShopWithKey();
    const old = String(Math.floor(Date.now() / 1000) - 3600);
    const fresh = now();
    // What the platform signed an hour ago for a guest whose URL carried sz=1timestamp=<now>zz= ...
    const signedPairs: Array<[string, string]> = [
      ["aid", randomUUID()],
      ["logged_in_customer_id", ""],
      ["path_prefix", "/apps/service"],
      ["shop", shop.domain],
      ["sz", `1timestamp=${fresh}zz=`],
      ["timestamp", old],
    ];
    const signature = proxySignature(signedPairs);
    // ... is the same string as this set, whose timestamp is fresh.
    const resplit: Array<[string, string]> = [
      ...signedPairs.slice(0, 4),
      ["sz", "1"],
      ["timestamp", fresh],
      ["zz", `timestamp=${old}`],
    ];
    expect(proxySignature(resplit)).toBe(signature);
    // In the message's order and in another (the message is sorted by the receiver, not the sender).
    for (const pairs of [resplit, [...resplit].reverse()]) {
      const response = await rawCall(
        app,
        validator,
        `/proxy/v1/storefront/wishlist?${query([...pairs, ["signature", signature]])}`,
      );
      await expectProblem(response, 401, "unauthorized");
    }
  });

  it("refuses an unsigned `hmac` beside a valid signature, and one the platform signed", async () => {
    const { shop } = await createShopWithKey();
    const aid = randomUUID();
    const signed = signedQuery(shop.domain, "", [["aid", aid]]);
    // The platform library leaves `hmac` out of the message it checks: appended, it verifies unsigned.
    const unsigned = await rawCall(app, validator, `/proxy/v1/storefront/wishlist?${signed}&hmac=anything`);
    await expectProblem(unsigned.clone(), 401, "unauthorized");
    expect((await unsigned.json()).detail).toContain("`hmac`");
    // A shopper's own `hmac`, which the platform signs with the rest.
    const signedWithHmac = signedQuery(shop.domain, "", [
      ["aid", aid],
      ["hmac", "anything"],
    ]);
    await expectProblem(
      await rawCall(app, validator, `/proxy/v1/storefront/wishlist?${signedWithHmac}`),
      401,
      "unauthorized",
    );
    // The same call without it is served.
    expect((await rawCall(app, validator, `/proxy/v1/storefront/wishlist?${signed}`)).status).toBe(200);
  });

  it.each([
    ["aid", "a parameter the route reads"],
    ["utm", "a parameter no route reads"],
  ])("refuses %s given twice though signed as the platform signs it (%s)", async (name) => {
    const { shop } = await createShopWithKey();
    const [first, second] = [randomUUID(), randomUUID()];
    // The platform signs "<name>=<first>,<second>"; the route would read <first>.
    const extra: Array<[string, string]> = [
      [name, first],
      [name, second],
    ];
    const signed = signedQuery(shop.domain, "", name === "aid" ? extra : [["aid", first], ...extra]);
    const response = await rawCall(app, validator, `/proxy/v1/storefront/wishlist?${signed}`);
    await expectProblem(response.clone(), 401, "unauthorized");
    expect((await response.json()).detail).toContain(`${name} repeated`);
    // One value holding the comma (what was signed) is an ordinary parameter.
    const single = signedQuery(shop.domain, "", [
      ["aid", first],
      ["utm", `${first},${second}`],
    ]);
    expect((await rawCall(app, validator, `/proxy/v1/storefront/wishlist?${single}`)).status).toBe(200);
  });

  it("serves the customer of the signed query (the legitimate call still works)", async () => {
    const victim = await victimShop();
    const response = await rawCall(
      app,
      validator,
      `/proxy/v1/storefront/wishlist?${signedQuery(victim.shop.domain, "777")}`,
    );
    expect(response.status).toBe(200);
    const list = await response.json();
    expect(list.owner).toEqual({ type: "customer", customerId: "777" });
    expect(list.items.map((item: { productId: string }) => item.productId)).toEqual(["9001"]);
  });

  it("refuses an expired timestamp, a missing timestamp and a missing signature with 401", async () => {
    const { shop } = await createShopWithKey();
    const old = String(Math.floor(Date.now() / 1000) - 3_600);
    const expired: Array<[string, string]> = [
      ["shop", shop.domain],
      ["logged_in_customer_id", "5"],
      ["path_prefix", "/apps/service"],
      ["timestamp", old],
    ];
    const noTimestamp = expired.filter(([key]) => key !== "timestamp");
    for (const q of [
      query([...expired, ["signature", proxySignature(expired)]]),
      query([...noTimestamp, ["signature", proxySignature(noTimestamp)]]),
      query(expired.map(([key, value]): [string, string] => [key, key === "timestamp" ? now() : value])),
      query([...expired.slice(0, 3), ["timestamp", "soon"], ["signature", proxySignature(expired)]]),
    ]) {
      await expectProblem(await rawCall(app, validator, `/proxy/v1/storefront/wishlist?${q}`), 401, "unauthorized");
    }
  });

  it("reads the signed customer id in its canonical form: 0123 is customer 123, for the list, idempotency and the rate limit", async () => {
    const victim = await victimShop(); // customer 777's list holds product 9001
    const read = await rawCall(
      app,
      validator,
      `/proxy/v1/storefront/wishlist?${signedQuery(victim.shop.domain, "000777")}`,
    );
    expect(read.status).toBe(200);
    expect((await read.json()).owner).toEqual({ type: "customer", customerId: "777" });

    // One Idempotency-Key, sent as 0123 and then as 123: one shopper's key (one scope), so the second is not
    // run as a new toggle (which would remove the product again); its query differs, so it is refused as reused.
    // And one shopper's rate limit bucket.
    const { shop } = await createShopWithKey();
    const key = randomUUID();
    const toggle = (customer: string) =>
      rawCall(app, validator, `/proxy/v1/storefront/wishlist/toggle?${signedQuery(shop.domain, customer)}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify({ productId: "4242", handle: "p4242" }),
      });
    const first = await toggle("0123");
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ added: true, count: 1 });
    const remaining = Number(first.headers.get("x-ratelimit-remaining-shopper"));
    await expectProblem(await toggle("123"), 422, "idempotency-key-reused");
    const saved = await database()
      .selectFrom("List")
      .leftJoin("Item", "Item.listId", "List.id")
      .select(["List.customerId", "Item.productId"])
      .where("List.shopId", "=", shop.id)
      .execute();
    expect(saved).toEqual([{ customerId: "123", productId: "4242" }]);
    const after = await rawCall(app, validator, `/proxy/v1/storefront/wishlist?${signedQuery(shop.domain, "123")}`);
    expect(after.status).toBe(200);
    expect(Number(after.headers.get("x-ratelimit-remaining-shopper"))).toBe(remaining - 2);
  });

  it("counts a private key's customer 0123 and 123 in one shopper bucket", async () => {
    const { secret } = await createShopWithKey();
    const read = (customerId: string) =>
      rawCall(app, validator, `/v1/storefront/wishlist?customerId=${customerId}`, {
        headers: { Authorization: `Bearer ${secret}` },
      });
    const first = await read("0123");
    expect(first.status).toBe(200);
    expect((await first.json()).owner).toEqual({ type: "customer", customerId: "123" });
    const second = await read("123");
    expect(Number(second.headers.get("x-ratelimit-remaining-shopper"))).toBe(
      Number(first.headers.get("x-ratelimit-remaining-shopper")) - 1,
    );
  });

  it.each(["12a", "-5", "+5", "1e3", " 5", "0x1F", "gid://shopify/Customer/5", "18446744073709551616", "1".repeat(21)])(
    "refuses a signed logged_in_customer_id that is no customer id (%j) with 401, not as a guest",
    async (customer) => {
      const { shop } = await createShopWithKey();
      const response = await rawCall(
        app,
        validator,
        `/proxy/v1/storefront/config?${signedQuery(shop.domain, customer)}`,
        { headers: { "Accept-Language": "en" } },
      );
      await expectProblem(response, 401, "unauthorized");
    },
  );

  it("answers a signed query whose shop is not a shop domain (a NUL byte, a path) with 401, never 500", async () => {
    for (const shop of ["a\u0000.myshopify.com", "../etc.myshopify.com", "", "évil.myshopify.com", "x".repeat(300)]) {
      const response = await rawCall(app, validator, `/proxy/v1/storefront/wishlist?${signedQuery(shop, "5")}`);
      await expectProblem(response, 401, "unauthorized");
    }
  });
});

describe("public key: X-Service-Shop must be a shop domain", () => {
  it.each(["not a domain", "a.myshopify.com/../b", "é.myshopify.com", "x".repeat(300)])(
    "X-Service-Shop %s -> 401 problem",
    async (domain) => {
      const { shop } = await createShopWithKey();
      const response = await rawCall(app, validator, `/v1/storefront/wishlist?aid=${randomUUID()}`, {
        headers: { "X-Service-Shop": domain, "X-Service-Public-Key": shop.publicKey },
      });
      await expectProblem(response, 401, "unauthorized");
    },
  );
});

/** The platform's app/uninstalled webhook for the shop (signed body, as the platform sends it). */
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
      "X-Shopify-Hmac-Sha256": createHmac("sha256", SECRET).update(body).digest("base64"),
    },
  });
  expect(response.status).toBe(200);
}

describe("an uninstalled shop is refused on every calling mode", () => {
  it("private key, public key and app proxy: 200 before app/uninstalled, 403 shop-uninstalled after", async () => {
    const { shop, secret } = await createShopWithKey();
    const aid = randomUUID();
    const calls = {
      private: () => rawCall(app, validator, "/v1/shop", { headers: { Authorization: `Bearer ${secret}` } }),
      privateStorefront: () =>
        rawCall(app, validator, "/v1/storefront/wishlist?customerId=5", {
          headers: { Authorization: `Bearer ${secret}` },
        }),
      public: () =>
        rawCall(app, validator, `/v1/storefront/wishlist?aid=${aid}`, {
          headers: { "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey },
        }),
      proxy: () => rawCall(app, validator, `/proxy/v1/storefront/wishlist?${signedQuery(shop.domain, "5")}`),
    };
    for (const call of Object.values(calls)) expect((await call()).status).toBe(200);

    await uninstall(shop.domain);

    for (const [mode, call] of Object.entries(calls)) {
      const response = await call();
      expect(response.status, mode).toBe(403);
      const problem = await response.json();
      expect(problem.type, mode).toBe(`${BASE_URL}/problems/shop-uninstalled`);
      expect(problem.detail, mode).toMatch(/uninstalled/);
    }
  });

  it("still refuses a wrong credential with 401 (the shop's state is not revealed)", async () => {
    const { shop } = await createShopWithKey();
    await uninstall(shop.domain);
    const response = await rawCall(app, validator, `/v1/storefront/wishlist?aid=${randomUUID()}`, {
      headers: { "X-Service-Shop": shop.domain, "X-Service-Public-Key": "svc_pk_wrong" },
    });
    await expectProblem(response, 401, "unauthorized");
  });
});
