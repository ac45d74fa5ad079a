import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import type { Connect, Plugin, UserConfig } from "vite";
import { SDK_DIST } from "./sdk";
import type { StorefrontSettings } from "./settings";
import { createStorefrontServer, STOREFRONT_API_VERSION } from "./storefront-server";

/** The example's folder: Vite's root. */
const ROOT = path.resolve(import.meta.dirname, "..");
/** The port the demo shop's headless origins name (scripts/lib/demo-shop.ts, HEADLESS_EXAMPLE_ORIGINS). */
export const EXAMPLE_PORT = 5173;
/** The most a request body to the storefront server may hold. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Vite's configuration of the example, for `vite` (dev), `vite build` and `vite preview` alike: React's JSX through
 * esbuild (no plugin), the SDK linked to this repository's build, the public settings compiled into the pages, and
 * the storefront's server (server/storefront-server.ts) mounted on the dev and preview servers.
 */
export function storefrontConfig(settings: StorefrontSettings): UserConfig {
  // Only what a browser may see: never the private key.
  const publicSettings: Record<string, string> = {
    VITE_WISHLIST_URL: settings.wishlistUrl,
    VITE_WISHLIST_SHOP: settings.shopDomain,
    VITE_WISHLIST_PUBLIC_KEY: settings.publicKey,
    VITE_STOREFRONT_ORIGIN: settings.storefrontOrigin,
    VITE_STOREFRONT_ACCESS_TOKEN: settings.storefrontAccessToken,
    VITE_STOREFRONT_API_VERSION: STOREFRONT_API_VERSION,
  };
  const repositoryModules = path.resolve(ROOT, "../../node_modules");
  return {
    root: ROOT,
    // Its own dependency cache: the app's Vite keeps one in the repository's node_modules/.vite. (A test puts it
    // under that folder instead, with VITE_CACHE_DIR, to leave the tree as it was.)
    cacheDir: process.env.VITE_CACHE_DIR || path.join(ROOT, "node_modules/.vite"),
    esbuild: { jsx: "automatic" },
    resolve: {
      // In your project, install the SDK (its tarball: `cd sdk && npm pack`) and drop these two lines.
      alias: [
        { find: /^@wishlist-service\/sdk$/, replacement: path.join(SDK_DIST, "index.js") },
        { find: /^@wishlist-service\/sdk\/react$/, replacement: path.join(SDK_DIST, "react.js") },
      ],
    },
    define: Object.fromEntries(
      Object.entries(publicSettings).map(([name, value]) => [`import.meta.env.${name}`, JSON.stringify(value)]),
    ),
    server: {
      port: EXAMPLE_PORT,
      strictPort: true,
      // What the dev server may read for the browser: the example, the SDK's build and the packages; never the
      // repository's .data (the demo shop's private key) or .env.
      fs: { strict: true, allow: [ROOT, SDK_DIST, repositoryModules], deny: [".env", ".env.*", "**/.data/**"] },
    },
    preview: { port: EXAMPLE_PORT, strictPort: true },
    build: { outDir: "dist", emptyOutDir: true },
    plugins: [storefrontServerPlugin(settings)],
  };
}

function storefrontServerPlugin(settings: StorefrontSettings): Plugin {
  const handle = createStorefrontServer(settings);
  const middleware: Connect.NextHandleFunction = (req, res, next) => {
    answer(handle, req, res).then(
      (answered) => {
        if (!answered) next();
      },
      (error: unknown) => next(error),
    );
  };
  return {
    name: "headless-storefront-server",
    async configureServer(server) {
      await assertServicesAnswer(settings);
      server.middlewares.use(middleware);
    },
    configurePreviewServer(server) {
      server.middlewares.use(middleware);
    },
  };
}

/** Runs the fetch handler for a Node request; false when it is not one of the storefront server's paths. */
async function answer(
  handle: (request: Request) => Promise<Response | null>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  if (!/^\/(session|wishlist)(\/|$)/.test(url.pathname)) return false;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  }
  // The storefront server reads JSON only: the body is kept as text.
  let body: string | undefined;
  if (req.method !== "GET" && req.method !== "HEAD") {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413).end();
        return true;
      }
      chunks.push(chunk);
    }
    // An empty body stays none: a string body, even empty, would give the request a text/plain type.
    body = Buffer.concat(chunks).toString("utf8") || undefined;
  }
  const response = await handle(new Request(url, { method: req.method, headers, body }));
  if (!response) return false;
  res.statusCode = response.status;
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader("set-cookie", cookies);
  res.end(Buffer.from(await response.arrayBuffer()));
  return true;
}

/**
 * The dev server starts only when the wishlist service and the Storefront API answer, so a developer who forgot
 * `npm run dev` is told so in the terminal rather than by a page of failed requests.
 */
async function assertServicesAnswer(settings: StorefrontSettings) {
  const failure = async (url: string, init?: RequestInit) => {
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(5_000) });
      await response.body?.cancel();
      return response.ok ? null : `HTTP ${response.status}`;
    } catch (error) {
      return (error as Error).message;
    }
  };
  const wishlist = await failure(`${settings.wishlistUrl}/healthz`);
  const storefront = await failure(`${settings.storefrontOrigin}/api/${STOREFRONT_API_VERSION}/graphql.json`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-shopify-storefront-access-token": settings.storefrontAccessToken,
    },
    body: JSON.stringify({ query: "{ shop { name } }" }),
  });
  const problems = [
    wishlist && `the wishlist service does not answer at ${settings.wishlistUrl} (GET /healthz: ${wishlist})`,
    storefront && `the Storefront API does not answer at ${settings.storefrontOrigin} (${storefront})`,
  ].filter(Boolean);
  if (problems.length) {
    throw new Error(
      `The headless storefront example cannot start: ${problems.join("; ")}.\n` +
        "Start `npm run dev` in another terminal, wait until it prints its URLs, then run `npm run example` again.",
    );
  }
}
