/**
 * Each credential's use, as the admin's API keys page shows it (issue 31): requests in the last 24 hours and the
 * last 429, counted by the rate limiter for the credential that made the call, per shop.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { forgetShopRateLimits } from "~/lib/rate-limit-keys.server";
import { createApiKey, MAX_ACTIVE_KEYS_PER_SHOP } from "~/services/keys/api-keys.server";
import { readKeyUsage, recordKeyUse } from "~/services/keys/key-usage.server";
import { createShopWithKey } from "../factories";
import { apiHarness } from "../support/harness";
import { until } from "../support/poll";

// The storefront limit as shipped (60 a minute per shopper), whatever the environment says.
delete process.env.RATE_LIMIT_STOREFRONT_PER_MINUTE;

const { callsOf } = await apiHarness();

/** Polls until the credential's usage matches (the count is written after the answer, never awaited). */
async function usageOf(shopId: string, credentialId: string, expected: number) {
  return until(
    async () => (await readKeyUsage({ shopId, credentialIds: [credentialId] }))!.get(credentialId)!,
    (usage) => usage.requests24h === expected,
    `${expected} requests counted for ${credentialId}`,
  );
}

describe("a credential's use", () => {
  it("counts each private key's calls apart, within its shop only", async () => {
    const { shop, secret, key } = await createShopWithKey();
    const second = await createApiKey({ shopId: shop.id, label: "second" });
    const first = callsOf({ shop, secret });
    const other = callsOf({ shop, secret: second.secret });
    for (let index = 0; index < 5; index++) expect((await first.privateCall("/shop")).status).toBe(200);
    expect((await other.privateCall("/keys")).status).toBe(200);

    expect(await usageOf(shop.id, key.id, 5)).toEqual({ requests24h: 5, lastRateLimitedAt: null });
    expect(await usageOf(shop.id, second.key.id, 1)).toEqual({ requests24h: 1, lastRateLimitedAt: null });
    // Another shop asking for this key's id reads nothing of it.
    const { shop: stranger } = await createShopWithKey();
    const read = await readKeyUsage({ shopId: stranger.id, credentialIds: [key.id] });
    expect(read!.get(key.id)).toEqual({ requests24h: 0, lastRateLimitedAt: null });
    // Refused before the limiter (a wrong key): counted for no one.
    const wrong = callsOf({ shop, secret: `${secret}x` });
    expect((await wrong.privateCall("/shop")).status).toBe(401);
    expect(await usageOf(shop.id, key.id, 5)).toEqual({ requests24h: 5, lastRateLimitedAt: null });
  });

  it("counts the public key's refused calls too, and remembers the last 429", async () => {
    const { shop, secret } = await createShopWithKey();
    const { publicCall } = callsOf({ shop, secret });
    const aid = randomUUID();
    const before = Date.now();
    for (let index = 0; index < 60; index++) {
      expect((await publicCall(`/storefront/wishlist?aid=${aid}`)).status).toBe(200);
    }
    expect((await usageOf(shop.id, "public", 60)).lastRateLimitedAt).toBeNull();
    expect((await publicCall(`/storefront/wishlist?aid=${aid}`)).status).toBe(429);
    // The refusal is remembered by a write of its own, after the count: wait for both.
    const usage = await until(
      async () => (await readKeyUsage({ shopId: shop.id, credentialIds: ["public"] }))!.get("public")!,
      (read) => read.requests24h === 61 && read.lastRateLimitedAt !== null,
      "61 requests and the refusal counted",
    );
    const limitedAt = Date.parse(usage.lastRateLimitedAt!);
    expect(limitedAt).toBeGreaterThanOrEqual(before);
    expect(limitedAt).toBeLessThanOrEqual(Date.now());
  });

  it("reads the current hour and the 23 before it, and forgets a shop's figures with its rate limits", async () => {
    const { shop } = await createShopWithKey();
    const now = Date.now();
    const hour = 3_600_000;
    recordKeyUse({ shopId: shop.id, credentialId: "public" }, now - 23 * hour);
    recordKeyUse({ shopId: shop.id, credentialId: "public" }, now - 24 * hour);
    recordKeyUse({ shopId: shop.id, credentialId: "public" }, now);
    // The 24-hours-old one falls outside; the one 23 hours old and the one now are read.
    expect(await usageOf(shop.id, "public", 2)).toEqual({ requests24h: 2, lastRateLimitedAt: null });

    expect(await forgetShopRateLimits(shop.id)).toBeGreaterThanOrEqual(3);
    expect(await usageOf(shop.id, "public", 0)).toEqual({ requests24h: 0, lastRateLimitedAt: null });
  });
});

describe("the number of keys whose use is read", () => {
  it("is bounded: a shop holds at most 50 active keys, even created in parallel, and revoking one makes room", async () => {
    // GIVEN a shop with a few keys short of the bound (a private key can create keys: a leaked one, say)
    const { shop, secret } = await createShopWithKey();
    const { privateCall } = callsOf({ shop, secret });
    expect(MAX_ACTIVE_KEYS_PER_SHOP).toBe(50);
    for (let count = 1; count < MAX_ACTIVE_KEYS_PER_SHOP - 3; count++)
      await createApiKey({ shopId: shop.id, label: "k" });

    // WHEN it asks for 8 more at once
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => privateCall("/keys", { method: "POST", body: { label: "more" } })),
    );

    // THEN 3 are created and 5 refused, 409 conflict, saying why
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
    const refused = (await answers.find((answer) => answer.status === 409)!.json()) as { type: string; detail: string };
    expect(refused.type).toMatch(/\/problems\/conflict$/);
    expect(refused.detail).toMatch(/at most 50 active API keys/);
    const keys = (await (await privateCall("/keys")).json()) as Array<{ id: string; revokedAt: string | null }>;
    expect(keys).toHaveLength(MAX_ACTIVE_KEYS_PER_SHOP);

    // AND a revoked key makes room for one more
    expect((await privateCall(`/keys/${keys.at(-2)!.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await privateCall("/keys", { method: "POST", body: { label: "after" } })).status).toBe(201);
    expect((await privateCall("/keys", { method: "POST", body: { label: "over" } })).status).toBe(409);
  });
});
