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
    // The HTTP server is ours (server/index.ts); Vite only runs as middleware in development.
    // Its hot-reload socket listens where the web server does (HOST, 127.0.0.1 unless set), never on
    // every interface.
    hmr: { port: Number(process.env.HMR_PORT ?? 64999), host: process.env.HOST || "127.0.0.1" },
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
