import path from "node:path";
import { pathToFileURL } from "node:url";

/** The SDK's build in this repository (`npm run sdk:build`), which `@wishlist-service/sdk` names here. */
export const SDK_DIST = path.resolve(import.meta.dirname, "../../../sdk/dist");

/**
 * The SDK for this server's code. The browser's code imports `@wishlist-service/sdk`, which Vite links to this
 * repository's build (vite.config.ts); Node, which runs Vite's config and so this server, knows no such link, so
 * the build is loaded by its path here. In your own project, with the SDK installed, import it by name instead:
 * `import { createWishlistClient, isProblem } from "@wishlist-service/sdk"`.
 */
export const { createWishlistClient, isProblem } = (await import(
  pathToFileURL(path.join(SDK_DIST, "index.js")).href
)) as typeof import("@wishlist-service/sdk");
