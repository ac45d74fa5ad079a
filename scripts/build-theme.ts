/**
 * `npm run theme:build`: compiles the storefront script (storefront/src) into the theme app extension's
 * assets (extensions/wishlist-theme/assets/wishlist.js), the file the platform serves to shoppers. The
 * built file is committed, so `shopify app deploy` ships exactly what was reviewed and tested.
 * `--check` (CI): fails when the committed file differs from a fresh build, or when what the app embed
 * loads (the script plus the embed block's own markup and styles) is over the budget of 5 KB gzipped
 * (docs/storefront.md).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const ROOT = path.resolve(import.meta.dirname, "..");
const EXTENSION = path.join(ROOT, "extensions/wishlist-theme");
const OUTPUT = path.join(EXTENSION, "assets/wishlist.js");
export const BUDGET_GZIP_BYTES = 5 * 1024;

export async function buildStorefrontScript(): Promise<string> {
  const result = await build({
    entryPoints: [path.join(ROOT, "storefront/src/wishlist.ts")],
    bundle: true,
    minify: true,
    format: "iife",
    // Browsers the platform's themes support (the last two versions of the major ones).
    target: ["chrome111", "edge111", "firefox114", "safari16.4"],
    legalComments: "none",
    write: false,
  });
  return result.outputFiles[0]!.text;
}

/** The embed block without its schema: the markup and styles it adds to every page. */
export function embedMarkup(): string {
  const liquid = readFileSync(path.join(EXTENSION, "blocks/app-embed.liquid"), "utf8");
  return liquid
    .replace(/{%-?\s*schema\s*-?%}[\s\S]*$/, "")
    .replace(/{%-?\s*comment\s*-?%}[\s\S]*?endcomment\s*-?%}/, "");
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename);
if (isMain) {
  const check = process.argv.includes("--check");
  const script = await buildStorefrontScript();
  const scriptGzip = gzipSync(script).length;
  const embedGzip = gzipSync(embedMarkup()).length;
  const total = scriptGzip + embedGzip;
  process.stdout.write(
    `wishlist.js ${script.length} B (${scriptGzip} B gzipped) + app embed markup ${embedGzip} B gzipped = ${total} B of ${BUDGET_GZIP_BYTES} B\n`,
  );
  let failed = false;
  if (total > BUDGET_GZIP_BYTES) {
    process.stderr.write(`over budget by ${total - BUDGET_GZIP_BYTES} B\n`);
    failed = true;
  }
  if (check) {
    const committed = readFileSync(OUTPUT, "utf8");
    if (committed !== script) {
      process.stderr.write(
        "extensions/wishlist-theme/assets/wishlist.js is not the build of storefront/src: run npm run theme:build\n",
      );
      failed = true;
    }
  } else {
    writeFileSync(OUTPUT, script);
  }
  if (failed) process.exit(1);
}
