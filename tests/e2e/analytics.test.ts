import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Papa from "papaparse";
import type { FrameLocator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { ROOT } from "../../scripts/lib/databases";
import {
  appFrame,
  expectNoPageErrors,
  screenshot,
  seriousAccessibilityViolations,
  useAdminStack,
} from "./support/admin";

const stack = useAdminStack();

interface Activity {
  from: string;
  to: string;
  days: Array<{ date: string; adds: number; removes: number; activeShoppers: number }>;
  totals: { adds: number; removes: number; activeShoppers: number };
}

const DAY_MS = 86_400_000;
/**
 * A title a spreadsheet would run as a formula: the CSV must defuse it. The hat has it in the shop's catalogue
 * (set below): a title a shopper sends is never what the merchant's pages show (decision 029).
 */
const FORMULA_TITLE = '=HYPERLINK("https://attacker.example","Click")';

async function activityOf(range: string): Promise<Activity> {
  const response = await stack.api(`/analytics/activity?range=${range}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Activity;
}

/**
 * Changes on days 0, 2, 5, 12, 20 and 45 ago (so each range shows different figures), made through the
 * wishlist service with their dates; the worker folds their events into the rollups.
 */
beforeAll(async () => {
  const now = Date.now();
  const [shirt, coat, hat, boots] = stack.standInShop.products;
  hat!.title = FORMULA_TITLE;
  const changes: Array<[customerId: string, product: typeof shirt, daysAgo: number, title?: string]> = [
    ["7001", shirt, 45, shirt!.title],
    ["7002", coat, 20, coat!.title],
    ["7003", shirt, 12, shirt!.title],
    ["7003", shirt, 5], // a removal (toggled again)
    ["7004", hat, 5, FORMULA_TITLE],
    ["7001", coat, 2], // no title: the page asks the platform for it
    ["7005", shirt, 2, shirt!.title],
    ["7005", boots, 0, boots!.title],
    ["7002", shirt, 0, shirt!.title],
  ];
  for (const [index, [customerId, product, daysAgo, title]] of changes.entries()) {
    await toggleItem({
      shopId: stack.shop.id,
      owner: { kind: "customer", customerId },
      at: new Date(now - daysAgo * DAY_MS - (changes.length - index) * 60_000),
      item: { productId: product!.id, handle: product!.handle, ...(title ? { title } : {}) },
    });
  }
});

/** The worker has folded every seeded change into the rollups (the API reads the same ones as the page). */
async function rollupsCaughtUp() {
  await expect.poll(async () => (await activityOf("90d")).totals).toMatchObject({ adds: 8, removes: 1 });
}

/** The rows of the data table of a chart (opened with its disclosure), as [date, value] pairs. */
async function chartTable(app: FrameLocator, title: string): Promise<Array<[string, number]>> {
  const card = app.getByRole("region", { name: title });
  const toggle = card.getByRole("button", { name: "Show data table" });
  if (await toggle.isVisible()) await toggle.click();
  const rows = card.getByRole("table").getByRole("row");
  await rows.nth(1).waitFor();
  return (await rows.allInnerTexts()).slice(1).map((row) => {
    const [date, value] = row.split("\t").map((cell) => cell.trim());
    return [date!, Number(value)];
  });
}

/** How many points the chart of this card draws. */
const chartPoints = (app: FrameLocator, title: string) =>
  app.getByRole("region", { name: title }).locator(".recharts-line-dot").count();

async function download(page: Page, app: FrameLocator, button: string) {
  const [file] = await Promise.all([page.waitForEvent("download"), app.getByRole("button", { name: button }).click()]);
  const text = readFileSync((await file.path())!, "utf8");
  return { name: file.suggestedFilename(), rows: Papa.parse<string[]>(text.trim(), { skipEmptyLines: true }).data };
}

describe("Analytics", { timeout: 180_000 }, () => {
  it("charts the same daily figures as GET /v1/analytics/activity, for each range, with data tables and CSV", async () => {
    await rollupsCaughtUp();
    const { context, page, app } = await stack.openAdmin("/analytics");
    await app.getByRole("heading", { name: "Saves per day" }).waitFor({ timeout: 90_000 });

    // Default: the last 30 days.
    const month = await activityOf("30d");
    expect(month.days).toHaveLength(30);
    expect(month.totals).toMatchObject({ adds: 7, removes: 1 });
    expect(await app.getByRole("combobox", { name: "Date range" }).inputValue()).toBe("30d");
    expect(await app.getByRole("region", { name: "Totals" }).innerText()).toMatch(
      new RegExp(
        `Saves\\s+${month.totals.adds}\\s+Removals\\s+${month.totals.removes}\\s+Active shoppers\\s+${month.totals.activeShoppers}`,
      ),
    );
    expect(await chartTable(app, "Saves per day")).toEqual(month.days.map((day) => [day.date, day.adds]));
    expect(await chartTable(app, "Removals per day")).toEqual(month.days.map((day) => [day.date, day.removes]));
    expect(await chartTable(app, "Active shoppers per day")).toEqual(
      month.days.map((day) => [day.date, day.activeShoppers]),
    );
    await expect.poll(() => chartPoints(app, "Saves per day")).toBe(30);

    // The most saved products: names from the catalogue, as the worker's lookups saved them or as the page
    // asks the platform for them meanwhile.
    const [shirt, coat, hat, boots] = stack.standInShop.products;
    const top = app.getByRole("region", { name: "Most saved products" }).getByRole("table");
    const topRows = (await top.getByRole("row").allInnerTexts())
      .slice(1)
      .map((row) => row.split("\t").map((c) => c.trim()));
    expect(topRows).toEqual([
      [shirt!.title, shirt!.handle, "3", "1", "3"],
      [coat!.title, coat!.handle, "2", "0", "2"],
      [FORMULA_TITLE, hat!.handle, "1", "0", "1"],
      [boots!.title, boots!.handle, "1", "0", "1"],
    ]);
    // ... the same as the API's top products. The one save without a title is named by the worker from the
    // platform (product snapshots) within seconds; until then the page asks the platform itself.
    type TopProducts = { products: Array<{ productId: string; title: string | null; saves: number; savers: number }> };
    const topProducts = async () =>
      (await (await stack.api("/analytics/top-products?range=30d")).json()) as TopProducts;
    await expect
      .poll(async () => (await topProducts()).products.find((p) => p.productId === coat!.id)?.title, {
        timeout: 90_000,
      })
      .toBe(coat!.title);
    const apiTop = await topProducts();
    expect(apiTop.products.map((p) => [p.productId, p.title, p.saves, p.savers])).toEqual([
      [shirt!.id, shirt!.title, 3, 3],
      [coat!.id, coat!.title, 2, 2],
      [hat!.id, FORMULA_TITLE, 1, 1],
      [boots!.id, boots!.title, 1, 1],
    ]);

    // CSV of what is shown.
    const activityCsv = await download(page, app, "Daily activity (CSV)");
    expect(activityCsv.name).toBe(`wishlist-activity-${month.from}-to-${month.to}.csv`);
    expect(activityCsv.rows).toEqual([
      ["date", "saves", "removals", "active_shoppers"],
      ...month.days.map((day) => [day.date, String(day.adds), String(day.removes), String(day.activeShoppers)]),
    ]);
    const productsCsv = await download(page, app, "Most saved products (CSV)");
    expect(productsCsv.rows).toEqual([
      ["product_id", "title", "handle", "saves", "removals", "current_savers"],
      ...topRows.map(([title, handle, saves, removes, savers], index) => [
        apiTop.products[index]!.productId,
        // The formula guard: a leading ' keeps a spreadsheet from running the cell.
        title === FORMULA_TITLE ? `'${FORMULA_TITLE}` : title!,
        handle!,
        saves!,
        removes!,
        savers!,
      ]),
    ]);

    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await (await appFrame(page)).evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "analytics");

    // Another range: the address, the charts, the tables and the download follow.
    await app.getByRole("combobox", { name: "Date range" }).selectOption("7d");
    await page.waitForURL(/range=7d/, { timeout: 90_000 });
    const week = await activityOf("7d");
    expect(week.totals).toMatchObject({ adds: 5, removes: 1 });
    await expect.poll(() => chartTable(app, "Saves per day")).toEqual(week.days.map((day) => [day.date, day.adds]));
    expect(await chartTable(app, "Removals per day")).toEqual(week.days.map((day) => [day.date, day.removes]));
    await expect.poll(() => chartPoints(app, "Active shoppers per day")).toBe(7);
    expect((await download(page, app, "Daily activity (CSV)")).rows.slice(1)).toEqual(
      week.days.map((day) => [day.date, String(day.adds), String(day.removes), String(day.activeShoppers)]),
    );

    // The range survives a reload (it is in the address); 90 days reaches the oldest save.
    await page.reload();
    await app.getByRole("heading", { name: "Saves per day" }).waitFor({ timeout: 90_000 });
    expect(await app.getByRole("combobox", { name: "Date range" }).inputValue()).toBe("7d");
    await app.getByRole("combobox", { name: "Date range" }).selectOption("90d");
    // The page is read once the range is in the address: a table read before it belongs to the page leaving.
    await page.waitForURL(/range=90d/, { timeout: 90_000 });
    const quarter = await activityOf("90d");
    await expect.poll(() => chartTable(app, "Saves per day")).toEqual(quarter.days.map((day) => [day.date, day.adds]));
    expect(quarter.totals.adds).toBe(8);
    expectNoPageErrors(page);
    await context.close();
  });

  it("shows a warning, and the last 30 days, for a range it does not offer", async () => {
    await rollupsCaughtUp();
    const { context, page, app } = await stack.openAdmin("/analytics?range=365d");
    await app.getByText("Unknown date range").waitFor({ timeout: 90_000 });
    expect(await app.getByRole("combobox", { name: "Date range" }).inputValue()).toBe("30d");
    expect(await chartTable(app, "Saves per day")).toHaveLength(30);
    expectNoPageErrors(page);
    await context.close();
  });

  it("ships recharts to the browser with the pages of charts only (Analytics and Insights)", () => {
    const assets = path.join(ROOT, "build", "client", "assets");
    const manifestFile = readdirSync(assets).find((name) => /^manifest-.*\.js$/.test(name))!;
    const manifest = JSON.parse(
      readFileSync(path.join(assets, manifestFile), "utf8")
        .replace(/^window\.__remixManifest=/, "")
        .replace(/;\s*$/, ""),
    ) as {
      entry: { module: string; imports: string[] };
      routes: Record<string, { module: string; imports?: string[] }>;
    };
    const chunksOf = (entry: { module: string; imports?: string[] }) => [entry.module, ...(entry.imports ?? [])];
    // recharts names its chart wrapper with this class.
    const withRecharts = (chunk: string) =>
      readFileSync(path.join(ROOT, "build", "client", chunk), "utf8").includes("recharts-wrapper");

    const charted = ["routes/app.analytics", "routes/app.insights"];
    for (const id of charted) expect(chunksOf(manifest.routes[id]!).some(withRecharts)).toBe(true);
    const others = Object.entries(manifest.routes).filter(([id]) => !charted.includes(id));
    expect(others.map(([id]) => id)).toEqual(
      expect.arrayContaining(["routes/app._index", "routes/app.lists._index", "routes/app.lists.$id"]),
    );
    expect(
      [...chunksOf(manifest.entry), ...others.flatMap(([, route]) => chunksOf(route))].filter(withRecharts),
    ).toEqual([]);
  });
});
