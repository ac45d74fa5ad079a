import { createHmac } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { prisma } from "~/db.server";
import { parseEnv } from "~/env.server";
import { SHOPIFY_API_VERSION } from "~/shopify-api-version";
import { ROOT } from "../scripts/lib/databases";
import { createShop } from "./factories";
import { BASE_URL, createTestApp } from "./support/http";

const app = await createTestApp();
const toml = parse(readFileSync(path.join(ROOT, "shopify.app.toml"), "utf8")) as {
  webhooks: {
    api_version: string;
    subscriptions: Array<{ topics?: string[]; compliance_topics?: string[]; uri: string }>;
  };
  app_proxy: { url: string; prefix: string; subpath: string };
  access_scopes: { scopes: string };
};

/** The platform's webhook signature, written independently of the platform library. */
function platformWebhook(topic: string, shop: string, body: string, secret = "local-dev-api-secret") {
  return {
    method: "POST",
    body,
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": topic,
      "X-Shopify-Shop-Domain": shop,
      "X-Shopify-API-Version": SHOPIFY_API_VERSION,
      "X-Shopify-Webhook-Id": `wh-${Math.random().toString(36).slice(2)}`,
      "X-Shopify-Hmac-Sha256": createHmac("sha256", secret).update(body).digest("base64"),
    },
  };
}

describe("platform configuration", () => {
  it("uses one Admin API version in code and in shopify.app.toml", () => {
    expect(toml.webhooks.api_version).toBe(SHOPIFY_API_VERSION);
  });

  it("declares the app proxy so signed calls arrive at /proxy/v1/storefront/...", () => {
    expect(toml.app_proxy.prefix).toBe("apps");
    expect(toml.app_proxy.subpath).toBe("service");
    expect(new URL(toml.app_proxy.url).pathname).toBe("/proxy");
  });

  it("requests the same scopes as the app's default configuration", () => {
    expect(toml.access_scopes.scopes).toBe(parseEnv({}).SCOPES);
  });

  it("subscribes app/uninstalled and the three compliance topics, each to a route that exists", () => {
    const topics = toml.webhooks.subscriptions.flatMap((sub) => [
      ...(sub.topics ?? []),
      ...(sub.compliance_topics ?? []),
    ]);
    expect(topics.sort()).toEqual(["app/uninstalled", "customers/data_request", "customers/redact", "shop/redact"]);
    for (const { uri } of toml.webhooks.subscriptions) {
      const routeFile = path.join(ROOT, "app/routes", `${uri.slice(1).replaceAll("/", ".")}.tsx`);
      expect(existsSync(routeFile), routeFile).toBe(true);
    }
  });

  it("has a theme app extension", () => {
    const extension = parse(readFileSync(path.join(ROOT, "extensions/wishlist-theme/shopify.extension.toml"), "utf8"));
    expect(extension.type).toBe("theme");
  });
});

describe("platform webhooks", () => {
  it("app/uninstalled with a valid HMAC: 200, sessions removed, shop marked uninstalled", async () => {
    const shop = await createShop();
    await prisma.session.create({
      data: { id: `offline_${shop.domain}`, shop: shop.domain, state: "s", accessToken: "shpat_test" },
    });
    const response = await app.request(
      `${BASE_URL}/webhooks/app/uninstalled`,
      platformWebhook("app/uninstalled", shop.domain, JSON.stringify({ id: 1 })),
    );
    expect(response.status).toBe(200);
    expect(await prisma.session.count({ where: { shop: shop.domain } })).toBe(0);
    expect((await prisma.shop.findUniqueOrThrow({ where: { id: shop.id } })).uninstalledAt).toBeInstanceOf(Date);
  });

  it("refuses a tampered body or a wrong secret with 401 and changes nothing", async () => {
    const shop = await createShop();
    const signed = platformWebhook("app/uninstalled", shop.domain, JSON.stringify({ id: 1 }));
    const tampered = await app.request(`${BASE_URL}/webhooks/app/uninstalled`, { ...signed, body: '{"id":2}' });
    expect(tampered.status).toBe(401);
    const wrongSecret = await app.request(
      `${BASE_URL}/webhooks/app/uninstalled`,
      platformWebhook("app/uninstalled", shop.domain, "{}", "not-the-secret"),
    );
    expect(wrongSecret.status).toBe(401);
    expect((await prisma.shop.findUniqueOrThrow({ where: { id: shop.id } })).uninstalledAt).toBeNull();
  });

  it.each(["customers/data_request", "customers/redact", "shop/redact"])(
    "compliance topic %s: 200 when signed, 401 when not",
    async (topic) => {
      const url = `${BASE_URL}/webhooks/${topic}`;
      const body = JSON.stringify({ shop_domain: "a.myshopify.com" });
      expect((await app.request(url, platformWebhook(topic, "a.myshopify.com", body))).status).toBe(200);
      expect((await app.request(url, platformWebhook(topic, "a.myshopify.com", body, "wrong"))).status).toBe(401);
    },
  );
});
