import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { FORMATS } from "~/services/transfers/columns";
import { ROOT } from "../../scripts/lib/databases";
import { expectNoPageErrors, screenshot, seriousAccessibilityViolations, useAdminStack } from "./support/admin";
import { interactive } from "./support/interactive";

const stack = useAdminStack();

// Customers 7001-7005 are the stand-in shop's (stand-in/demo-data.ts); lines 5-7 name nobody of it or no product.
const VENDOR_A_FILE = path.join(ROOT, "tests/fixtures/imports/vendor_a-demo-customers.csv");
const GENERIC_FILE = path.join(ROOT, "tests/fixtures/imports/generic.csv");
const IMPORTED = [
  ["7001", "8100000001"],
  ["7001", "8100000006"],
  ["7002", "8100000002"],
  ["7003", "8100000003"],
];

const scratch = mkdtempSync(path.join(tmpdir(), "imports-e2e-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The title bar's button, drawn by the admin outside the frame, once the app's own button reacts. */
async function titleBarButton(page: Page, app: FrameLocator, label: string) {
  await interactive(app.locator("ui-title-bar button", { hasText: label }));
  return page.locator("#title-bar-actions button", { hasText: label });
}

/** Saved items of the shop as [customer id, product id] pairs, read through /v1. */
async function savedItems() {
  const page = (await (await stack.api("/lists?limit=100")).json()) as {
    data: Array<{ id: string; owner: { customerId?: string } }>;
  };
  const items: string[][] = [];
  for (const summary of page.data) {
    const list = (await (await stack.api(`/lists/${summary.id}`)).json()) as { items: Array<{ productId: string }> };
    for (const item of list.items) items.push([summary.owner.customerId ?? "guest", item.productId]);
  }
  return items.sort((a, b) => a.join().localeCompare(b.join()));
}

async function importJobs() {
  const page = (await (await stack.api("/imports?limit=100")).json()) as {
    data: Array<{ dryRun: boolean; status: string; imported: number | null }>;
  };
  return page.data;
}

async function uploadCount() {
  const row = await database()
    .selectFrom("Upload")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("shopId", "=", stack.shop.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Step 2 of the wizard: the file goes into the drop zone. */
async function chooseFile(app: FrameLocator, file: string) {
  const input = await interactive(app.locator("input[type=file]"));
  await input.setInputFiles(file);
}

/** The skipped rows table as [line, reason] pairs. */
async function skippedRows(app: FrameLocator) {
  // The report's one table.
  const rows = await app
    .locator("table tbody tr")
    .evaluateAll((nodes) =>
      nodes.map((row) => [...row.querySelectorAll("th, td")].slice(0, 2).map((cell) => cell.textContent?.trim())),
    );
  return rows;
}

/** Uploads `file` for `source` through step 2 and waits for the dry run's report. */
async function uploadAndCheck(app: FrameLocator, file: string) {
  await chooseFile(app, file);
  await app.getByText(path.basename(file)).waitFor();
  await (await interactive(app.getByRole("button", { name: "Upload and check" }))).click();
  await app
    .getByText(/^(Dry run finished: nothing has been written yet|The dry run failed)$/)
    .waitFor({ timeout: 90_000 });
}

describe("the import wizard", () => {
  it("refuses a 60 MB file and a file that is not CSV in the browser: inline errors, nothing uploaded", async () => {
    const tooLarge = path.join(scratch, "wishlists-60mb.csv");
    writeFileSync(tooLarge, Buffer.alloc(60 * 1024 * 1024, "a"));
    const picture = path.join(scratch, "wishlists.png");
    writeFileSync(picture, Buffer.from("89504e470d0a1a0a", "hex"));

    const { context, page, app } = await stack.openAdmin("/imports/new?source=vendor_a");
    // What the app's frame sends to the app (the admin's own session-token requests are not the app's).
    const sent: string[] = [];
    page.on("request", (request) => {
      if (request.method() !== "GET" && request.url().startsWith(stack.appUrl)) {
        sent.push(`${request.method()} ${request.url()}`);
      }
    });
    await app.getByText("Step 2 of 3: upload the file").waitFor({ timeout: 90_000 });
    const upload = app.getByRole("button", { name: "Upload and check" });

    await chooseFile(app, tooLarge);
    await expect
      .poll(() => app.locator(".Polaris-InlineError").textContent())
      .toBe(
        '"wishlists-60mb.csv" is 60.0 MB; imports take files of at most 50.0 MB. Split it into smaller files and import each one.',
      );
    expect(await upload.isDisabled()).toBe(true);

    await chooseFile(app, picture);
    await expect
      .poll(() => app.locator(".Polaris-InlineError").textContent())
      .toBe('"wishlists.png" is not a CSV file. Choose a .csv file (comma-separated values).');
    expect(await upload.isDisabled()).toBe(true);

    expect(sent).toEqual([]);
    expect(await uploadCount()).toBe(0);
    expect(await importJobs()).toEqual([]);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();
  }, 180_000);

  it("asks for a source when Continue is pressed without one, and answers an unknown import with a banner", async () => {
    const { context, page, app } = await stack.openAdmin("/imports/new");
    await app.getByText("Step 1 of 3").waitFor({ timeout: 90_000 });
    await (await interactive(app.getByRole("button", { name: "Continue" }))).click();
    await app.getByText("Choose where the file comes from.").waitFor({ timeout: 90_000 });
    expect(await app.getByText("Step 2 of 3").count()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();

    const unknown = await stack.openAdmin("/imports/job_01jd2x6c5ef0q8w3d0s8b2n7k4");
    const banner = unknown.app.locator(".Polaris-Banner", { hasText: "This import could not be shown" });
    await banner.waitFor({ timeout: 90_000 });
    expect(await banner.textContent()).toContain('No import with the id "job_01jd2x6c5ef0q8w3d0s8b2n7k4" exists');
    expect(await seriousAccessibilityViolations(unknown.page)).toEqual([]);
    // The page itself answers 404; nothing else fails.
    expectNoPageErrors(unknown.page, [/^HTTP 404 GET .*\/app\/imports\/job_01jd2x6c5ef0q8w3d0s8b2n7k4\?/]);
    await unknown.context.close();
  }, 180_000);

  it("imports a vendor_a file: dry run report with the skipped lines and nothing written, then the import", async () => {
    expect(await savedItems()).toEqual([]);
    const { context, page, app } = await stack.openAdmin("/imports");
    const puts: Array<{ url: string; status: number; type: string | undefined }> = [];
    page.on("requestfinished", async (request) => {
      if (request.method() !== "PUT") return;
      const response = await request.response();
      puts.push({ url: request.url(), status: response?.status() ?? 0, type: request.headers()["content-type"] });
    });
    await app.getByText("Bring in wishlists from a file").waitFor({ timeout: 90_000 });
    await (await titleBarButton(page, app, "New import")).click();

    // Step 1: each source with its header rows, as the import reads them (app/services/transfers/columns.ts).
    await app.getByText("Step 1 of 3").waitFor({ timeout: 90_000 });
    for (const variant of FORMATS.vendor_a.variants) {
      await app.getByText(Object.values(variant.headers).join(","), { exact: true }).waitFor();
    }
    // Named by what the file looks like, not by a made-up vendor (no app's published export matched).
    expect(await app.getByText(/Vendor [AB]/).count()).toBe(0);
    // Polaris draws the radio over the input: a merchant clicks its label.
    await app.locator("label", { hasText: FORMATS.vendor_a.label }).click();
    expect(await app.getByLabel(FORMATS.vendor_a.label).isChecked()).toBe(true);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, "import-source");
    await app.getByRole("button", { name: "Continue" }).click();

    // Step 2: the file goes straight to its signed upload URL, then the dry run starts.
    await app.getByText(`Source: ${FORMATS.vendor_a.label}`).waitFor({ timeout: 90_000 });
    await uploadAndCheck(app, VENDOR_A_FILE);
    expect(puts).toEqual([{ url: expect.stringContaining("/files/imports/"), status: 200, type: "text/csv" }]);
    expect(await uploadCount()).toBe(1);

    // The dry run's report: totals, the column nothing takes, each skipped row's line; nothing written.
    await app.getByText("Dry run finished: nothing has been written yet").waitFor();
    await app.getByText("4 items would be imported, 0 already saved and 3 rows skipped.").waitFor();
    await app.getByText(`File: ${path.basename(VENDOR_A_FILE)}`).waitFor();
    // Its `Wishlist Name` column is placed (issue 28: list names), so no column is left unplaced.
    await app.getByText("Wishlist Name").first().waitFor();
    expect(await skippedRows(app)).toEqual([
      ["5", "Customer not found"],
      ["6", "Unreadable product id"],
      ["7", "Customer id not found"],
    ]);
    expect(await savedItems()).toEqual([]);
    expect(await importJobs()).toMatchObject([{ dryRun: true, status: "succeeded", imported: 4 }]);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await app.getByRole("heading", { name: "Skipped rows" }).scrollIntoViewIfNeeded();
    await screenshot(page, "import-dry-run-report");

    // Confirmed: the real import of the same upload, its totals and its report.
    await app.getByRole("button", { name: "Import 4 items" }).click();
    await app.getByText("Import finished").waitFor({ timeout: 90_000 });
    await app.getByText("4 items imported, 0 already saved and 3 rows skipped.").waitFor();
    const reportLink = app.getByRole("link", { name: "Download the full report (JSON)" });
    const report = (await (await fetch((await reportLink.getAttribute("href"))!)).json()) as {
      dryRun: boolean;
      totals: { imported: number; skipped: number };
      issues: Array<{ line: number }>;
    };
    expect(report).toMatchObject({ dryRun: false, totals: { imported: 4, skipped: 3 } });
    expect(report.issues.map((issue) => issue.line).sort()).toEqual([5, 6, 7]);
    expect(await savedItems()).toEqual(IMPORTED);
    expect(await uploadCount()).toBe(1);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, "import-result");

    // Back on the dry run, it links to its import instead of offering to import the file again.
    await page.goBack();
    await app.getByText("This dry run was confirmed: its file is imported").waitFor({ timeout: 90_000 });
    expect(await app.getByRole("button", { name: "Import 4 items" }).count()).toBe(0);
    await app.getByRole("link", { name: "View the import" }).click();
    await app.getByText("Import finished").waitFor({ timeout: 90_000 });

    // Both runs are listed.
    await (await titleBarButton(page, app, "All imports")).click();
    const rows = app.locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    for (const [index, mode] of ["Import", "Dry run"].entries()) {
      const row = await rows.nth(index).textContent();
      expect(row).toContain(`${path.basename(VENDOR_A_FILE)}${FORMATS.vendor_a.label}${mode}`);
      expect(row).toMatch(/Succeeded.*4.*3/);
    }
    expectNoPageErrors(page);
    await context.close();
  }, 180_000);

  it("imports the same file again as 0 new items: imports are idempotent", async () => {
    const before = await savedItems();
    expect(before).toEqual(IMPORTED);
    const { context, page, app } = await stack.openAdmin("/imports/new?source=vendor_a");
    await app.getByText("Step 2 of 3: upload the file").waitFor({ timeout: 90_000 });
    await uploadAndCheck(app, VENDOR_A_FILE);
    await app.getByText("0 items would be imported, 4 already saved and 3 rows skipped.").waitFor();
    await app.getByText("Every readable row of this file is already saved: importing it adds nothing.").waitFor();
    await app.getByRole("button", { name: "Import 0 items" }).click();
    await app.getByText("Import finished").waitFor({ timeout: 90_000 });
    await app.getByText("0 items imported, 4 already saved and 3 rows skipped.").waitFor();
    expect(await savedItems()).toEqual(before);
    expect((await importJobs())[0]).toMatchObject({ dryRun: false, status: "succeeded", imported: 0 });
    expectNoPageErrors(page);
    await context.close();
  }, 180_000);

  it("shows a failed dry run with the job's error and what to do", async () => {
    // A generic export read as vendor_b: no column of it names the customer in that format's terms.
    const { context, page, app } = await stack.openAdmin("/imports/new?source=vendor_b");
    await app.getByText("Step 2 of 3: upload the file").waitFor({ timeout: 90_000 });
    await uploadAndCheck(app, GENERIC_FILE);
    const banner = app.locator(".Polaris-Banner", { hasText: "The dry run failed" });
    await banner.waitFor();
    expect(await banner.textContent()).toContain("The header row lacks a customer id or customer email column.");
    expect(await banner.textContent()).toContain("What to do: fix what the message names");
    await app.getByText("Missing: a customer id or customer email column.").waitFor();
    expect((await importJobs())[0]).toMatchObject({ dryRun: true, status: "failed" });
    await banner.getByRole("button", { name: "Start a new import" }).click();
    await app.getByText(`Source: ${FORMATS.vendor_b.label}`).waitFor({ timeout: 90_000 });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();
  }, 180_000);
});
