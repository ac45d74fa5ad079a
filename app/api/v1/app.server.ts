import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AppError } from "~/lib/problems";
import { isDeclaredHeadlessOrigin } from "~/services/shops/shops.server";
import { presentsSessionToken } from "./auth.server";
import type { V1Env } from "./context";
import { allowedMethods, concretePathsFirst, methodNotAllowed } from "./route.server";
import { registerAnalyticsRoutes } from "./routes/analytics.server";
import { registerConversionRoutes } from "./routes/conversions.server";
import { registerKeyRoutes } from "./routes/keys.server";
import { registerListRoutes } from "./routes/lists.server";
import { registerShopRoutes } from "./routes/shop.server";
import { registerStorefrontListRoutes } from "./routes/storefront-lists.server";
import { registerStorefrontRoutes } from "./routes/storefront.server";
import { registerTransferRoutes } from "./routes/transfers.server";
import { registerComplianceRoutes } from "./routes/privacy.server";
import { registerWebhookRoutes } from "./routes/webhooks.server";
import { WEBHOOK_EVENTS } from "./schemas";
import { bodyProblem, parameterProblem } from "./validation-problems.server";

const CORS_ALLOW_HEADERS = "Content-Type, X-Service-Shop, X-Service-Public-Key, Idempotency-Key, X-Request-Id";
/** Every response header the storefront operations document (tests/api/cors.test.ts checks them all). */
const CORS_EXPOSE_HEADERS = [
  "X-Request-Id",
  "Retry-After",
  "Idempotent-Replayed",
  "RateLimit",
  "RateLimit-Policy",
  "X-RateLimit-Limit-Shopper",
  "X-RateLimit-Remaining-Shopper",
  "X-RateLimit-Reset-Shopper",
  "X-RateLimit-Limit-Address",
  "X-RateLimit-Remaining-Address",
  "X-RateLimit-Reset-Address",
  "Deprecation",
  "Sunset",
].join(", ");

/**
 * The customer account extension's calls (docs/decisions/047-customer-account-session-tokens.md): it runs in
 * the platform's sandbox, whose origin the platform does not promise, so every origin is granted, as the
 * platform library's `authenticate.public.customerAccount` grants it (`Access-Control-Allow-Origin: *`). The
 * credential is a bearer token the extension attaches itself, never one a browser sends on its own, so the
 * grant gives a page nothing it could not do without a browser.
 */
const SESSION_TOKEN_ALLOW_HEADERS = "Authorization, Content-Type, Idempotency-Key, X-Request-Id";
const SESSION_TOKEN_MAX_AGE = "7200";

/** A preflight for a call that will present a bearer token (the Authorization header among those it asks for). */
function asksForAuthorization(requestHeaders: string | undefined): boolean {
  return (requestHeaders ?? "").split(",").some((name) => name.trim().toLowerCase() === "authorization");
}

/** Only the storefront operations take session tokens; the private ones stay without a grant. */
const takesSessionTokens = (path: string) => /^\/v1\/storefront\//.test(path);

/** The /v1 API; mounted at /v1 and, for the platform's app proxy, at /proxy/v1. */
export function createV1App(onError: (error: unknown, c: Context) => Response) {
  const app = new OpenAPIHono<V1Env>({
    // zod failures become our problems: body -> 422 with pointers, parameters -> 400.
    defaultHook: (result) => {
      if (result.success) return;
      throw result.target === "json" ? bodyProblem(result.error.issues) : parameterProblem(result.error.issues);
    },
  });

  // CORS preflight: it names no shop, so it is granted to an origin that some shop declared; the request
  // itself is then checked against its own shop's origins (auth.server.ts). A storefront preflight that asks
  // for Authorization is the customer account extension's: granted to any origin, as above.
  app.options("*", async (c) => {
    const origin = c.req.header("origin");
    const headers = new Headers({ Vary: "Origin" });
    const method = c.req.header("access-control-request-method");
    if (
      origin &&
      method &&
      takesSessionTokens(c.req.path) &&
      asksForAuthorization(c.req.header("access-control-request-headers"))
    ) {
      headers.set("Access-Control-Allow-Origin", "*");
      headers.set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS");
      headers.set("Access-Control-Allow-Headers", SESSION_TOKEN_ALLOW_HEADERS);
      headers.set("Access-Control-Max-Age", SESSION_TOKEN_MAX_AGE);
    } else if (origin && method && (await isDeclaredHeadlessOrigin(origin))) {
      headers.set("Access-Control-Allow-Origin", origin);
      // PATCH: renaming a list and changing an item's note or quantity (named lists).
      headers.set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS");
      headers.set("Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
      headers.set("Access-Control-Max-Age", "600");
    }
    return new Response(null, { status: 204, headers });
  });

  // Grants the response to a public-key caller's declared origin (errors included, so browsers can read them).
  app.use("*", async (c, next) => {
    await next();
    const origin = c.req.header("origin");
    const caller = c.get("caller");
    if (origin && caller?.mode === "public" && caller.settings?.headlessOrigins.includes(origin)) {
      c.res.headers.set("Access-Control-Allow-Origin", origin);
      c.res.headers.set("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
    } else if (
      origin &&
      takesSessionTokens(c.req.path) &&
      (caller?.mode === "customerAccount" || presentsSessionToken(c.req.header("authorization")))
    ) {
      // The extension's answers, refusals included (a token that did not verify leaves no caller).
      c.res.headers.set("Access-Control-Allow-Origin", "*");
      c.res.headers.set("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
    }
    if (origin) c.res.headers.append("Vary", "Origin");
  });

  app.use("*", concretePathsFirst(app));

  registerStorefrontRoutes(app);
  registerStorefrontListRoutes(app);
  registerShopRoutes(app);
  registerKeyRoutes(app);
  registerListRoutes(app);
  registerAnalyticsRoutes(app);
  registerConversionRoutes(app);
  registerWebhookRoutes(app);
  registerTransferRoutes(app);
  registerComplianceRoutes(app);

  for (const [type, schema] of Object.entries(WEBHOOK_EVENTS)) {
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: type,
      operationId: `on${type.replace(/(^|\.)(\w)/g, (_, __, letter: string) => letter.toUpperCase())}`,
      summary: `${type} event`,
      // Sent by this service to the shop's endpoint, which checks the signature: no credential of ours applies.
      security: [],
      description:
        "POSTed to your endpoint with headers X-Service-Event, X-Service-Delivery and X-Service-Signature " +
        '(`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` keyed with the endpoint secret).',
      request: { body: { content: { "application/json": { schema } } } },
      responses: { 200: { description: "Any 2xx acknowledges the delivery." } },
    });
  }

  // Anything else under /v1: 405 with Allow when the path exists with other methods, else 404.
  app.all("*", (c) => {
    const allowed = allowedMethods(app, c.req.path);
    if (allowed.length > 0) throw methodNotAllowed(c.req.method, allowed);
    throw new AppError("not-found", { detail: `No endpoint ${c.req.method} ${c.req.path}.` });
  });

  app.onError((error, c) => onError(error, c));
  return app;
}
