import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Hono, type Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { isDatabaseUnavailable } from "~/data/database.server";
import { getEnv } from "~/env.server";
import { problemResponse } from "./problem-response.server";
import { asAppError } from "./domain-problems.server";
import { AppError } from "~/lib/problems";
import { logger } from "~/logger.server";
import { clientAbortProblem, isClientAbort, limitRequestBody } from "./body-limit.server";
import { registerFileRoutes } from "./files.server";
import { registerPlatformWebhooks } from "./platform-webhooks.server";
import { registerAlertLinks } from "./alert-links.server";
import { checkReadiness } from "./health.server";
import { createV1App } from "./v1/app.server";
import { buildOpenApiDocument } from "./v1/openapi.server";
import type { HttpAppEnv } from "./http-env";

export type RemixHandler = (request: Request) => Promise<Response>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Errors thrown by the libraries under us (Hono's validators and body limit, the body stream) that are the
 * client's doing, as their problem; anything else stays as thrown.
 */
function clientProblem(error: unknown, c: Context): unknown {
  if (error instanceof HTTPException) {
    switch (error.status) {
      case 400:
        return new AppError("bad-request", { detail: error.message || undefined, cause: error });
      case 413:
        return new AppError("payload-too-large", { cause: error });
      case 415:
        return new AppError("unsupported-media-type", {
          detail: "Send Content-Type: application/json (parameters as `; name=value`).",
          cause: error,
        });
      default:
        return error;
    }
  }
  // A connection to PostgreSQL reset by its server carries the same codes (ECONNRESET) as a client that hung
  // up: the database's is a 503 (asAppError), never the client's 400.
  if (isDatabaseUnavailable(error)) return error;
  return isClientAbort(error) ? clientAbortProblem(c, error) : error;
}

/** The single mapper from a thrown error to a response, with logging of the unexpected ones. */
function handleError(thrown: unknown, c: Context): Response {
  const error = asAppError(clientProblem(thrown, c));
  const requestId = c.get("requestId") as string | undefined;
  const response = problemResponse(error, c.req.path);
  if (response.status >= 500 && response.status !== 503 && response.status !== 502) {
    logger.error({ err: error, requestId, path: c.req.path }, "unhandled error");
  }
  return response;
}

const REDOC_CDN_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";
const EMPTY_IMAGE = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";

const DOCS_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Wishlist service API reference</title>
  </head>
  <body>
    <redoc spec-url="/openapi.json" hide-download-button="false"></redoc>
    <script src="/docs/redoc.standalone.js"></script>
  </body>
</html>`;

/**
 * The Origin of a state-changing request to the pages when it is not the app's own host (as Remix's CSRF
 * check compares them: the first X-Forwarded-Host, else Host); undefined when the request may go on.
 */
function foreignPostOrigin(request: Request): string | undefined {
  if (!["POST", "PUT", "PATCH", "DELETE"].includes(request.method)) return undefined;
  const origin = request.headers.get("origin");
  if (!origin) return undefined;
  const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim() || request.headers.get("host");
  let originHost: string | null;
  try {
    originHost = origin === "null" ? null : new URL(origin).host;
  } catch {
    originHost = null;
  }
  return originHost !== null && originHost === host ? undefined : origin;
}

/**
 * The one HTTP application of the web process. The Fetch-native routes (health, the /v1 API, the app
 * proxy, the API document and reference) are matched here before anything reaches Remix, which serves
 * the pages (docs/decisions/002-http-server.md).
 */
export function createHttpApp({ remix }: { remix: RemixHandler }) {
  const app = new Hono<HttpAppEnv>();

  // Request id: taken from a well-formed incoming X-Request-Id, else generated; echoed and logged.
  app.use(async (c, next) => {
    const started = performance.now();
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    c.set("requestId", requestId);
    await next();
    c.res.headers.set("X-Request-Id", requestId);
    logger.info(
      {
        requestId,
        method: c.req.method,
        // Never the query string (signatures, anonymous ids), nor an alert email link's token (it names the
        // customer).
        path: c.req.path.replace(/^(\/(?:proxy\/)?alerts\/(?:unsubscribe|click)\/)[^/]+/, "$1:token"),
        status: c.res.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      },
      "request",
    );
  });

  // Responses of the API carry secrets (new keys) and shopper data: no cache, shared or private, may keep
  // them. The API document is public and may be cached.
  app.use(async (c, next) => {
    await next();
    const path = c.req.path;
    const api = path === "/v1" || path.startsWith("/v1/") || path.startsWith("/proxy/v1/") || path === "/proxy/v1";
    if (api && path !== "/v1/openapi.json") c.res.headers.set("Cache-Control", "no-store");
  });

  // Body caps before any handler reads a byte (body-limit.server.ts).
  app.use(limitRequestBody);

  app.get("/healthz", (c) => c.json({ status: "ok" }));
  // Browsers ask for it on every page of this origin (/docs included); the app has none, and a 404 from
  // Remix would log a stack trace each time.
  app.get("/favicon.ico", (c) => c.body(null, 204, { "Cache-Control": "public, max-age=86400" }));
  app.get("/readyz", async (c) => c.json(await checkReadiness()));

  const v1 = createV1App(handleError);
  let document: unknown;
  const openApi = (c: Context) => c.json((document ??= buildOpenApiDocument(v1, getEnv().SHOPIFY_APP_URL)));
  app.get("/openapi.json", openApi);
  app.get("/v1/openapi.json", openApi);

  let redoc: Promise<Buffer> | undefined;
  app.get("/docs", (c) => c.html(DOCS_HTML));
  app.get("/docs/redoc.standalone.js", async (c) => {
    redoc ??= readFile(createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js")).then(
      // The bundle's footer loads Redocly's logo from its CDN (it has no option to turn that off): the page
      // loads nothing from beyond this host, so the logo is an empty image.
      (bundle) => Buffer.from(bundle.toString("utf8").replaceAll(REDOC_CDN_LOGO, EMPTY_IMAGE)),
    );
    return c.body(new Uint8Array(await redoc), 200, {
      "Content-Type": "application/javascript; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
    });
  });

  app.route("/v1", v1);
  app.route("/proxy/v1", v1);
  registerFileRoutes(app);
  registerPlatformWebhooks(app);
  registerAlertLinks(app);

  app.all("*", (c) => {
    const foreignOrigin = foreignPostOrigin(c.req.raw);
    if (foreignOrigin === undefined) return remix(c.req.raw);
    // Remix refuses such a post itself (its CSRF check) but by throwing, which it answers as a bare 500.
    logger.warn(
      { requestId: c.get("requestId"), path: c.req.path, origin: foreignOrigin },
      "page post from another origin refused",
    );
    return problemResponse(
      new AppError("forbidden", { detail: "The app's pages take form posts from the app's own pages only." }),
      c.req.path,
    );
  });
  app.onError(handleError);
  return app;
}
