import { createRoute, type OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { AppError, PROBLEM_TYPES, type ProblemSlug } from "~/lib/problems";
import { resolveCaller } from "./auth.server";
import { API_BODY_LIMIT_BYTES } from "../body-limit.server";
import { requireJsonBody } from "./body.server";
import { clientAddress } from "./client-address.server";
import type { CallerMode, V1Env } from "./context";
import { idempotency } from "./idempotency-key.server";
import { refuseNulCharacters } from "./nul-characters.server";
import { IDEMPOTENCY_KEY_PARAMETER, withResponseHeaders } from "./openapi.server";
import { rateLimit } from "./rate-limit.server";
import { parseId } from "~/lib/ids";
import { isDomainError } from "~/lib/domain-error";
import { requireFeature } from "~/services/plans/entitlements.server";
import { problemOfDomainError } from "../domain-problems.server";
import { problemResponse } from "../problem-response.server";
import { lowestPlanWith, type Feature } from "~/services/plans/plans";
import { PATH_ID_KINDS, problemAnswer } from "./route-shapes";
import { PlanRequiredProblemSchema } from "./schemas";

/**
 * One place that turns a route definition into a handler chain and an OpenAPI operation:
 * authenticate -> mode check -> JSON body rules -> rate limit -> plan feature -> idempotency (POST) -> deprecation
 * headers -> validation (no NUL characters anywhere, then zod) -> handler. Routes only declare what differs.
 */
export interface Deprecation {
  /** When the route was deprecated (`Deprecation` header, RFC 9745). */
  since: Date;
  /** When it stops working (`Sunset` header, RFC 8594). */
  sunset?: Date;
  /** Changelog entry (`Link: <...>; rel="deprecation"`). */
  link?: string;
}

export interface ApiRoute extends RouteConfig {
  /**
   * Calling modes allowed (the security schemes of docs/openapi.json); storefront routes allow the private key,
   * the public key and the app proxy, those about the shopper's own lists the customer account session token
   * too; the rest private only.
   */
  modes: readonly CallerMode[];
  deprecation?: Deprecation;
  /**
   * The plan feature the operation belongs to (app/services/plans/plans.ts): a shop whose plan lacks it is
   * answered 403 `plan-required`, naming the plan it needs, before anything is read.
   */
  feature?: Feature;
}

function pathPattern(openApiPath: string): RegExp {
  const source = openApiPath.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+");
  return new RegExp(`^${source}/?$`);
}

/** Why a valid credential of each mode is refused an operation that does not allow its mode. */
const MODE_REFUSED: Record<CallerMode, string> = {
  private: "Private keys cannot call this operation.",
  public: "Public keys may only call /v1/storefront/* endpoints. Use a private key from your server.",
  proxy: "App proxy calls may only reach storefront endpoints.",
  customerAccount:
    "Customer account session tokens reach the customer's own lists and items only (the storefront operations " +
    "that document the customerAccount scheme).",
};

const requireMode =
  (modes: readonly CallerMode[]): MiddlewareHandler<V1Env> =>
  async (c, next) => {
    const caller = await resolveCaller(c);
    c.set("caller", caller);
    if (!modes.includes(caller.mode)) throw new AppError("forbidden", { detail: MODE_REFUSED[caller.mode] });
    await next();
  };

/**
 * The plan's refusal is answered here, not thrown: a thrown error would skip the rate limiter's headers, set
 * on the answer after `next()`, and this call was counted.
 */
const requirePlanFeature =
  (feature: Feature): MiddlewareHandler<V1Env> =>
  async (c, next) => {
    try {
      await requireFeature(c.get("caller").shopId, feature);
    } catch (error) {
      if (!isDomainError(error, "plan_required")) throw error;
      return problemResponse(problemOfDomainError(error), c.req.path);
    }
    await next();
  };

const httpDate = (date: Date) => date.toUTCString();

function deprecationHeaders(deprecation: Deprecation): MiddlewareHandler<V1Env> {
  return async (c, next) => {
    await next();
    c.res.headers.set("Deprecation", `@${Math.floor(deprecation.since.getTime() / 1000)}`);
    if (deprecation.sunset) c.res.headers.set("Sunset", httpDate(deprecation.sunset));
    if (deprecation.link) c.res.headers.append("Link", `<${deprecation.link}>; rel="deprecation"`);
  };
}

const problem = (slug: ProblemSlug, extra = "") => problemAnswer(`${PROBLEM_TYPES[slug].title}${extra}`);

/** The error responses every operation can give, derived from what it declares. */
function errorResponses(route: ApiRoute) {
  const request = route.request ?? {};
  const hasParameters = Boolean(request.params || request.query || request.headers);
  const hasBody = Boolean(request.body);
  // A body sent to an operation that declares none still meets the body rules (size, media type, JSON, no NUL
  // characters): any method but GET may carry one.
  const mayCarryBody = hasBody || route.method !== "get";
  return {
    // Any operation: a NUL character in a query parameter, even one the operation does not read.
    400: problem(
      "bad-request",
      hasParameters || mayCarryBody
        ? ", invalid parameter (a NUL character in any), wrong id prefix, malformed or empty JSON body"
        : ", a query parameter with a NUL character",
    ),
    401: problem("unauthorized"),
    403: route.feature
      ? problemAnswer(
          `${PROBLEM_TYPES.forbidden.title}, or plan-required: the shop's plan lacks this feature (the ` +
            `${lowestPlanWith(route.feature).id} plan or higher has it; the problem's \`plan\` member names it)`,
          PlanRequiredProblemSchema,
        )
      : problem("forbidden"),
    ...(request.params ? { 404: problem("not-found") } : {}),
    ...(route.method === "post" ? { 409: problem("idempotency-key-in-use") } : {}),
    ...(mayCarryBody
      ? { 413: problem("payload-too-large", ` (JSON bodies are capped at ${API_BODY_LIMIT_BYTES} bytes)`) }
      : {}),
    ...(mayCarryBody ? { 415: problem("unsupported-media-type") } : {}),
    ...(mayCarryBody
      ? {
          422: problem(
            "validation-error",
            hasBody || route.method === "post" ? " (or Idempotency-Key reused)" : " (a NUL character in a body sent)",
          ),
        }
      : {}),
    429: problem("rate-limited"),
    500: problem("internal-error"),
    // Any operation: the database cannot be used at all (down or restarting), with Retry-After.
    503: problem(
      "service-unavailable",
      " (the database cannot be reached, or every database connection of the server stayed in use; retry after Retry-After)",
    ),
  };
}

type OperationParameters = NonNullable<RouteConfig["parameters"]>;

const SECURITY: Record<CallerMode, string> = {
  private: "privateKey",
  public: "publicKey",
  proxy: "appProxy",
  customerAccount: "customerAccount",
};

/**
 * `operationId` from the method and path, so every operation has one and no two collide: GET /lists/{id} is
 * `getListsById`, POST /webhooks/{id}/test is `postWebhooksByIdTest`. Generated clients name their calls by it.
 */
function operationIdOf(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .map((segment) => segment.replace(/^\{(.+)\}$/, "by-$1"))
    .flatMap((segment) => segment.split(/[-_]/))
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return `${method.toLowerCase()}${words.join("")}`;
}

/**
 * Checks the route's id path parameters (`idParameter`) before the body and the shopper are read: an id
 * with the wrong prefix is a 400 `invalid-id` whatever else is wrong with the request, as the document says.
 */
function pathIds(route: RouteConfig): MiddlewareHandler<V1Env>[] {
  const params = route.request?.params as { shape?: Record<string, unknown> } | undefined;
  const ids = Object.entries(params?.shape ?? {}).flatMap(([name, schema]) => {
    const kind = PATH_ID_KINDS.get(schema as never);
    return kind ? [{ name, kind }] : [];
  });
  if (ids.length === 0) return [];
  return [
    async (c, next) => {
      for (const { name, kind } of ids) parseId(kind, c.req.param(name) ?? "", name);
      await next();
    },
  ];
}

/** Builds the route: its middleware chain, security, and derived error responses. */
export function apiRoute<R extends ApiRoute>(definition: R) {
  const { modes, deprecation, feature, ...config } = definition;
  const storefront = modes.includes("public");
  const middleware: MiddlewareHandler<V1Env>[] = [
    requireMode(modes),
    requireJsonBody(Boolean(config.request?.body?.required)),
    rateLimit(storefront ? ["shopper", "address"] : ["shop"], clientAddress),
    // Counted like any call, then refused before its parameters are read.
    ...(feature ? [requirePlanFeature(feature)] : []),
    ...(config.method === "post" ? [idempotency] : []),
    ...(deprecation ? [deprecationHeaders(deprecation)] : []),
    refuseNulCharacters,
    ...pathIds(config),
  ];
  return createRoute({
    operationId: operationIdOf(config.method, config.path),
    ...config,
    middleware,
    ...(deprecation ? { deprecated: true } : {}),
    ...(feature ? { "x-plan": lowestPlanWith(feature).id } : {}),
    // The app proxy's signature works only under /proxy/v1, not on the /v1 server this document describes:
    // the operations it reaches are marked `x-app-proxy` instead (the appProxy scheme says so).
    security: modes.filter((mode) => mode !== "proxy").map((mode) => ({ [SECURITY[mode]]: [] })),
    ...(modes.includes("proxy") ? { "x-app-proxy": true } : {}),
    ...(config.method === "post"
      ? {
          parameters: [
            ...((config.parameters ?? []) as OperationParameters),
            IDEMPOTENCY_KEY_PARAMETER,
          ] as OperationParameters,
        }
      : {}),
    responses: withResponseHeaders(
      { ...errorResponses(definition), ...config.responses },
      { method: config.method, bucket: storefront ? "Shopper" : "Shop" },
    ),
  });
}

const isConcrete = (openApiPath: string) => !openApiPath.includes("{");

/**
 * Methods the app serves for a path under /v1 or /proxy/v1 (for 405 and its Allow header). Concrete paths
 * never get here with a method they lack: `concretePathsFirst` answers those.
 */
export function allowedMethods(app: OpenAPIHono<V1Env>, path: string): string[] {
  const relative = path.replace(/^\/proxy/, "").replace(/^\/v1/, "") || "/";
  const methods = app.openAPIRegistry.definitions.flatMap((definition) =>
    definition.type === "route" && pathPattern(definition.route.path).test(relative)
      ? [definition.route.method.toUpperCase()]
      : [],
  );
  return [...new Set(methods)];
}

/** The 405 answer for a path the app serves with other methods. */
export function methodNotAllowed(method: string, allowed: string[]): AppError {
  return new AppError("method-not-allowed", {
    detail: `${method} is not supported here. Allowed: ${allowed.join(", ")}.`,
    headers: { Allow: [...allowed, "OPTIONS"].join(", ") },
  });
}

/**
 * A concrete path is matched before a templated one, as the OpenAPI Specification orders them. Hono's router
 * would hand a method a concrete path lacks to a templated route of the same shape (GET /imports/upload to
 * GET /imports/{jobId}, a 400 `invalid-id`); this middleware, mounted before the routes, answers 405 instead.
 * One map lookup per request: it runs on the storefront's hot paths too.
 */
export function concretePathsFirst(app: OpenAPIHono<V1Env>): MiddlewareHandler<V1Env> {
  let concrete: Map<string, Set<string>> | undefined;
  return async (c, next) => {
    // Built at the first request: the routes are registered after this middleware.
    if (!concrete) {
      concrete = new Map();
      for (const definition of app.openAPIRegistry.definitions) {
        if (definition.type !== "route" || !isConcrete(definition.route.path)) continue;
        const methods = concrete.get(definition.route.path) ?? new Set<string>();
        methods.add(definition.route.method.toUpperCase());
        concrete.set(definition.route.path, methods);
      }
    }
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    if (method !== "OPTIONS") {
      const relative =
        c.req.path
          .replace(/^\/proxy/, "")
          .replace(/^\/v1/, "")
          .replace(/(?<=.)\/$/, "") || "/";
      const methods = concrete.get(relative);
      if (methods && !methods.has(method)) throw methodNotAllowed(c.req.method, [...methods]);
    }
    await next();
  };
}
