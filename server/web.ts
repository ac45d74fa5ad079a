import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { getRequestListener } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import { Hono } from "hono";
import { createHttpApp, type RemixHandler } from "~/api/http-app.server";
import { closeDatabase, database } from "~/data/database.server";
import { getEnv } from "~/env.server";
import { logger } from "~/logger.server";
import { closeRequestRedis, getRequestRedis, whenRedisReady } from "~/redis.server";
import { createViteGate } from "./dev-paths";
import { lingerAfterEarlyAnswer } from "./lingering-close";

type ViteDevServer = Awaited<ReturnType<(typeof import("vite"))["createServer"]>>;

/**
 * Remix in production serves the built bundle; in development it runs inside Vite, whose hot-reload socket
 * is an upgrade on our own server (its port and HOST), so it needs no port of its own.
 */
async function createRemix(server: Server): Promise<{ handle: RemixHandler; vite?: ViteDevServer }> {
  if (getEnv().NODE_ENV === "development") {
    const { createServer: createViteServer } = await import("vite");
    const vite = await createViteServer({
      server: {
        middlewareMode: true,
        hmr: { server },
        // Vite refuses requests for any host but localhost; the platform CLI's tunnel comes in on the app URL.
        allowedHosts: [new URL(getEnv().SHOPIFY_APP_URL).hostname],
      },
    });
    const handle = createRequestHandler(
      () => vite.ssrLoadModule("virtual:remix/server-build") as Promise<ServerBuild>,
      "development",
    );
    return { handle: (request) => handle(request), vite };
  }
  const buildPath = path.resolve("build/server/index.js");
  if (!existsSync(buildPath)) {
    // `npm start` before `npm run build`: say so, rather than Node's ERR_MODULE_NOT_FOUND.
    process.stderr.write(`No production build at ${buildPath}: run \`npm run build\` first (or \`npm run dev\`).\n`);
    process.exit(1);
  }
  // Imported at the first request that reaches Remix (the admin, the share page), not at start: the build
  // carries the whole admin (React, Polaris, recharts, the platform's library), which is most of the
  // process's start-up time and idle memory, and the storefront and the API never use it
  // (docs/decisions/044-request-path-budgets.md).
  let handler: Promise<(request: Request) => Promise<Response>> | undefined;
  const load = async () => {
    const build = (await import(pathToFileURL(buildPath).href)) as ServerBuild;
    return createRequestHandler(build, "production");
  };
  // A failed import (the build missing for a moment while a deploy rewrites it) is not kept: the request
  // that met it fails, the next one imports again (Node does not remember a module it could not find).
  const loaded = () =>
    (handler ??= load().catch((error: unknown) => {
      handler = undefined;
      throw error;
    }));
  return { handle: async (request) => (await loaded())(request) };
}

export async function startWebServer() {
  const env = getEnv();
  // Opens the data layer's handle (SQLite: the connections, with their PRAGMAs) before taking traffic.
  database();
  // Connect to Redis before taking traffic (rate limits count there); a Redis that is down is reported
  // by /readyz rather than stopping the server.
  await whenRedisReady(getRequestRedis(), 5_000).catch((error: unknown) =>
    logger.warn({ err: error }, "Redis is not reachable yet; rate limits count in memory until it is"),
  );
  // The server exists before Remix does (Vite attaches its hot-reload socket to it); it takes requests only
  // once it listens, below, when the handler is set.
  let handle: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    lingerAfterEarlyAnswer(req, res);
    handle(req, res);
  });
  const remix = await createRemix(server);

  const root = new Hono();
  if (!remix.vite) {
    // Fingerprinted build assets are immutable; other public files get a short cache.
    root.use(
      "/assets/*",
      serveStatic({
        root: "./build/client",
        onFound: (_path, c) => {
          c.header("Cache-Control", "public, max-age=31536000, immutable");
        },
      }),
    );
    // Other public files (favicon.svg, ...) sit at the top level; only such paths touch the disk, so API
    // requests never pay for a file-system lookup.
    root.get("/:file{[^/]+\\.[A-Za-z0-9]+}", serveStatic({ root: "./build/client" }));
  }
  root.route("/", createHttpApp({ remix: remix.handle }));

  // Bodies left unread by an early answer are read and discarded here, within bounds (lingering-close.ts).
  const listener = getRequestListener(root.fetch, { autoCleanupIncoming: false });
  const vite = remix.vite;
  // Vite sees only the bundler's paths and the browser's modules, never the project's other files.
  const viteMaySee = vite ? createViteGate(vite.config.root, vite.config.publicDir) : () => false;
  handle = (req, res) => {
    if (vite && viteMaySee(req.url)) vite.middlewares(req, res, () => void listener(req, res));
    else void listener(req, res);
  };

  await new Promise<void>((resolve) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EADDRINUSE" && error.code !== "EACCES") throw error;
      logger.fatal(
        { port: env.PORT, host: env.HOST },
        error.code === "EADDRINUSE"
          ? `port ${env.PORT} is already in use: stop the other process or set PORT`
          : `no permission to listen on port ${env.PORT}: choose another PORT`,
      );
      process.exit(1);
    });
    server.listen(env.PORT, env.HOST, resolve);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  logger.info(
    { host: env.HOST, port, mode: env.NODE_ENV, database: env.DATABASE_ENGINE },
    `web server listening on ${env.SHOPIFY_APP_URL}`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "web server stopping");
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await vite?.close();
    await Promise.allSettled([closeDatabase(), closeRequestRedis()]);
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
  return server;
}
