/**
 * `npm run bench -- theme`: what the theme app extension costs a shop's storefront, on the local storefront
 * of the platform stand-in (the extension's real Liquid and built script; the app proxy signed and forwarded
 * to the production build with its worker). Two measurements:
 *  - Lighthouse (performance only, desktop settings, Debian's Chromium) of the collection and product
 *    pages with the app embed off (the baseline, same run) and on: score, CLS, total blocking time, LCP,
 *    render-blocking requests, bytes. Goals (issue 14): score down by at most 2 points, CLS added 0, no
 *    render-blocking request of ours.
 *  - A shopper's click on a heart: from the click to the server's answer arriving in the browser (Resource
 *    Timing), and to the heart's change on screen, over repeated clicks (alternately save and remove).
 * docs/benchmarks.md records the figures.
 */
import lighthouse, { type Flags } from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import { chromium } from "playwright-core";
import { chromiumPath, CHROMIUM_ARGS, DESKTOP_USER_AGENT } from "../lib/chromium";
import { freePort } from "./lib";
import { startLocalPlatform } from "./local-platform";

const runs = Number(process.argv.find((arg) => arg.startsWith("--runs="))?.slice(7) ?? 3);
const clicks = Number(process.argv.find((arg) => arg.startsWith("--clicks="))?.slice(9) ?? 40);
const GOALS = { scoreDrop: 2, addedCls: 0 };

const { platform, stop } = await startLocalPlatform("theme", {
  // One shopper clicks many times: the per-shopper limit is not what this measures.
  RATE_LIMIT_STOREFRONT_PER_MINUTE: "100000",
  RATE_LIMIT_STOREFRONT_PER_ADDRESS_PER_MINUTE: "100000",
});

async function setEmbed(enabled: boolean) {
  const response = await fetch(`${platform.origin}/store/demo-shop/themes/current/editor`, {
    method: "POST",
    body: new URLSearchParams(enabled ? { enabled: "on" } : {}),
    redirect: "manual",
  });
  if (response.status !== 303) throw new Error(`theme editor answered ${response.status}`);
}

interface Figures {
  score: number;
  cls: number;
  tbtMs: number;
  lcpMs: number;
  /** LCP as the browser saw it, unthrottled (Lighthouse's own figure above is simulated on a slower network). */
  observedLcpMs: number;
  bytes: number;
  renderBlocking: string[];
}

// Lighthouse drives the browser over the DevTools protocol: the same Chromium, on a debugging port.
const debuggingPort = await freePort();
const browser = await chromium.launch({
  executablePath: chromiumPath(),
  args: [...CHROMIUM_ARGS, `--remote-debugging-port=${debuggingPort}`],
});

