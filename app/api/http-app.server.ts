import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { logger } from "~/logger.server";
import { problemResponse } from "~/lib/problem-response.server";
import { checkReadiness } from "./health.server";

export type RemixHandler = (request: Request) => Promise<Response>;

export interface HttpAppEnv {
  Variables: { requestId: string };
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The one HTTP application of the web process. Light, Fetch-native routes (health now, the /v1 API
 * and the app proxy later) are matched here before anything reaches Remix, which serves the pages
 * (docs/decisions/002-http-server.md).
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
        path: c.req.path, // never the query string: it can carry signatures and anonymous ids
        status: c.res.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      },
      "request",
    );
  });

  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => c.json(await checkReadiness()));

  app.all("*", (c) => remix(c.req.raw));

  app.onError((error, c) => {
    const requestId = c.get("requestId");
    const response = problemResponse(error, c.req.path);
    if (response.status >= 500 && response.status !== 503) {
      logger.error({ err: error, requestId, path: c.req.path }, "unhandled error");
    }
    return response;
  });

  return app;
}
