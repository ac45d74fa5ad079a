import "@shopify/shopify-app-remix/adapters/node";
import { shopifyApi } from "@shopify/shopify-api";
import { redirect } from "@remix-run/node";
import { AppDistribution, BillingInterval, LogSeverity, shopifyApp } from "@shopify/shopify-app-remix/server";
import { getEnv } from "./env.server";
import { logger } from "./logger.server";
import { SHOPIFY_API_VERSION } from "./shopify-api-version";
import { routeShopOriginsToStandIn } from "./services/platform/stand-in-routing.server";
import { platformSessionStorage } from "./services/shops/platform-sessions.server";
import { ensureShop } from "./services/shops/shops.server";
import { PAID_PLANS } from "./services/plans/plans";

const env = getEnv();
routeShopOriginsToStandIn();

const credentials = {
  apiKey: env.SHOPIFY_API_KEY,
  apiSecretKey: env.SHOPIFY_API_SECRET,
  apiVersion: SHOPIFY_API_VERSION,
  scopes: env.SCOPES.split(",").map((scope) => scope.trim()),
  isEmbeddedApp: true,
  // The library logs every app proxy call at info level; keep warnings and errors, in our logger.
  logger: {
    level: LogSeverity.Warning,
    log: (severity: LogSeverity, message: string) => {
      if (severity <= LogSeverity.Error) logger.error({ source: "shopify" }, message);
      else logger.warn({ source: "shopify" }, message);
    },
  },
};

// The only shopifyApp(...) of the codebase: admin pages, OAuth and sessions.
const shopify = shopifyApp({
  ...credentials,
  appUrl: env.SHOPIFY_APP_URL,
  authPathPrefix: "/auth",
  sessionStorage: platformSessionStorage,
  distribution: AppDistribution.AppStore,
  future: { unstable_newEmbeddedAuthStrategy: true },
  // The paid plans as the platform bills them, by the name their subscriptions carry (app/services/plans/plans.ts).
  billing: Object.fromEntries(
    PAID_PLANS.map((plan) => [
      plan.name,
      {
        trialDays: plan.trialDays,
        lineItems: [{ amount: plan.monthlyPrice, currencyCode: "USD", interval: BillingInterval.Every30Days }],
      },
    ]),
  ),
  hooks: {
    afterAuth: async ({ session }) => {
      await ensureShop({ domain: session.shop });
    },
  },
});

/**
 * The platform library's verifiers with the same credentials, for the Fetch-native routes: the app proxy
 * signature (`utils.validateHmac` over the parameter set the caller then reads), shop domain checks
 * (`utils.sanitizeShop`) and platform webhook HMACs (`webhooks.validate`). Unlike `authenticate.*`, these
 * load no session and never throw on a malformed shop (docs/decisions/015-platform-callers.md).
 */
export const platformApi = shopifyApi({
  ...credentials,
  hostName: new URL(env.SHOPIFY_APP_URL).host,
  hostScheme: new URL(env.SHOPIFY_APP_URL).protocol === "http:" ? "http" : "https",
});

/**
 * A shop domain as the platform names shops (`<name>.myshopify.com`), lowercased; null for anything else
 * (a NUL byte, a path, an admin URL), so a malformed shop is a 4xx and never reaches the database.
 */
export function shopDomain(value: string | undefined | null): string | null {
  if (!value || value.length > 255) return null;
  const lowered = value.toLowerCase();
  return platformApi.utils.sanitizeShop(lowered) === lowered && !lowered.endsWith("/") ? lowered : null;
}

export const addDocumentResponseHeaders = shopify.addDocumentResponseHeaders;
/**
 * The platform library's `authenticate`, with two fixes to its embedded admin check:
 *  - a `host` parameter that looks like base64 but does not decode to a host name (`host=x`) makes the library
 *    throw (a 500), where any other invalid host sends the merchant to the login page. Such a host is sent
 *    there too;
 *  - the library takes any session token the platform signed with the app's secret for the app, and opens the
 *    admin of the shop its `dest` names. The platform signs the customer account page's tokens so too
 *    (docs/decisions/047-customer-account-session-tokens.md), and any logged-in customer holds one. A token
 *    the shop's admin did not issue (`issuedByAdmin`) is refused with 401.
 */
const authenticateAdmin: typeof shopify.authenticate.admin = async (request) => {
  const url = new URL(request.url);
  const host = url.searchParams.get("host");
  if (host !== null && !decodesToHost(host)) throw redirect("/auth/login");
  const tokens = [request.headers.get("authorization")?.replace(/^Bearer /, ""), url.searchParams.get("id_token")];
  if (tokens.some((token) => token && !issuedByAdmin(token))) throw new Response(null, { status: 401 });
  return shopify.authenticate.admin(request);
};

/**
 * Whether a session token says the shop's admin issued it: `iss` (the shop's admin, `https://<shop>/admin`) and
 * `dest` (`https://<shop>`) name the same host, the check the platform documents for admin session tokens, and
 * it names no customer. The customer account page's tokens (their claims as decision 047 lists them) have no
 * `iss`, and `sub` names the customer. Read, not verified: the library verifies the token next. Not a JWT at
 * all: left to the library, which refuses it as before.
 */
function issuedByAdmin(token: string): boolean {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"));
  } catch {
    return true;
  }
  if (typeof payload !== "object" || payload === null) return true;
  const { iss, dest, sub } = payload as { iss?: unknown; dest?: unknown; sub?: unknown };
  if (typeof iss !== "string" || typeof dest !== "string" || !URL.canParse(iss) || !URL.canParse(dest)) return false;
  if (typeof sub === "string" && sub.startsWith("gid://shopify/Customer/")) return false;
  return new URL(iss).host === new URL(dest).host;
}

function decodesToHost(host: string): boolean {
  try {
    platformApi.utils.sanitizeHost(host);
    return true;
  } catch {
    return false;
  }
}

export const authenticate = { ...shopify.authenticate, admin: authenticateAdmin };
/** Whether app subscriptions are asked for as test charges (BILLING_TEST_CHARGES; unset: all but production). */
export const billingTestCharges = () => env.BILLING_TEST_CHARGES ?? env.NODE_ENV !== "production";
export const login = shopify.login;
