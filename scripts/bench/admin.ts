/**
 * `npm run bench -- admin`: what each admin page costs a merchant, measured in Debian's Chromium on the
 * local admin (the platform stand-in framing the production build, the demo shop seeded): LCP and CLS of
 * the app frame (web-vitals), INP of the page's main interaction, and the JavaScript the page loads
 * (bytes as served and gzipped; whether recharts is among them). The baseline, in the same run and the
 * same browser: a bare HTML page with one heading and one button, framed the same way by a bare host
 * page. Goals (issue 13): LCP <= 1.0 s, CLS <= 0.05, INP <= 100 ms, recharts only on Analytics.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { chromium, type Frame, type Locator, type Page } from "playwright-core";
import { FORMATS } from "~/services/transfers/columns";
import { chromiumPath, CHROMIUM_ARGS, DESKTOP_USER_AGENT } from "../lib/chromium";
import { freePort, ROOT } from "./lib";
import { startLocalPlatform } from "./local-platform";

const GOALS = { lcpMs: 1000, cls: 0.05, inpMs: 100 };

/**
 * Each page, what shows it is ready, and its main interaction. Most interactions are a control inside the
 * app frame, where web-vitals measures INP. A page whose main action sits in the title bar (drawn by the
 * admin host page, outside the frame, as on the platform) is measured from the click in the host to the
 * next paint of the frame after its DOM changes: both clocks are the machine's, read as epoch time.
 */
interface AdminPage {
  name: string;
  path: string | ((frame: Frame) => Promise<string>);
  ready: (frame: Frame) => Locator;
  interaction?: { inFrame: (frame: Frame) => Locator } | { titleBar: string };
  /** What the interaction is, for the table. */
  does: string;
  charts?: boolean;
}

const PAGES: AdminPage[] = [
  {
    name: "Home",
    path: "",
    ready: (frame) => frame.getByRole("heading", { name: "Setup guide" }),
    interaction: { inFrame: (frame) => frame.getByRole("link", { name: "Open settings" }) },
    does: "Open settings (client navigation)",
  },
  {
    name: "Analytics",
    path: "/analytics",
    ready: (frame) => frame.getByRole("heading", { name: "Saves per day" }),
    interaction: { inFrame: (frame) => frame.getByRole("button", { name: "Show data table" }).first() },
    does: "Show a chart's data table",
    charts: true,
  },
  {
    name: "Lists",
    path: "/lists",
    ready: (frame) => frame.getByRole("table"),
    interaction: { inFrame: (frame) => frame.getByRole("button", { name: "Search and filter lists" }) },
    does: "Open the search and filters",
  },
  {
    name: "List",
    path: async (frame) => {
      const href = await frame.locator('a[href^="/app/lists/"]').first().getAttribute("href");
      if (!href) throw new Error("the demo shop shows no list to open");
      return href.replace(/^\/app/, "");
    },
    ready: (frame) => frame.getByRole("table"),
    does: "none (a read-only page: links lead to the platform admin)",
  },
  {
    name: "Settings",
    path: "/settings",
    ready: (frame) => frame.getByLabel("Guest wishlists", { exact: true }),
    interaction: { inFrame: (frame) => frame.getByText("Guest wishlists", { exact: true }) },
    does: "Tick a setting (the save bar shows)",
  },
  {
    name: "API keys",
    path: "/keys",
    ready: (frame) => frame.getByRole("button", { name: /^Copy/ }).first(),
    interaction: { titleBar: "Create key" },
    does: "Create key (title bar: the modal opens)",
  },
  {
    name: "Webhooks",
    path: "/webhooks",
    ready: (frame) => frame.getByText("Send wishlist events to your systems"),
    interaction: { titleBar: "Add endpoint" },
    does: "Add endpoint (title bar: the modal opens)",
  },
  {
    name: "Imports",
    path: "/imports",
    ready: (frame) => frame.getByText("Bring in wishlists from a file"),
    interaction: { titleBar: "New import" },
    does: "New import (title bar: client navigation)",
  },
  {
    name: "Import wizard",
    path: "/imports/new",
    ready: (frame) => frame.getByText("Step 1 of 3"),
    interaction: { inFrame: (frame) => frame.getByText(FORMATS.vendor_a.label, { exact: true }) },
    does: "Choose a source",
  },
  {
    name: "Exports",
    path: "/exports",
    // The empty state before the first export, the latest export after it (the interaction starts one).
    ready: (frame) => frame.getByText(/^(Export every saved item as a CSV file|Latest export)$/).first(),
    interaction: { titleBar: "Export CSV" },
    does: "Export CSV (title bar: the job starts)",
  },
];

const runs = Number(process.argv.find((arg) => arg.startsWith("--runs="))?.slice(7) ?? 3);

const { appUrl, platform, shopDomain, stop } = await startLocalPlatform("admin");

