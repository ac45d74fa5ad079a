import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";

declare module "@remix-run/node" {
  interface Future {
    v3_singleFetch: true;
  }
}

export default defineConfig({
  server: {
    // The HTTP server is ours (server/web.ts); Vite only runs as middleware in development, and its
    // hot-reload socket is an upgrade on that server's port (server/web.ts passes it), never a port of its own.
    // What Vite may read for the browser (`/@fs/` paths): the app's modules and the packages, never the
    // database, the environment or the rest of the project (server/web.ts also keeps other paths from Vite).
    fs: {
      strict: true,
      allow: ["app", "node_modules"],
      deny: [
        ".env",
        ".env.*",
        "*.{crt,pem,key}",
        "**/.git/**",
        "**/.data/**",
        "**/*.{db,sqlite,sqlite3}",
        "**/*.{db,sqlite,sqlite3}-{wal,shm,journal}",
        "**/*.server.*",
        "**/*.server/**",
        "**/app/generated/**",
        "**/prisma/**",
      ],
    },
  },
  // Where Vite keeps its bundled dependencies (default node_modules/.vite); the dev command's test starts
  // from an empty one, as a fresh clone does.
  cacheDir: process.env.VITE_CACHE_DIR || undefined,
  optimizeDeps: {
    // Every page's browser dependencies, found and bundled when the dev server starts: the scan starts from
    // every route, not only the first page visited. A dependency found later (recharts on a first visit to
    // Analytics, say) makes Vite bundle again and reload the page, and that first visit fails to hydrate
    // (two copies of React). The server-only packages the scan reaches through loaders never run in the
    // browser: not bundled for it.
    entries: ["app/root.tsx", "app/routes/**/*.tsx"],
    include: [
      "react",
      "react/jsx-runtime",
      "react/jsx-dev-runtime",
      "react-dom",
      "react-dom/client",
      "@remix-run/react",
      "@shopify/polaris",
      "@shopify/app-bridge-react",
      "@shopify/shopify-app-remix/react",
      "recharts",
    ],
    exclude: ["pg", "better-sqlite3", "bullmq", "ioredis", "pino"],
  },
  plugins: [
    remix({
      ignoredRouteFiles: ["**/.*", "**/*.test.*"],
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_lazyRouteDiscovery: true,
        v3_singleFetch: true,
        v3_routeConfig: true,
      },
    }),
    tsconfigPaths(),
  ],
  build: { assetsInlineLimit: 0 },
});
