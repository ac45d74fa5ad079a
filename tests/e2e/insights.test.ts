/**
 * The Insights page and Home's month revenue in the stand-in admin (issue 30, item 4): saves made through the
 * wishlist service, orders and a refund sent to the running web server as the platform signs its webhooks, the
 * real worker folding the saves into the rollups and reading the stand-in's catalogue (the restock list). The
 * page must show the report service's figures (tests/admin/insights-page.test.ts checks the same loader against
 * SQL on both engines), read in its cards and its data tables, for every range, and download them as CSV.
 */
import { readFileSync } from "node:fs";
import Papa from "papaparse";
import type { FrameLocator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { setShopPlan } from "../factories";
import { database } from "~/data/database.server";
import { formatMoney } from "~/lib/money";
import { utcDay } from "~/services/analytics/rollups.server";
import { conversionReport, demandReport, resolveRange } from "~/services/attribution/revenue-reports.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { until } from "../support/poll";
import { orderBody, orderWebhook, refundBody } from "../support/signed-orders";
import {
  appFrame,
  expectNoPageErrors,
  screenshot,
  seriousAccessibilityViolations,
  useAdminStack,
} from "./support/admin";
import { region, tableRows } from "./support/page-state";

const stack = useAdminStack();
// The demand section is the Growth plan's (tests/e2e/plan.test.ts shows it on Free).
beforeAll(() => setShopPlan(stack.shop.id, "GROWTH"));

const DAY_MS = 86_400_000;
const now = new Date();
const ago = (days: number) => new Date(now.getTime() - days * DAY_MS);
const dayAgo = (days: number) => utcDay(ago(days));
const usd = (minor: number) => formatMoney(minor, "USD", "en");

async function send(topic: string, body: unknown) {
  const response = await fetch(
    `${stack.appUrl}/webhooks/${topic}`,
    orderWebhook(topic, stack.shop.domain, body) as RequestInit,
  );
  expect(response.status).toBe(200);
}

async function save(
  owner: { customerId: string } | { anonymousId: string },
  index: number,
  at: Date,
  variantId?: string,
) {
  const product = stack.standInShop.products[index]!;
  await toggleItem({
    shopId: stack.shop.id,
    owner: "customerId" in owner ? { kind: "customer", ...owner } : { kind: "anonymous", ...owner },
    at,
    item: { productId: product.id, handle: product.handle, ...(variantId ? { variantId } : {}) },
  });
  return product;
}

const GUEST = "9d0c7b1a-3e2f-4a5b-8c6d-1e2f3a4b5c6d";

beforeAll(async () => {
  // 10 days ago: 7001 buys the shirt saved 2 days before.
  const shirt = await save({ customerId: "7001" }, 0, ago(12));
  await send(
    "orders/create",
    orderBody({
      customerId: "7001",
      createdAt: ago(10),
      lines: [{ productId: shirt.id, quantity: 1, price: "29.00" }],
    }),
  );
  // 15 days ago: 7003 buys the boots, later refunded.
  const boots = await save({ customerId: "7003" }, 3, ago(20));
  const refunded = orderBody({
    customerId: "7003",
    createdAt: ago(15),
    lines: [{ productId: boots.id, quantity: 1, price: "50.00" }],
  });
  await send("orders/create", refunded);
  await send("refunds/create", refundBody(refunded, [{ line: 0, quantity: 1, subtotal: "50.00" }]));
  // 2 days ago: 7002 buys two coats.
  const coat = await save({ customerId: "7002" }, 1, ago(5));
  await send(
    "orders/create",
    orderBody({ customerId: "7002", createdAt: ago(2), lines: [{ productId: coat.id, quantity: 2, price: "36.00" }] }),
  );
  // Yesterday: a guest buys the hat, matched by the wishlist its cart names.
  const hat = await save({ anonymousId: GUEST }, 2, ago(3));
  // The value the guest's storefront writes into the cart's hidden attribute, as the storefront API gives it.
  const read = await fetch(`${stack.appUrl}/v1/storefront/wishlist?aid=${GUEST}`, {
    headers: { "X-Service-Shop": stack.shop.domain, "X-Service-Public-Key": stack.shop.publicKey },
  });
  const { cartAttribute } = (await read.json()) as { cartAttribute: string };
  await send(
    "orders/create",
    orderBody({
      guestListId: cartAttribute,
      createdAt: ago(1),
      lines: [{ productId: hat.id, quantity: 1, price: "43.00" }],
    }),
  );
  // Demand: the rain jacket saved by three and bought by none; the tote (sold out) and the sweater's Large
  // (sold out) wait for a restock.
  for (const customerId of ["7001", "7002", "7004"]) await save({ customerId }, 5, ago(6));
  for (const customerId of ["7004", "7005"]) await save({ customerId }, 7, ago(4));
  await save({ customerId: "7003" }, 6, ago(4), "9300000007");
}, 120_000);

/** The worker has relayed the saves and read the saved products from the stand-in's catalogue. */
async function workerCaughtUp() {
  const range = resolveRange({ range: "30d" });
  await until(
    async () => (await demandReport(stack.shop.id, range)).restock.length,
    (rows) => rows === 2,
    "the restock list read from the stand-in's catalogue",
  );
  await until(
    async () => {
      const row = await database()
        .selectFrom("Event")
        .select((eb) => eb.fn.countAll<number>().as("pending"))
        .where("shopId", "=", stack.shop.id)
        .where("dispatchedAt", "is", null)
        .executeTakeFirstOrThrow();
      return Number(row.pending);
    },
    (pending) => pending === 0,
    "the saves folded into the rollups",
  );
}

/** The daily chart's data table, opened with its disclosure. */
async function dailyTable(app: FrameLocator): Promise<string[][]> {
  const card = region(app, "Net revenue per day (USD)");
  const toggle = card.getByRole("button", { name: "Show data table" });
  if (await toggle.isVisible()) await toggle.click();
  return tableRows(app, "Net revenue per day (USD)");
}

async function download(page: Page, app: FrameLocator, button: string) {
  const [file] = await Promise.all([page.waitForEvent("download"), app.getByRole("button", { name: button }).click()]);
  const text = readFileSync((await file.path())!, "utf8");
  return { name: file.suggestedFilename(), rows: Papa.parse<string[]>(text.trim(), { skipEmptyLines: true }).data };
}

describe("Insights", { timeout: 300_000 }, () => {
  it("shows the influenced revenue, its tables and downloads, for each range, as the report service counts them", async () => {
    await workerCaughtUp();
    const month = await conversionReport(stack.shop.id, resolveRange({ range: "30d" }));
    // Shirt 29.00, coats 2 x 36.00, hat 43.00; the boots were refunded.
    expect(month.revenue).toEqual([{ currency: "USD", grossMinor: 19_400, refundedMinor: 5_000, netMinor: 14_400 }]);

    const { context, page, app } = await stack.openAdmin("/insights");
    const revenue = region(app, "Wishlist-influenced revenue");
    await revenue.waitFor({ timeout: 90_000 });
    expect(await app.getByRole("combobox", { name: "Date range" }).inputValue()).toBe("30d");
    expect(await revenue.innerText()).toContain(usd(14_400));
    expect(await revenue.innerText()).toContain(`${usd(19_400)} ordered, ${usd(5_000)} refunded.`);
    expect(await region(app, "Orders").innerText()).toMatch(/\b4\b[\s\S]*4 placed, 0 of them cancelled/);
    // Buyers 7001, 7002, 7003 (refunded, not cancelled) and the guest, of the 6 shoppers who saved (7004 and
    // 7005 too).
    expect(month).toMatchObject({ buyers: 4, savers: 6, conversionRate: 0.6667 });
    expect(await region(app, "Conversion rate").innerText()).toContain("66.7%");
    expect(await region(app, "Conversion rate").innerText()).toContain("Buyers 4, savers 6");

    // The daily chart's data table: every day of the range, as the report gives them.
    expect(await dailyTable(app)).toEqual(month.days.map((day) => [day.date, usd(day.netMinor), String(day.orders)]));
    expect((await dailyTable(app)).find((row) => row[0] === dayAgo(2))).toEqual([dayAgo(2), "$72.00", "1"]);
    // The chart draws the same 30 days.
    await expect.poll(() => region(app, "Net revenue per day (USD)").locator(".recharts-line-dot").count()).toBe(30);

    // Revenue by source: a bar chart and its table side by side.
    expect(await tableRows(app, "Revenue after alerts and reminders")).toEqual([
      ["No alert or reminder", usd(14_400), "4"],
      ["Back-in-stock alert", usd(0), "0"],
      ["Price-drop alert", usd(0), "0"],
      ["Low-stock alert", usd(0), "0"],
      ["Reminder", usd(0), "0"],
    ]);
    await expect
      .poll(() => region(app, "Revenue after alerts and reminders").locator(".recharts-bar-rectangle").count())
      .toBeGreaterThan(0);

    const [shirt, coat, hat, boots, , jacket, sweater, tote] = stack.standInShop.products;
    expect(await tableRows(app, "Top converting products")).toEqual([
      [coat!.title, coat!.handle, "1", "2", usd(7_200)],
      [hat!.title, hat!.handle, "1", "1", usd(4_300)],
      [shirt!.title, shirt!.handle, "1", "1", usd(2_900)],
      [boots!.title, boots!.handle, "1", "1", usd(0)],
    ]);
    expect((await tableRows(app, "Saved often, rarely bought"))[0]).toEqual([
      jacket!.title,
      jacket!.handle,
      "3",
      "0",
      "0%",
      "3",
    ]);
    expect(await tableRows(app, "Restock list")).toEqual([
      [tote!.title, "Default Title", "0", "2"],
      [sweater!.title, "Large", "0", "1"],
    ]);

    // The downloads: the table shown, and the restock list as its own file.
    const daily = await download(page, app, "Revenue per day (CSV)");
    expect(daily.name).toBe(`wishlist-revenue-${month.from}-to-${month.to}.csv`);
    expect(daily.rows).toEqual([
      ["date", "currency", "net_revenue", "orders"],
      ...month.days.map((day) => [day.date, "USD", (day.netMinor / 100).toFixed(2), String(day.orders)]),
    ]);
    const restock = await download(page, app, "Restock list (CSV)");
    expect(restock.rows.slice(1).map((row) => [row[0], row[1], row[5], row[6]])).toEqual([
      [tote!.id, "9100000008", "0", "2"],
      [sweater!.id, "9300000007", "0", "1"],
    ]);

    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await (await appFrame(page)).evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "insights");

    // The last 7 days: the coats and the hat.
    await app.getByRole("combobox", { name: "Date range" }).selectOption("7d");
    await page.waitForURL(/range=7d/, { timeout: 90_000 });
    const week = await conversionReport(stack.shop.id, resolveRange({ range: "7d" }));
    expect(week.revenue[0]!.netMinor).toBe(11_500);
    await expect.poll(() => revenue.innerText()).toContain(usd(11_500));
    await expect.poll(async () => (await dailyTable(app)).length).toBe(7);
    expect(await dailyTable(app)).toEqual(week.days.map((day) => [day.date, usd(day.netMinor), String(day.orders)]));
    expect((await download(page, app, "Revenue per day (CSV)")).name).toBe(
      `wishlist-revenue-${week.from}-to-${week.to}.csv`,
    );

    // A custom range: dates the wrong way round are named on their field, and the page keeps showing figures.
    await app.getByRole("combobox", { name: "Date range" }).selectOption("custom");
    await app.getByLabel("From", { exact: true }).fill(dayAgo(3));
    await app.getByLabel("To", { exact: true }).fill(dayAgo(12));
    await app.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/range=custom/, { timeout: 90_000 });
    await app.getByText("The start must be on or before the end.").waitFor({ timeout: 90_000 });
    expect(await app.getByLabel("From", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(await app.getByText("These dates cannot be shown").isVisible()).toBe(true);
    expect(await revenue.innerText()).toContain(usd(14_400));
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // Corrected: 12 to 3 days ago holds the shirt's order only.
    await app.getByLabel("From", { exact: true }).fill(dayAgo(12));
    await app.getByLabel("To", { exact: true }).fill(dayAgo(3));
    await app.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(new RegExp(`from=${dayAgo(12)}`), { timeout: 90_000 });
    await expect.poll(() => revenue.innerText()).toContain(usd(2_900));
    expect(await app.getByText("The start must be on or before the end.").count()).toBe(0);
    expect(await dailyTable(app)).toHaveLength(10);
    const custom = await download(page, app, "Revenue per day (CSV)");
    expect(custom.name).toBe(`wishlist-revenue-${dayAgo(12)}-to-${dayAgo(3)}.csv`);
    expect(custom.rows.slice(1).reduce((sum, row) => sum + Number(row[2]), 0)).toBe(29);

    // Days without an order: the page explains how orders are matched to saves.
    await app.getByLabel("From", { exact: true }).fill(dayAgo(90));
    await app.getByLabel("To", { exact: true }).fill(dayAgo(60));
    await app.getByRole("button", { name: "Apply" }).click();
    await app.getByText("No wishlist-influenced orders in these days").waitFor({ timeout: 90_000 });
    expect(await app.getByText("hidden attribute to the cart that names the guest's wishlist").isVisible()).toBe(true);
    // The restock list does not depend on the dates.
    expect(await tableRows(app, "Restock list")).toHaveLength(2);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, "insights-empty");
    expectNoPageErrors(page);
    await context.close();
  });

  it("shows this month's influenced revenue on Home beside the saves, leading to Insights", async () => {
    await workerCaughtUp();
    const today = utcDay(new Date());
    const month = await conversionReport(stack.shop.id, { from: `${today.slice(0, 8)}01`, to: today });
    const { context, page, app } = await stack.openAdmin();
    const usage = region(app, "Usage");
    await usage.waitFor({ timeout: 90_000 });
    const expected = month.revenue[0] ? usd(month.revenue[0].netMinor) : "None yet";
    expect(await usage.innerText()).toMatch(
      new RegExp(`Saves in the last 30 days\\s+\\d+\\s+Wishlist-influenced revenue this month\\s+${escape(expected)}`),
    );
    expect(await usage.innerText()).toContain(`Net, ${today.slice(0, 8)}01 to ${today} (UTC)`);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, "home-revenue");
    await usage.getByRole("link", { name: "View insights" }).click();
    await region(app, "Restock list").waitFor({ timeout: 90_000 });
    expectNoPageErrors(page);
    await context.close();
  });
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