// The baseline: a bare host page framing a bare page, from one tiny server.
const bare = createServer((request, response) => {
  response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  response.end(
    request.url === "/frame"
      ? '<!doctype html><html lang="en"><head><title>Bare</title></head><body><h1>Bare page</h1><p>One heading, one button.</p><button type="button" onclick="this.textContent=\'Clicked\'">Click</button></body></html>'
      : '<!doctype html><html lang="en"><head><title>Host</title></head><body style="margin:0"><iframe id="app-frame" title="bare" src="/frame" style="width:100%;height:800px;border:0"></iframe></body></html>',
  );
});
const barePort = await freePort();
await new Promise<void>((resolve) => bare.listen(barePort, "127.0.0.1", resolve));

const webVitals = readFileSync(path.join(ROOT, "node_modules/web-vitals/dist/web-vitals.iife.js"), "utf8");
// Runs in every frame before its own scripts: records the latest value of each metric.
const collector = `${webVitals}
window.__vitals = {};
// Layout shifts before the interaction: the page's own. Measured here, the shifts a click causes inside the
// app frame (Analytics' data table opening) arrive without hadRecentInput, so web-vitals' CLS counts them.
window.__loadShift = 0;
window.__interacting = false;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (!window.__interacting && !entry.hadRecentInput) window.__loadShift += entry.value;
}).observe({ type: "layout-shift", buffered: true });
for (const name of ["onLCP", "onCLS", "onINP"]) {
  webVitals[name]((metric) => { window.__vitals[metric.name] = metric.value; }, { reportAllChanges: true, durationThreshold: 16 });
}
// Title-bar interactions: the host notes the click, the frame the first paint after its DOM next changes.
window.__clickAt = null;
window.__paintAt = null;
addEventListener("click", (event) => { window.__clickAt = performance.timeOrigin + event.timeStamp; }, true);
window.__armPaint = () => {
  const observer = new MutationObserver(() => {
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => { window.__paintAt = performance.timeOrigin + performance.now(); }));
  });
  observer.observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
};`;

interface PageFigures {
  /** The frame document's first byte and DOMContentLoaded, from its navigation start: where LCP time goes. */
  ttfbMs: number;
  dclMs: number;
  lcpMs: number;
  /** Layout shifts during the load, before the interaction (the goal's figure). */
  cls: number;
  /** web-vitals' CLS over the whole visit, the interaction's own shifts included. */
  clsWithInteraction: number;
  inpMs: number | null;
  jsBytes: number;
  jsGzipBytes: number;
  recharts: boolean;
}

const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });

interface Probe {
  ready: (frame: Frame) => Locator;
  interaction?: AdminPage["interaction"];
}

async function measure(url: string, probe: Probe, appOrigin: string): Promise<PageFigures> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, userAgent: DESKTOP_USER_AGENT });
  await context.addInitScript({ content: collector });
  const page = await context.newPage();
  const scripts: Array<Promise<Buffer | null>> = [];
  page.on("response", (response) => {
    if (response.request().resourceType() === "script" && response.url().startsWith(appOrigin)) {
      scripts.push(response.body().catch(() => null));
    }
  });
  await page.goto(url);
  const frame = await appFrameOf(page);
  await frame.waitForLoadState("load");
  await probe.ready(frame).waitFor({ state: "visible", timeout: 30_000 });
  // Let the largest paint settle, then interact: LCP stops updating at the first input.
  await page.waitForTimeout(500);
  let titleBarInpMs: number | null = null;
  const interaction = probe.interaction;
  const loadCls = (await frame.evaluate("window.__interacting = true, window.__loadShift")) as number;
  if (interaction && "inFrame" in interaction) {
    await interaction.inFrame(frame).click({ noWaitAfter: true });
  } else if (interaction) {
    await frame.evaluate("window.__armPaint()");
    await page.locator("#title-bar-actions button", { hasText: interaction.titleBar }).click({ noWaitAfter: true });
    await frame.waitForFunction("window.__paintAt !== null", undefined, { timeout: 30_000 });
    const clickAt = (await page.evaluate("window.__clickAt")) as number;
    titleBarInpMs = ((await frame.evaluate("window.__paintAt")) as number) - clickAt;
  }
  await page.waitForTimeout(500);
  // INP and CLS are reported when the page is hidden: switch away to flush them.
  await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
  const vitals = (await frame.evaluate("window.__vitals")) as Record<string, number>;
  const timing = (await frame.evaluate("JSON.stringify(performance.getEntriesByType('navigation')[0])")) as string;
  const navigation = JSON.parse(timing) as { responseStart: number; domContentLoadedEventEnd: number };
  const bodies = (await Promise.all(scripts)).filter((body): body is Buffer => body !== null);
  await context.close();
  return {
    ttfbMs: navigation.responseStart,
    dclMs: navigation.domContentLoadedEventEnd,
    lcpMs: vitals.LCP ?? Number.NaN,
    cls: loadCls,
    clsWithInteraction: vitals.CLS ?? 0,
    inpMs: titleBarInpMs ?? (interaction ? (vitals.INP ?? null) : null),
    jsBytes: bodies.reduce((sum, body) => sum + body.length, 0),
    jsGzipBytes: bodies.reduce((sum, body) => sum + gzipSync(body).length, 0),
    recharts: bodies.some((body) => body.includes("recharts-wrapper")),
  };
}

