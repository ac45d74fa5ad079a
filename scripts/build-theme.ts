/**
 * `npm run theme:build`: compiles the storefront scripts (theme-script/src) into the theme app extension's
 * assets, the files the platform serves to shoppers: `wishlist.js` (loaded by the app embed on every page)
 * and `wishlist-page.js` (loaded by the wishlist page block only). The built files are committed, so
 * `shopify app deploy` ships exactly what was reviewed and tested.
 * and `wishlist-lists.js` (the list picker, loaded by the embed on the first press of a heart in a shop with
 * named lists).
 * `--check` (CI): fails when a committed file differs from a fresh build, or when what a block loads (its
 * script plus the block's own markup and styles) is over its budget: 5 KB gzipped for the embed, on every
 * page; 8 KB for the wishlist page; 2 KB for the picker, fetched on first use (docs/storefront.md,
 * docs/decisions/030-wishlist-page-script.md, 048-shopper-lists-in-the-theme.md).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const ROOT = path.resolve(import.meta.dirname, "..");
const EXTENSION = path.join(ROOT, "extensions/wishlist-theme");

/** Each script, the block that loads it, and the weight (gzipped bytes) the two may add to a page. */
const BUNDLES = [
  { source: "wishlist.ts", asset: "wishlist.js", block: "app-embed", budget: 5 * 1024 },
  { source: "wishlist-page.ts", asset: "wishlist-page.js", block: "wishlist-page", budget: 8 * 1024 },
  { source: "wishlist-lists.ts", asset: "wishlist-lists.js", block: null, budget: 2 * 1024 },
];

async function buildScript(source: string): Promise<string> {
  const result = await build({
    entryPoints: [path.join(ROOT, "theme-script/src", source)],
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

/** A block without its schema and comment: the markup and styles it adds to a page. */
function blockMarkup(block: string | null): string {
  if (!block) return "";
  const liquid = readFileSync(path.join(EXTENSION, "blocks", `${block}.liquid`), "utf8");
  return liquid
    .replace(/{%-?\s*schema\s*-?%}[\s\S]*$/, "")
    .replace(/{%-?\s*comment\s*-?%}[\s\S]*?endcomment\s*-?%}/, "");
}

const check = process.argv.includes("--check");
let failed = false;
for (const bundle of BUNDLES) {
  const output = path.join(EXTENSION, "assets", bundle.asset);
  const script = await buildScript(bundle.source);
  const scriptGzip = gzipSync(script).length;
  const markup = blockMarkup(bundle.block);
  const markupGzip = markup ? gzipSync(markup).length : 0;
  const total = scriptGzip + markupGzip;
  process.stdout.write(
    `${bundle.asset} ${script.length} B (${scriptGzip} B gzipped) + ${bundle.block ?? "no"} block markup ${markupGzip} B gzipped = ${total} B of ${bundle.budget} B\n`,
  );
  if (total > bundle.budget) {
    process.stderr.write(`${bundle.asset}: over budget by ${total - bundle.budget} B\n`);
    failed = true;
  }
  if (check) {
    if (readFileSync(output, "utf8") !== script) {
      process.stderr.write(
        `extensions/wishlist-theme/assets/${bundle.asset} is not the build of theme-script/src: run npm run theme:build\n`,
      );
      failed = true;
    }
  } else {
    writeFileSync(output, script);
  }
}
if (failed) process.exit(1);
