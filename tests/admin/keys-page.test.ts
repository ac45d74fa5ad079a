/**
 * The admin's API keys page without a browser (issue 31): its loader called with the request the embedded admin
 * sends, against the real database and Redis. The use it reads from Redis is bounded by the shop's active keys,
 * whatever the number of keys revoked: a holder of a private key can create and revoke keys at will.
 */
import type { LoaderFunctionArgs } from "@remix-run/node";
import { Session } from "@shopify/shopify-api";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { signSessionToken } from "../../stand-in/session-token";
import { until } from "../support/poll";

const { getEnv } = await import("~/env.server");
const { getRateLimitRedis, whenRedisReady } = await import("~/redis.server");
const { platformSessionStorage } = await import("~/services/shops/platform-sessions.server");
const { createApiKey, revokeApiKey } = await import("~/services/keys/api-keys.server");
const { readKeyUsage, recordKeyUse } = await import("~/services/keys/key-usage.server");
const keysRoute = await import("~/routes/app.keys");
const { createShop } = await import("../factories");

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";

async function installedShop() {
  const shop = await createShop();
  const session = new Session({ id: `offline_${shop.domain}`, shop: shop.domain, state: "", isOnline: false });
  session.scope = getEnv().SCOPES;
  session.accessToken = `shpat_${shop.id}`;
  await platformSessionStorage.storeSession(session);
  return shop;
}

/** The page's data, as the admin loads it. */
async function load(shop: { domain: string }) {
  const token = await signSessionToken({
    shopDomain: shop.domain,
    apiKey: getEnv().SHOPIFY_API_KEY,
    apiSecret: getEnv().SHOPIFY_API_SECRET,
  });
  const request = new Request(`${getEnv().SHOPIFY_APP_URL}/app/keys`, {
    headers: { authorization: `Bearer ${token}`, "user-agent": BROWSER },
  });
  return keysRoute.loader({ request, params: {}, context: {} } as LoaderFunctionArgs);
}

/** The names of every MGET Redis runs while `work` runs that reads a key of this shop (Redis's own MONITOR). */
async function mgetNamesDuring(shopId: string, work: () => Promise<unknown>): Promise<string[]> {
  const watcher = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const monitor = await watcher.monitor();
  const names: string[] = [];
  monitor.on("monitor", (_time: string, args: string[]) => {
    if (args[0]?.toLowerCase() === "mget" && args.some((name) => name.includes(shopId))) names.push(...args.slice(1));
  });
  try {
    await work();
    // MONITOR reports a command once Redis has run it: by the next PING's answer on another connection it is in.
    await watcher.duplicate().ping();
    return names;
  } finally {
    monitor.disconnect();
    watcher.disconnect();
  }
}

describe("the API keys page", () => {
  it("reads the use of its active keys only: revoked keys, however many, cost Redis nothing", async () => {
    // GIVEN a shop with two active keys, one used, and 40 revoked keys that had been used before (counted as the
    // rate limiter counts, on its connection once it is up)
    await whenRedisReady(getRateLimitRedis(), 30_000);
    const shop = await installedShop();
    const used = await createApiKey({ shopId: shop.id, label: "used" });
    const idle = await createApiKey({ shopId: shop.id, label: "idle" });
    const revoked: string[] = [];
    for (let index = 0; index < 40; index++) {
      const { key } = await createApiKey({ shopId: shop.id, label: `old ${index}` });
      recordKeyUse({ shopId: shop.id, credentialId: key.id });
      await revokeApiKey({ shopId: shop.id, keyId: key.id });
      revoked.push(key.id);
    }
    for (let index = 0; index < 3; index++) recordKeyUse({ shopId: shop.id, credentialId: used.key.id });
    await until(
      async () => (await readKeyUsage({ shopId: shop.id, credentialIds: [used.key.id] }))!.get(used.key.id)!,
      (usage) => usage.requests24h === 3,
      "the used key's 3 requests counted",
    );

    // WHEN the page loads
    let data: Awaited<ReturnType<typeof load>> | undefined;
    const names = await mgetNamesDuring(shop.id, async () => (data = await load(shop)));

    // THEN the active keys show their use, the revoked ones none
    const usageOf = (id: string) => data!.keys.find((key) => key.id === id)!.usage;
    expect(usageOf(used.key.id)).toEqual({ requests24h: 3, lastRateLimitedAt: null });
    expect(usageOf(idle.key.id)).toEqual({ requests24h: 0, lastRateLimitedAt: null });
    expect(revoked.map(usageOf)).toEqual(revoked.map(() => null));
    // AND Redis is asked for the public key's and the two active keys' counters: 24 hours and the last 429 each
    expect(names).toHaveLength(3 * 25);
    expect(revoked.filter((id) => names.some((name) => name.includes(id)))).toEqual([]);
  });
});
