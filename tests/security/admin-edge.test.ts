import { Session } from "@shopify/shopify-api";
import { describe, expect, it } from "vitest";
import { getEnv } from "~/env.server";
import { platformSessionStorage } from "~/services/shops/platform-sessions.server";
import { adminHost } from "../../stand-in/session-token";
import { createShop } from "../factories";
import { BASE_URL, createTestApp } from "../support/http";

const app = await createTestApp();
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";

/** A shop installed on the platform: its offline session is stored, as after OAuth. */
async function installedShop() {
  const shop = await createShop();
  const session = new Session({ id: `offline_${shop.domain}`, shop: shop.domain, state: "", isOnline: false });
  session.scope = getEnv().SCOPES;
  session.accessToken = `shpat_${shop.id}`;
  await platformSessionStorage.storeSession(session);
  return shop;
}

/**
 * The embedded admin's edge (issue 25, finding 5): requests a merchant's browser or another site can send
 * to the pages without a valid session token end in a 4xx or the login page, never a 500.
 */
describe("the admin pages given a request the platform's admin never sends", () => {
  it.each(["x", "abc", "=", "%%%"])(
    "send a document request whose host is %s (not a base64 admin host) to the login page",
    async (host) => {
      const shop = await installedShop();
      const query = new URLSearchParams({ embedded: "1", shop: shop.domain, host });
      const response = await app.fetch(
        new Request(`${BASE_URL}/app?${query}`, { headers: { "user-agent": BROWSER }, redirect: "manual" }),
      );
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/auth/login");
    },
  );

  it("still take a well-formed host to the session token bounce page, as before", async () => {
    const shop = await installedShop();
    const query = new URLSearchParams({ embedded: "1", shop: shop.domain, host: adminHost(shop.domain) });
    const response = await app.fetch(
      new Request(`${BASE_URL}/app?${query}`, { headers: { "user-agent": BROWSER }, redirect: "manual" }),
    );
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/^\/auth\/session-token\?/);
  });

  it.each([
    ["another site", "https://evil.example", "localhost:3000"],
    ["an opaque origin", "null", "localhost:3000"],
    ["an origin that is not a URL", "not a url", "localhost:3000"],
    ["no host to compare with", "https://evil.example", undefined],
  ])("refuse a page form post from %s without a session token with a 403 problem", async (_, origin, host) => {
    for (const path of ["/app/keys", "/app/keys.data", "/app/webhooks?index", "/app"]) {
      const headers = new Headers({
        "user-agent": BROWSER,
        origin,
        "content-type": "application/x-www-form-urlencoded",
      });
      if (host) headers.set("host", host);
      const response = await app.fetch(
        new Request(`${BASE_URL}${path}`, { method: "POST", headers, body: "intent=create&label=x" }),
      );
      expect(response.status, path).toBe(403);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(((await response.json()) as { type: string }).type).toBe(`${BASE_URL}/problems/forbidden`);
    }
  });

  it("let a form post from the app's own origin through to the page, which asks for a session token", async () => {
    const response = await app.fetch(
      new Request(`${BASE_URL}/app/keys`, {
        method: "POST",
        headers: {
          "user-agent": BROWSER,
          origin: BASE_URL,
          host: new URL(BASE_URL).host,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "intent=create&label=x",
        redirect: "manual",
      }),
    );
    expect(response.status).toBeGreaterThanOrEqual(300);
    expect(response.status).toBeLessThan(500);
  });
});