async function audit(url: string): Promise<Figures> {
  const flags: Flags = { port: debuggingPort, output: "json", logLevel: "error", onlyCategories: ["performance"] };
  const result = await lighthouse(url, flags, desktopConfig);
  if (!result) throw new Error(`no Lighthouse result for ${url}`);
  const { lhr } = result;
  if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.message}`);
  const value = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
  const blocking = (lhr.audits["render-blocking-resources"]?.details as { items?: Array<{ url: string }> } | undefined)
    ?.items;
  return {
    score: Math.round((lhr.categories.performance?.score ?? Number.NaN) * 100),
    cls: value("cumulative-layout-shift"),
    tbtMs: value("total-blocking-time"),
    lcpMs: value("largest-contentful-paint"),
    observedLcpMs:
      (lhr.audits.metrics?.details as { items?: Array<{ observedLargestContentfulPaint?: number }> } | undefined)
        ?.items?.[0]?.observedLargestContentfulPaint ?? Number.NaN,
    bytes: value("total-byte-weight"),
    renderBlocking: (blocking ?? []).map((item) => item.url),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
async function medianAudit(url: string): Promise<Figures> {
  await audit(url); // warm-up: the server's first answer of a page is not a shopper's
  const samples: Figures[] = [];
  for (let run = 0; run < runs; run++) samples.push(await audit(url));
  return {
    score: median(samples.map((sample) => sample.score)),
    cls: median(samples.map((sample) => sample.cls)),
    tbtMs: median(samples.map((sample) => sample.tbtMs)),
    lcpMs: median(samples.map((sample) => sample.lcpMs)),
    observedLcpMs: median(samples.map((sample) => sample.observedLcpMs)),
    bytes: median(samples.map((sample) => sample.bytes)),
    renderBlocking: [...new Set(samples.flatMap((sample) => sample.renderBlocking))],
  };
}

/** Click a product page's heart `clicks` times; per click, ms to the server's answer and to the heart's change. */
async function heartClicks() {
  // A browser of its own: Lighthouse's sessions leave the audited browser unusable for Playwright.
  const clickBrowser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  const context = await clickBrowser.newContext({
    viewport: { width: 1280, height: 900 },
    userAgent: DESKTOP_USER_AGENT,
  });
  const page = await context.newPage();
  await page.goto(`${platform.storefrontOrigin}/products/aurora-linen-shirt`);
  await page.waitForFunction("window.Wishlist !== undefined");
  await page.evaluate("window.Wishlist.get()");
  const answers: number[] = [];
  const repaints: number[] = [];
  for (let click = 0; click < clicks; click++) {
    const timing = (await page.evaluate(`new Promise((resolve) => {
      const button = document.querySelector("[data-wishlist-product-page] button");
      // The product page's button says what a press does and has no aria-pressed: data-saved is its state.
      const was = button.hasAttribute("data-saved");
      const seen = performance.getEntriesByType("resource").length;
      let clickedAt = 0;
      let changedAt = 0;
      new MutationObserver((_, observer) => {
        if (button.hasAttribute("data-saved") === was) return;
        observer.disconnect();
        requestAnimationFrame(() => setTimeout(() => { changedAt = performance.now(); }));
      }).observe(button, { attributes: true });
      const removeListener = window.Wishlist.on(() => {
        removeListener();
        // The answer's Resource Timing entry may be filed a moment after the script sees the answer.
        const settle = () => {
          const entry = performance.getEntriesByType("resource").slice(seen).find((candidate) => candidate.name.includes("/wishlist/items"));
          if (entry && changedAt) resolve({ answer: entry.responseEnd - clickedAt, repaint: changedAt - clickedAt });
          else setTimeout(settle, 5);
        };
        settle();
      });
      clickedAt = performance.now();
      button.click();
    })`)) as { answer: number; repaint: number };
    answers.push(timing.answer);
    repaints.push(timing.repaint);
  }
  await clickBrowser.close();
  const percentile = (values: number[], p: number) =>
    [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;
  return {
    answer: { p50: percentile(answers, 50), p95: percentile(answers, 95), max: Math.max(...answers) },
    repaint: { p50: percentile(repaints, 50), p95: percentile(repaints, 95), max: Math.max(...repaints) },
  };
}

try {
  const rows: string[] = [];
  for (const [name, pagePath] of [
    ["Collection", "/collections/all"],
    ["Product", "/products/aurora-linen-shirt"],
  ] as const) {
    const url = `${platform.storefrontOrigin}${pagePath}`;
    await setEmbed(false);
    const off = await medianAudit(url);
    await setEmbed(true);
    const on = await medianAudit(url);
    const ours = on.renderBlocking.filter((blocking) => !off.renderBlocking.includes(blocking));
    const met = off.score - on.score <= GOALS.scoreDrop && on.cls - off.cls <= GOALS.addedCls && ours.length === 0;
    rows.push(
      `| ${name} | ${off.score} -> ${on.score} (${on.score - off.score >= 0 ? "+" : ""}${on.score - off.score}) | ` +
        `${off.cls.toFixed(4)} -> ${on.cls.toFixed(4)} | ${off.tbtMs.toFixed(0)} -> ${on.tbtMs.toFixed(0)} | ` +
        `${off.lcpMs.toFixed(0)} -> ${on.lcpMs.toFixed(0)} | ${off.observedLcpMs.toFixed(0)} -> ${on.observedLcpMs.toFixed(0)} | ${ours.length ? ours.join(", ") : "none"} | ` +
        `${((on.bytes - off.bytes) / 1024).toFixed(1)} KB (${(off.bytes / 1024).toFixed(1)} -> ${(on.bytes / 1024).toFixed(1)}) | ${met ? "met" : "MISSED"} |`,
    );
  }
  await setEmbed(true);
  const heart = await heartClicks();
  const ms = (value: number) => value.toFixed(1);
  process.stdout.write(
    [
      `Lighthouse ${(await import("lighthouse/package.json", { with: { type: "json" } })).default.version} (desktop, performance), Chromium ${browser.version()}; median of ${runs} runs after one warm-up; app embed off (baseline) -> on.`,
      `Goals: score down by at most ${GOALS.scoreDrop}, CLS added ${GOALS.addedCls}, no render-blocking request added.`,
      "",
      "| Page | Score | CLS | TBT ms | LCP ms (simulated) | LCP ms (observed) | Render-blocking added | Bytes added (as served, uncompressed) | Goals |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
      ...rows,
      "",
      `Heart click on the product page, ${clicks} clicks (save, remove, ...): to the server's answer p50 ${ms(heart.answer.p50)} ms, p95 ${ms(heart.answer.p95)} ms, max ${ms(heart.answer.max)} ms; to the heart's change on screen p50 ${ms(heart.repaint.p50)} ms, p95 ${ms(heart.repaint.p95)} ms.`,
      "",
    ].join("\n"),
  );
} finally {
  await browser.close();
  await stop();
}
