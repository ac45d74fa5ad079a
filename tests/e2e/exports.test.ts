import { readFileSync } from "node:fs";
import path from "node:path";
import Papa from "papaparse";
import type { FrameLocator } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/databases";
import { expectNoPageErrors, screenshot, seriousAccessibilityViolations, useAdminStack } from "./support/admin";
import { interactive } from "./support/interactive";

const stack = useAdminStack();

// Customers 7001-7005 are the stand-in shop's (stand-in/demo-data.ts), so the file's four good rows import.
const VENDOR_A_FILE = path.join(ROOT, "tests/fixtures/imports/vendor_a-demo-customers.csv");

/** Imports the fixture through /v1 (upload, PUT, import), as a script would, and waits for the job. */
async function importThroughApi() {
  const target = (await (
    await stack.api("/imports/upload", {
      method: "POST",
      body: JSON.stringify({ filename: "wishlists.csv", contentType: "text/csv" }),
    })
  ).json()) as { uploadUrl: string; headers: Record<string, string>; fileUrl: string };
  const put = await fetch(target.uploadUrl, {
    method: "PUT",
    headers: target.headers,
    body: readFileSync(VENDOR_A_FILE),
  });
  expect(put.status).toBe(200);
  const { jobId } = (await (
    await stack.api("/imports", {
      method: "POST",
      body: JSON.stringify({ source: "vendor_a", fileUrl: target.fileUrl, dryRun: false }),
    })
  ).json()) as { jobId: string };
  await expect
    .poll(async () => ((await (await stack.api(`/imports/${jobId}`)).json()) as { status: string }).status, {
      timeout: 90_000,
    })
    .toBe("succeeded");
}

async function exportJobs() {
  const page = (await (await stack.api("/exports?limit=100")).json()) as { data: Array<{ status: string }> };
  return page.data;
}

/** The latest export's link (the past exports' links are named by their file alone). */
function downloadLink(app: FrameLocator) {
  return app.getByRole("link", { name: /^Download wishlist-export-job_\w+\.csv$/ });
}

describe("the Exports page", () => {
  it("exports the saved items as generic CSV: live status, then a download link to the file", async () => {
    const { context, page, app } = await stack.openAdmin("/exports");
    await app.getByText("Export every saved item as a CSV file").waitFor({ timeout: 90_000 });
    expect(await exportJobs()).toEqual([]);
    await importThroughApi();

    await interactive(app.locator("ui-title-bar button", { hasText: "Export CSV" }));
    await page.locator("#title-bar-actions button", { hasText: "Export CSV" }).click();
    await page.locator(".admin-toast", { hasText: "Export started" }).waitFor({ timeout: 90_000 });

    // The page follows the job by itself (no reload) until its file is there.
    const link = downloadLink(app);
    await link.waitFor({ timeout: 90_000 });
    expect(await app.getByText("4 items exported.").isVisible()).toBe(true);
    const response = await fetch((await link.getAttribute("href"))!);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/csv/);
    const { data } = Papa.parse<string[]>((await response.text()).trimEnd(), { newline: "\r\n" });
    expect(data[0]).toEqual([
      ...["customer_id", "anonymous_id", "product_id", "variant_id", "handle", "added_at"],
      ...["list_name", "note", "quantity"],
    ]);
    expect(
      data
        .slice(1)
        .map(([customerId, anonymousId, productId, , handle]) => [customerId, anonymousId, productId, handle])
        .sort((a, b) => a.join().localeCompare(b.join())),
    ).toEqual([
      ["7001", "", "8100000001", "aurora-linen-shirt"],
      ["7001", "", "8100000006", "summit-rain-jacket"],
      ["7002", "", "8100000002", "harbor-wool-coat"],
      ["7003", "", "8100000003", "meadow-sun-hat"],
    ]);

    // Listed with its status; a second export joins the list, newest first.
    const rows = app.locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toMatch(/Succeeded.*4.*wishlist-export-job_/);
    await page.locator("#title-bar-actions button", { hasText: "Export CSV" }).click();
    await expect.poll(() => rows.count()).toBe(2);
    await expect.poll(async () => (await exportJobs()).map((job) => job.status)).toEqual(["succeeded", "succeeded"]);
    await expect.poll(() => rows.first().textContent()).toMatch(/Succeeded.*4.*wishlist-export/);

    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await screenshot(page, "exports");
    await context.close();
  }, 180_000);

  it("exports for marketing: each customer's saves with their email and name, read from the platform", async () => {
    const { context, page, app } = await stack.openAdmin("/exports");
    await app.getByText("Latest export").waitFor({ timeout: 90_000 });
    const before = (await exportJobs()).length;

    await interactive(app.locator("ui-title-bar button", { hasText: "Export for marketing" }));
    await page.locator("#title-bar-actions button", { hasText: "Export for marketing" }).click();
    await page.locator(".admin-toast", { hasText: "Export started" }).waitFor({ timeout: 90_000 });

    const link = app.getByRole("link", { name: /^Download wishlist-marketing-job_\w+\.csv$/ });
    await link.waitFor({ timeout: 90_000 });
    await app.getByText(/^Marketing export, started .* Customers' saved items with their emails and names/).waitFor();
    await app.getByText(/and at once when one of its customers asks to be erased/).waitFor();
    expect(await exportJobs()).toHaveLength(before + 1);
    const response = await fetch((await link.getAttribute("href"))!);
    expect(response.status).toBe(200);
    const { data } = Papa.parse<string[]>((await response.text()).trimEnd(), { newline: "\r\n" });
    expect(data[0]).toEqual([
      "customer_id",
      "email",
      "first_name",
      "last_name",
      "product_id",
      "product_title",
      "variant_id",
      "variant_title",
      "price",
      "currency",
      "added_at",
    ]);
    // Names, emails, titles and prices as the stand-in platform holds them (stand-in/demo-data.ts).
    expect(
      data
        .slice(1)
        .map((row) => row.slice(0, 10))
        .sort((a, b) => a.join().localeCompare(b.join())),
    ).toEqual([
      ["7001", "ada@example.com", "Ada", "Lovelace", "8100000001", "Aurora Linen Shirt", "", "", "29.00", "USD"],
      ["7001", "ada@example.com", "Ada", "Lovelace", "8100000006", "Summit Rain Jacket", "", "", "64.00", "USD"],
      ["7002", "grace@example.com", "Grace", "Hopper", "8100000002", "Harbor Wool Coat", "", "", "36.00", "USD"],
      ["7003", "alan@example.com", "Alan", "Turing", "8100000003", "Meadow Sun Hat", "", "", "43.00", "USD"],
    ]);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();
  }, 180_000);
});
