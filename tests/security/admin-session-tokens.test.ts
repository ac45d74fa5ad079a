/**
 * The admin takes the admin's session tokens only. The platform signs every session token of the app with the
 * app's secret, those it gives the customer account page too (docs/decisions/047-customer-account-session-tokens.md):
 * any logged-in customer can hold one. The platform library's admin check verifies the signature and the
 * audience, then loads the shop's offline session from `dest`: handed a customer's token, it either fails on a
 * `dest` that is no URL (a 500) or, with `dest` an origin, opens the admin as the shop's merchant. Through the
 * web process's app (the Remix build), the shop's offline session stored as an install stores it.
 */
import { Session } from "@shopify/shopify-api";
import { describe, expect, it } from "vitest";
import { getEnv } from "~/env.server";
import { platformSessionStorage } from "~/services/shops/platform-sessions.server";
import { signCustomerAccountToken } from "../../stand-in/customer-account-token";
import { adminHost, signSessionToken } from "../../stand-in/session-token";
import { createShop } from "../factories";
import { createTestApp, BASE_URL } from "../support/http";

const app = await createTestApp();
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
const { apiKey, apiSecret } = { apiKey: getEnv().SHOPIFY_API_KEY, apiSecret: getEnv().SHOPIFY_API_SECRET };

const shop = await createShop();
const session = new Session({ id: `offline_${shop.domain}`, shop: shop.domain, state: "", isOnline: false });
session.scope = getEnv().SCOPES;
session.accessToken = `shpat_${shop.id}`;
await platformSessionStorage.storeSession(session);

/** The API keys page's data, as the embedded admin fetches it (`Authorization: Bearer <session token>`). */
const keysData = (token: string) =>
  app.request(`${BASE_URL}/app/keys?_data=routes%2Fapp.keys`, {
    headers: { Authorization: `Bearer ${token}`, "User-Agent": BROWSER },
  });

/** The API keys page as the admin opens it in its frame (the token as `id_token`). */
const keysPage = (token: string) =>
  app.request(
    `${BASE_URL}/app/keys?${new URLSearchParams({ embedded: "1", shop: shop.domain, host: adminHost(shop.domain), id_token: token })}`,
    { headers: { "User-Agent": BROWSER, Accept: "text/html" } },
  );

const customerToken = (dest: string) =>
  signCustomerAccountToken({ shopDomain: shop.domain, apiKey, apiSecret, customerId: "7001", overrides: { dest } });

describe("the admin and session tokens that are not the admin's", () => {
  it("opens for the admin's session token (the control)", async () => {
    const token = await signSessionToken({ shopDomain: shop.domain, apiKey, apiSecret });
    expect((await keysData(token)).status).toBe(200);
    expect((await keysPage(token)).status).toBe(200);
  });

  it.each([
    ["its dest the shop's domain, as the platform writes it", shop.domain],
    ["its dest the shop's origin, as admin tokens write it", `https://${shop.domain}`],
  ])("refuses a customer account session token, %s: 401, never the shop's data nor a 500", async (_case, dest) => {
    const token = await customerToken(dest);
    const data = await keysData(token);
    expect(data.status).toBe(401);
    expect(await data.text()).not.toContain("svc_");
    expect((await keysPage(token)).status).toBe(401);
  });

  it("refuses a customer account session token that also names an admin issuer", async () => {
    const withIssuer = await signCustomerAccountToken({
      shopDomain: shop.domain,
      apiKey,
      apiSecret,
      customerId: "7001",
      overrides: { dest: `https://${shop.domain}`, iss: `https://${shop.domain}/admin` },
    });
    expect((await keysData(withIssuer)).status).toBe(401);
  });

  it("refuses a customer account session token without a customer (no sub)", async () => {
    const token = await signCustomerAccountToken({
      shopDomain: shop.domain,
      apiKey,
      apiSecret,
      customerId: null,
      overrides: { dest: `https://${shop.domain}` },
    });
    expect((await keysData(token)).status).toBe(401);
  });
});
