/**
 * `npm run bench -- headless-example [--runs=7]`: what the headless storefront example (examples/headless-storefront)
 * costs a shopper's first page. The demo shop seeded as `npm run dev` seeds it, the production build's web process
 * and worker, the platform stand-in with its Storefront API, and the example built by `vite build` and served by
 * `vite preview` (scripts/lib/headless-example.ts). Two figures:
 *  - the build's JavaScript and CSS, as served and gzipped (what a shopper downloads once);
 *  - in Debian's Chromium, from navigation start to the grid showing the products and whether each is saved (the
 *    page's `grid-ready` mark: the Storefront API's products and the wishlist service's list both answered), and to
 *    the first contentful paint: each run a new shopper (a fresh browser context: no cache, a new guest), then the
 *    same shopper's reload (cached assets). Medians of `--runs`, after one warm-up.
 * docs/benchmarks.md records the figures.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { chromium, type Page } from "playwright-core";
import { chromiumPath, CHROMIUM_ARGS, DESKTOP_USER_AGENT } from "../lib/chromium";
import { buildHeadlessExample, previewHeadlessExample } from "../lib/headless-example";
import { storefrontAccessTokenOf } from "../../stand-in/storefront-api";
import { freePort, ROOT } from "./lib";
import { startLocalPlatform } from "./local-platform";

const runs = Number(process.argv.find((arg) => arg.startsWith("--runs="))?.slice(7) ?? 7);

const local = await startLocalPlatform("headless-example");
const outDir = path.join(ROOT, ".data/bench/headless-example-dist");
mkdirSync(outDir, { recursive: true });
let example: Awaited<ReturnType<typeof previewHeadlessExample>> | undefined;
const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });

try {
  const demo = JSON.parse(readFileSync(process.env.DEMO_SHOP_FILE!, "utf8")) as {
    shopDomain: string;
    publicKey: string;
    privateKey: string;
  };
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const patched = await fetch(`${local.appUrl}/v1/shop/settings`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${demo.privateKey}`, "content-type": "application/json" },
    body: JSON.stringify({ headlessOrigins: [origin] }),
  });
  if (!patched.ok) throw new Error(`the shop's headless origins were not set: ${patched.status}`);
  const settings = {
    wishlistUrl: local.appUrl,
    shopDomain: demo.shopDomain,
    publicKey: demo.publicKey,
    privateKey: demo.privateKey,
    storefrontOrigin: local.platform.storefrontOrigin,
    storefrontAccessToken: storefrontAccessTokenOf(local.platform.shops[0]!),
  };
  buildHeadlessExample(settings, outDir);
  example = await previewHeadlessExample(settings, { outDir, port });

  const assets = readdirSync(path.join(outDir, "assets"));
  const sizes = (extension: string) => {
    const files = assets.filter((file) => file.endsWith(extension));
    const bytes = files.map((file) => readFileSync(path.join(outDir, "assets", file)));
    return {
      files: files.length,
      raw: bytes.reduce((sum, content) => sum + content.length, 0),
      gzip: bytes.reduce((sum, content) => sum + gzipSync(content).length, 0),
    };
  };
  const js = sizes(".js");
  const css = sizes(".css");

  /** Navigation start to the grid ready, and to the first contentful paint, in ms. */
  const timings = async (page: Page) => {
    await page.waitForFunction(() => performance.getEntriesByName("grid-ready").length > 0, undefined, {
      timeout: 60_000,
    });
    return page.evaluate(() => ({
      grid: performance.getEntriesByName("grid-ready")[0]!.startTime,
      fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
    }));
  };
  const cold: Array<{ grid: number; fcp: number }> = [];
  const warm: Array<{ grid: number; fcp: number }> = [];
  for (let run = -1; run < runs; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, userAgent: DESKTOP_USER_AGENT });
    const page = await context.newPage();
    await page.goto(`${example.origin}/`);
    const first = await timings(page);
    await page.reload();
    const again = await timings(page);
    await context.close();
    // The first run warms the servers (the web process's first answers, Vite's preview): not a shopper's.
    if (run < 0) continue;
    cold.push(first);
    warm.push(again);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const ms = (values: number[]) => `${median(values).toFixed(0)} ms`;
  process.stdout.write(
    [
      `Chromium ${browser.version()}, desktop viewport, no throttling, all servers on this machine; median of ${runs} runs after one warm-up.`,
      "",
      "| Built asset | Files | As served | Gzipped |",
      "| --- | --- | --- | --- |",
      `| JavaScript (React, the SDK and its bindings, the pages) | ${js.files} | ${kb(js.raw)} | ${kb(js.gzip)} |`,
      `| CSS | ${css.files} | ${kb(css.raw)} | ${kb(css.gzip)} |`,
      "",
      "| Page load of the product grid | First contentful paint | Grid ready (products and hearts) |",
      "| --- | --- | --- |",
      `| New shopper (empty cache, new guest) | ${ms(cold.map((sample) => sample.fcp))} | ${ms(cold.map((sample) => sample.grid))} |`,
      `| Same shopper, reload (cached assets) | ${ms(warm.map((sample) => sample.fcp))} | ${ms(warm.map((sample) => sample.grid))} |`,
      "",
    ].join("\n"),
  );
} finally {
  await browser.close();
  example?.child.kill("SIGTERM");
  await local.stop();
  rmSync(outDir, { recursive: true, force: true });
}
// The demo seed's connections (the database's, Redis') would keep the process alive.
process.exit(0);
