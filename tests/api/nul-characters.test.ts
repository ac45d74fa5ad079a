import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createShopWithKey } from "../factories";
import { rawCall, signedProxyPath } from "../support/openapi-client";
import { countEvents, countLists } from "../support/wishlist-rows";
import { apiHarness } from "../support/harness";

/**
 * A NUL character (U+0000) is refused at the API edge, in every JSON body member (422 naming it) and every
 * path or query parameter (400 naming it), the same on both engines: PostgreSQL cannot store one in text,
 * so it used to reach the database and answer 500.
 */
const { app, validator } = await apiHarness();
const NUL = "\u0000";
const json = { "Content-Type": "application/json" };

async function setUp() {
  const { shop, secret } = await createShopWithKey();
  const publicHeaders = { "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey };
  const privateHeaders = { Authorization: `Bearer ${secret}` };
  const call =
    (headers: Record<string, string>) =>
    (path: string, method = "GET", body?: unknown) =>
      rawCall(app, validator, path, {
        method,
        headers: { ...headers, ...(body !== undefined ? json : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
  return { shop, publicCall: call(publicHeaders), privateCall: call(privateHeaders) };
}

async function expectBodyProblem(response: Response, pointers: string[]) {
  expect(response.status).toBe(422);
  const problem = (await response.json()) as { type: string; errors: Array<{ pointer: string; detail: string }> };
  expect(problem.type).toMatch(/\/problems\/validation-error$/);
  expect(problem.errors.map((error) => error.pointer)).toEqual(pointers);
  for (const error of problem.errors) expect(error.detail).toMatch(/NUL/);
}

async function expectParameterProblem(response: Response, parameter: string) {
  expect(response.status).toBe(400);
  const problem = (await response.json()) as { type: string; errors: Array<{ parameter: string; detail: string }> };
  expect(problem.type).toMatch(/\/problems\/invalid-parameter$/);
  expect(problem.errors).toEqual([{ parameter, detail: expect.stringMatching(/NUL/) }]);
}

describe("NUL characters", () => {
  it("are refused in storefront bodies sent with the public key, and nothing is written", async () => {
    const { shop, publicCall } = await setUp();
    const anonymousId = randomUUID();
    const item = { productId: "1", handle: "shirt", anonymousId };

    await expectBodyProblem(
      await publicCall("/v1/storefront/wishlist/toggle", "POST", { ...item, title: `a${NUL}b` }),
      ["#/title"],
    );
    await expectBodyProblem(await publicCall("/v1/storefront/wishlist/items", "POST", { ...item, handle: `x${NUL}` }), [
      "#/handle",
    ]);
    // Members the storefront ignores are checked too, in nested objects and arrays, names included.
    await expectBodyProblem(
      await publicCall("/v1/storefront/wishlist/items", "POST", {
        ...item,
        extra: { list: ["ok", `no${NUL}`], [`na${NUL}me`]: 1 },
      }),
      ["#/extra/list/1", "#/extra/na%00me"],
    );
    // However deep it lies.
    const deep = await rawCall(app, validator, "/v1/storefront/wishlist/items", {
      method: "POST",
      headers: { ...json, "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey },
      body: `${JSON.stringify(item).slice(0, -1)},"deep":${"[".repeat(50_000)}"\\u0000"${"]".repeat(50_000)}}`,
    });
    expect(deep.status).toBe(422);
    const [error] = ((await deep.json()) as { errors: Array<{ pointer: string }> }).errors;
    expect(error!.pointer).toBe(`#/deep${"/0".repeat(50_000)}`);
    await expectBodyProblem(
      await publicCall("/v1/storefront/wishlist/share", "POST", { anonymousId: `${anonymousId}${NUL}` }),
      ["#/anonymousId"],
    );
    expect(await countLists(shop.id)).toBe(0);
    expect(await countEvents(shop.id)).toBe(0);

    // The same save without the NUL works.
    const saved = await publicCall("/v1/storefront/wishlist/items", "POST", { ...item, title: "ab" });
    expect(saved.status).toBe(201);
  });

  it("are refused in path and query parameters, the public key's included", async () => {
    const { shop, publicCall, privateCall } = await setUp();
    await updateShopSettings({ shopId: shop.id, patch: { shareEnabled: true } });
    await expectParameterProblem(await publicCall("/v1/storefront/lists/abc%00def"), "shareToken");
    await expectParameterProblem(await publicCall("/v1/storefront/lists/%00"), "shareToken");
    await expectParameterProblem(await publicCall(`/v1/storefront/wishlist?aid=${randomUUID()}%00`), "aid");
    await expectParameterProblem(await privateCall("/v1/lists?cursor=%00"), "cursor");
    await expectParameterProblem(await privateCall("/v1/lists?x%00y=1"), "x\u0000y");
    await expectParameterProblem(await privateCall("/v1/webhooks/whe_1%00/deliveries"), "id");
    // A parameter the operation does not read is refused too.
    await expectParameterProblem(await privateCall("/v1/shop?note=%00"), "note");
    // Unknown tokens are still a 404, not a 400.
    expect((await publicCall("/v1/storefront/lists/nosuchtoken")).status).toBe(404);
  });

  it("are refused in private bodies (keys, webhooks, settings, imports), and nothing is written", async () => {
    const { shop, privateCall } = await setUp();
    await expectBodyProblem(await privateCall("/v1/keys", "POST", { label: `my${NUL}key` }), ["#/label"]);
    await expectBodyProblem(
      await privateCall("/v1/webhooks", "POST", { url: `https://receiver.example/${NUL}`, events: ["item.added"] }),
      ["#/url"],
    );
    await expectBodyProblem(
      await privateCall("/v1/shop/settings", "PATCH", { strings: { en: { add: `Save${NUL}` } } }),
      ["#/strings/en/add"],
    );
    await expectBodyProblem(await privateCall("/v1/shop/settings", "PATCH", { sharePath: `/pages/${NUL}` }), [
      "#/sharePath",
    ]);
    await expectBodyProblem(
      await privateCall("/v1/imports/upload", "POST", { filename: `a${NUL}.csv`, contentType: "text/csv" }),
      ["#/filename"],
    );
    const keys = await database().selectFrom("ApiKey").select("label").where("shopId", "=", shop.id).execute();
    expect(keys).toEqual([{ label: "test key" }]);
    const endpoints = await database()
      .selectFrom("WebhookEndpoint")
      .select("id")
      .where("shopId", "=", shop.id)
      .execute();
    expect(endpoints).toEqual([]);
    const uploads = await database().selectFrom("Upload").select("id").where("shopId", "=", shop.id).execute();
    expect(uploads).toEqual([]);
    const stored = await database()
      .selectFrom("Shop")
      .select("settings")
      .where("id", "=", shop.id)
      .executeTakeFirstOrThrow();
    expect(stored.settings).not.toContain("\\u0000");
  });

  it("are refused on app proxy calls as on the others", async () => {
    const { shop } = await setUp();
    const path = signedProxyPath("/proxy/v1/storefront/wishlist/toggle", {
      shop: shop.domain,
      logged_in_customer_id: "42",
    });
    const response = await rawCall(app, validator, path, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ productId: "1", handle: "shirt", title: `t${NUL}` }),
    });
    await expectBodyProblem(response, ["#/title"]);
    expect(await countLists(shop.id)).toBe(0);
  });
});
