import { afterAll, describe, expect, it } from "vitest";
import { customerSearch, startFakeAdminApi } from "../../../scripts/lib/fake-admin-api";

// The platform's Admin GraphQL API (import rule 3), on loopback; no row of these files gets that far.
const platform = await startFakeAdminApi();
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
platform.answer(customerSearch({}));

const { createShopWithKey } = await import("../../factories");
const { useWorker } = await import("../../support/worker");
const { getImportReport } = await import("~/services/transfers/jobs.server");
const { connectToPlatform, download, runImport, upload, viaApp } = await import("./helpers");
const { apiHarness } = await import("../../support/harness");

const { app, clientFor } = await apiHarness();
const fetcher = viaApp(app);
useWorker();
afterAll(() => platform.close());

async function connectedShop() {
  const { shop, secret } = await createShopWithKey();
  await connectToPlatform(shop.domain);
  return { shop, api: clientFor(secret) };
}

/**
 * The report is what the admin's import page reads whole on every load and sends to the browser (and what
 * the web process parses and serializes meanwhile, holding every other request of every shop). A header
 * row is the file's to choose: 200,000 column names, or one name padded to a megabyte, must not make a
 * report of that size.
 */
describe("the import report of a file with an outsized header row", () => {
  it("lists the first 100 unmapped headers, each cut to 100 characters, and says there were more", async () => {
    const { shop, api } = await connectedShop();
    const padded = `customer${"_".repeat(1_000_000)}id`; // maps to customerId: _ is ignored when matching
    const names = Array.from({ length: 200_000 }, (_, index) => `extra column ${index}`);
    const file = `${padded},product_id,${"x".repeat(500)},${names.join(",")}\n1001,7001\n`;
    const { fileUrl } = await upload(api, fetcher, file);

    const job = await runImport(api, { source: "csv", fileUrl, dryRun: true });
    expect(job).toMatchObject({ status: "failed" }); // the generic format's other columns are missing
    const text = await (await download(fetcher, job.resultUrl!)).text();
    expect(text.length).toBeLessThan(32 * 1024);

    const report = JSON.parse(text);
    expect(report.columns.mapped).toEqual([
      { header: padded.slice(0, 100), field: "customerId" },
      { header: "product_id", field: "productId" },
    ]);
    expect(report.columns.unmapped).toHaveLength(100);
    expect(report.columns.unmapped[0]).toBe("x".repeat(100));
    expect(report.columns.unmapped[1]).toBe("extra column 0");
    expect(report.columns.unmapped[99]).toBe("extra column 98");
    expect(report.columns.unmappedTruncated).toBe(true);
    expect(report.columns.missing.length).toBeGreaterThan(0);
    // The admin page reads the same report.
    expect(await getImportReport({ shopId: shop.id, jobId: job.jobId })).toEqual(report);
  });

  it("says nothing was left out when every header is listed", async () => {
    const { api } = await connectedShop();
    const file = "customer_id,anonymous_id,product_id,variant_id,handle,added_at,comment\n1001,,7001,,h,2024-01-01,x\n";
    const { fileUrl } = await upload(api, fetcher, file);
    const job = await runImport(api, { source: "csv", fileUrl, dryRun: true });
    const report = await (await download(fetcher, job.resultUrl!)).json();
    expect(report.columns).toMatchObject({ unmapped: ["comment"], unmappedTruncated: false });
  });
});