async function appFrameOf(page: Page): Promise<Frame> {
  const handle = await page.waitForSelector("#app-frame");
  const frame = await handle.contentFrame();
  if (!frame) throw new Error("no app frame");
  return frame;
}

const median = (values: number[]) => {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)]! : Number.NaN;
};

async function medianOf(url: string, probe: Probe, appOrigin: string): Promise<PageFigures> {
  // One unmeasured load first: the server's first answer of a route (module loading) is not a merchant's.
  await measure(url, probe, appOrigin);
  const samples: PageFigures[] = [];
  for (let run = 0; run < runs; run++) samples.push(await measure(url, probe, appOrigin));
  const inps = samples.map((sample) => sample.inpMs).filter((value): value is number => value !== null);
  return {
    ttfbMs: median(samples.map((sample) => sample.ttfbMs)),
    dclMs: median(samples.map((sample) => sample.dclMs)),
    lcpMs: median(samples.map((sample) => sample.lcpMs)),
    cls: median(samples.map((sample) => sample.cls)),
    clsWithInteraction: median(samples.map((sample) => sample.clsWithInteraction)),
    inpMs: inps.length ? median(inps) : null,
    jsBytes: samples[0]!.jsBytes,
    jsGzipBytes: samples[0]!.jsGzipBytes,
    recharts: samples.some((sample) => sample.recharts),
  };
}

/** A page reached from another (a list from the Lists page): its path, read off the page that links to it. */
async function resolvePath(find: (frame: Frame) => Promise<string>): Promise<string> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, userAgent: DESKTOP_USER_AGENT });
  try {
    const page = await context.newPage();
    await page.goto(platform.adminUrl(shopDomain, "/lists"));
    const frame = await appFrameOf(page);
    await frame.getByRole("table").waitFor({ state: "visible", timeout: 30_000 });
    return await find(frame);
  } finally {
    await context.close();
  }
}

try {
  const bareButton = (frame: Frame) => frame.getByRole("button", { name: "Click" });
  const baseline = await medianOf(
    `http://127.0.0.1:${barePort}/`,
    { ready: bareButton, interaction: { inFrame: bareButton } },
    `http://127.0.0.1:${barePort}`,
  );
  const rows: string[] = [];
  const kb = (bytes: number) => (bytes / 1024).toFixed(0);
  const ms = (value: number | null) => (value === null || !Number.isFinite(value) ? "n/a" : value.toFixed(0));
  const ratio = (value: number | null, base: number | null) =>
    value === null || base === null || !base ? "" : ` (${(value / base).toFixed(1)}x)`;
  for (const adminPage of PAGES) {
    const appPath = typeof adminPage.path === "string" ? adminPage.path : await resolvePath(adminPage.path);
    const figures = await medianOf(platform.adminUrl(shopDomain, appPath), adminPage, appUrl);
    const met =
      figures.lcpMs <= GOALS.lcpMs &&
      figures.cls <= GOALS.cls &&
      (figures.inpMs === null || figures.inpMs <= GOALS.inpMs) &&
      figures.recharts === Boolean(adminPage.charts);
    rows.push(
      `| ${adminPage.name} | ${ms(figures.ttfbMs)} | ${ms(figures.dclMs)} | ${ms(figures.lcpMs)}${ratio(figures.lcpMs, baseline.lcpMs)} | ${figures.cls.toFixed(3)} (${figures.clsWithInteraction.toFixed(3)}) | ` +
        `${ms(figures.inpMs)} | ${adminPage.does} | ${kb(figures.jsBytes)} / ${kb(figures.jsGzipBytes)} | ${figures.recharts ? "yes" : "no"} | ${met ? "met" : "MISSED"} |`,
    );
  }
  process.stdout.write(
    [
      `Admin pages in Chromium ${browser.version()}, median of ${runs} loads each after one warm-up (LCP and CLS of the app frame, INP of one click).`,
      `Goals: LCP <= ${GOALS.lcpMs} ms, CLS <= ${GOALS.cls}, INP <= ${GOALS.inpMs} ms, recharts only on Analytics.`,
      "",
      "INP n/a: the interaction's next paint came within 16 ms (web-vitals' smallest threshold), or the page has no interaction.",
      "",
      "| Page | TTFB ms | DCL ms | LCP ms (x bare) | CLS load (with interaction) | INP ms | Interaction | JS KB raw / gzip | recharts | goals |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
      `| bare baseline | ${ms(baseline.ttfbMs)} | ${ms(baseline.dclMs)} | ${ms(baseline.lcpMs)} | ${baseline.cls.toFixed(3)} (${baseline.clsWithInteraction.toFixed(3)}) | ${ms(baseline.inpMs)} | Click a button | ${kb(baseline.jsBytes)} / ${kb(baseline.jsGzipBytes)} | no | |`,
      ...rows,
      "",
    ].join("\n"),
  );
} finally {
  await browser.close();
  bare.close();
  await stop();
}
