import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getEnv, parseEnv } from "~/env.server";
import { createShopWithKey } from "../factories";
import { countItems } from "../support/wishlist-rows";
import { apiHarness } from "../support/harness";

// The storefront limit as shipped: nothing in this file (nor in tests/setup) sets RATE_LIMIT_*, so the app
// runs with the default of 60 requests a minute per shopper (docs/openapi.json, .env.example).
delete process.env.RATE_LIMIT_STOREFRONT_PER_MINUTE;

const { callsOf } = await apiHarness();

async function shopper() {
  const { shop, secret } = await createShopWithKey();
  const aid = randomUUID();
  const { publicCall } = callsOf({ shop, secret });
  const wishlist = (anonymousId = aid) => publicCall(`/storefront/wishlist?aid=${anonymousId}`);
  const toggle = (productId: string) =>
    publicCall("/storefront/wishlist/toggle", {
      method: "POST",
      body: { productId, handle: `p${productId}`, anonymousId: aid },
    });
  return { shop, aid, wishlist, toggle };
}

describe("the storefront limit on real storefront routes: 60 a minute per shopper", () => {
  it("is 60 by default, in the configuration the web process reads", () => {
    expect(process.env.RATE_LIMIT_STOREFRONT_PER_MINUTE).toBeUndefined();
    expect(getEnv().RATE_LIMIT_STOREFRONT_PER_MINUTE).toBe(60);
    expect(parseEnv({}).RATE_LIMIT_STOREFRONT_PER_MINUTE).toBe(60);
  });

  it("answers the 61st call of a minute, across routes, with 429, Retry-After and the shopper headers", async () => {
    const { wishlist, toggle } = await shopper();
    const remaining: string[] = [];
    for (let index = 0; index < 60; index++) {
      const response = index % 2 === 0 ? await wishlist() : await toggle(String(index));
      expect(response.status, `call ${index + 1}`).toBe(200);
      expect(response.headers.get("x-ratelimit-limit-shopper")).toBe("60");
      remaining.push(response.headers.get("x-ratelimit-remaining-shopper")!);
    }
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, index) => String(59 - index)));

    for (const over of [await toggle("999"), await wishlist()]) {
      expect(over.status).toBe(429);
      expect(over.headers.get("content-type")).toBe("application/problem+json");
      const retryAfter = Number(over.headers.get("retry-after"));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(over.headers.get("x-ratelimit-limit-shopper")).toBe("60");
      expect(over.headers.get("x-ratelimit-remaining-shopper")).toBe("0");
      expect(Number(over.headers.get("x-ratelimit-reset-shopper"))).toBeLessThanOrEqual(60);
      expect(await over.json()).toMatchObject({
        type: "http://localhost:3000/problems/rate-limited",
        status: 429,
        bucket: "shopper",
      });
    }
  });

  it("leaves a refused call without effect, and another shopper of the shop its own 60", async () => {
    const { shop, wishlist, toggle } = await shopper();
    for (let index = 0; index < 60; index++) expect((await wishlist()).status).toBe(200);
    expect((await toggle("1")).status).toBe(429);
    expect(await countItems(shop.id)).toBe(0);
    const other = await wishlist(randomUUID());
    expect(other.status).toBe(200);
    expect(other.headers.get("x-ratelimit-remaining-shopper")).toBe("59");
  });
});
