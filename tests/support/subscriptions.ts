import { randomUUID } from "node:crypto";
import { afterAll } from "vitest";
import type { AppSubscriptionStatus } from "../../stand-in/billing";
import { demoShopData, type StandInShop } from "../../stand-in/demo-data";
import { connectToPlatform } from "../services/transfers/helpers";
import { startTestPlatform } from "./platform-stand-in";

/**
 * The platform's side of the tests' app subscriptions: a platform stand-in holding each shop's subscriptions,
 * which the app asks before it believes an ACTIVE webhook (app/services/plans/billing.server.ts,
 * docs/decisions/062-plans-and-billing.md). `says` records a subscription's state on the platform, as the
 * platform's own change does before it sends the webhook. Call at the top of a test file, after its env.
 */
export async function useSubscriptionPlatform() {
  const platform = await startTestPlatform("http://127.0.0.1:9");
  afterAll(() => platform.close());
  const says = (domain: string, subscription: PlatformSubscription) => platformSays(platform, domain, subscription);
  const latest = new Map<string, number>();
  return {
    platform,
    says,
    /**
     * The platform's state follows a webhook body about to be sent, as the platform's own change came first: a
     * subscription's latest change (by `updated_at`) is its state, and a body signed before one already sent
     * is a late delivery that changes nothing. Not for a body sent under another shop's header (an attack):
     * that shop's platform never had the subscription.
     */
    async follow(domain: string, body: string) {
      let named: { admin_graphql_api_id?: unknown; name?: unknown; status?: unknown; updated_at?: unknown };
      try {
        named = (JSON.parse(body) as { app_subscription?: typeof named }).app_subscription ?? {};
      } catch {
        return;
      }
      const { admin_graphql_api_id: id, name, status, updated_at: updatedAt } = named;
      if (typeof id !== "string" || typeof name !== "string" || typeof status !== "string") return;
      const at = typeof updatedAt === "string" ? Date.parse(updatedAt) : Date.now();
      const key = `${domain} ${id}`;
      if ((latest.get(key) ?? Number.NEGATIVE_INFINITY) > at) return;
      latest.set(key, at);
      await says(domain, { id, name, status: status as AppSubscriptionStatus });
    },
  };
}

type StandIn = Awaited<ReturnType<typeof startTestPlatform>>;
export type PlatformSubscription = { id: string; name: string; status: AppSubscriptionStatus };

/**
 * The shop's platform holds the subscription (`gid://shopify/AppSubscription/<n>`) in this state; a shop the
 * stand-in does not know yet is connected to it (an offline session, a token of its own).
 */
export async function platformSays(platform: StandIn, domain: string, subscription: PlatformSubscription) {
  const shop = await standInShop(platform, domain);
  const id = subscription.id.replace("gid://shopify/AppSubscription/", "");
  const now = Date.now();
  const periodEnd = subscription.status === "ACTIVE" ? now + 30 * 86_400_000 : null;
  shop.appSubscriptions ??= [];
  const held = shop.appSubscriptions.find((candidate) => candidate.id === id);
  if (held) {
    Object.assign(held, { name: subscription.name, status: subscription.status, updatedAt: now });
    held.currentPeriodEnd = periodEnd;
    return;
  }
  shop.appSubscriptions.push({
    id,
    name: subscription.name,
    status: subscription.status,
    test: true,
    trialDays: 0,
    returnUrl: "https://admin.shopify.com/store/test/apps/wishlist-service/plan",
    replacementBehavior: "STANDARD",
    price: { amount: "9.99", currencyCode: "USD" },
    interval: "EVERY_30_DAYS",
    createdAt: now,
    updatedAt: now,
    currentPeriodEnd: periodEnd,
  });
}

async function standInShop(platform: StandIn, domain: string): Promise<StandInShop> {
  const known = platform.shops.find((shop) => shop.domain === domain);
  if (known) return known;
  const accessToken = `shpat_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  await connectToPlatform(domain, accessToken);
  const shop = demoShopData({ domain, accessToken });
  platform.shops.push(shop);
  return shop;
}
