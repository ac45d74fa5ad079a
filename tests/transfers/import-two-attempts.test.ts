import { afterAll, describe, expect, it } from "vitest";
import { customerSearch, startFakeAdminApi, withProductLookups } from "../support/fake-admin-api";

// The platform's Admin GraphQL API, for import rule 3's email lookup: a stand-in on loopback.
const platform = await startFakeAdminApi();
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
afterAll(() => platform.close());

const { database } = await import("~/data/database.server");
const { runTransferJob } = await import("~/services/transfers/jobs.server");
const { createShopWithKey } = await import("../factories");
const { OpenApiValidator, apiClient } = await import("../support/api");
const { createTestApp } = await import("../support/http");
const { connectToPlatform, countItems, download, upload, viaApp } = await import("./helpers");

const app = await createTestApp();
const validator = await OpenApiValidator.load(app);
const fetcher = viaApp(app);

/**
 * Two attempts at one import at the same time: BullMQ hands a job to another worker when the lock of the
 * one running it lapses (its event loop held up longer than half the lock), and the first goes on. No
 * worker runs in this file: the two attempts are the service's own, called side by side.
 */
describe("two attempts at one import at once", () => {
  it("the first to commit a batch goes on, the other steps aside: every row written and counted once", async () => {
    const { shop, secret } = await createShopWithKey();
    await connectToPlatform(shop.domain);
    const api = apiClient(app, validator, { Authorization: `Bearer ${secret}` });
    const directory: Record<string, string> = {};
    const rows = ["Email,Product Id,Variant Id,Added On"];
    for (let index = 0; index < 3_500; index++) {
      const email = `shopper${index % 30}@example.com`;
      directory[email] = String(6_000 + (index % 30));
      rows.push(`${email},${20_000 + index},,01/02/2024`);
    }
    platform.answer(withProductLookups(customerSearch(directory)));
    const { fileUrl } = await upload(api, fetcher, rows.join("\n"));
    const started = await api.POST("/imports", { body: { source: "vendor_b", fileUrl, dryRun: false } });
    expect(started.response.status).toBe(202);
    const jobId = started.data!.jobId;

    const attempts = await Promise.all([
      runTransferJob({ shopId: shop.id, jobId, finalAttempt: false }),
      runTransferJob({ shopId: shop.id, jobId, finalAttempt: false }),
    ]);
    // One finished the job; the other was told to come back later (it wrote nothing of its own).
    expect(attempts.map((attempt) => attempt.outcome).sort()).toEqual(["done", "wait"]);
    // Looked at again, the job is done.
    expect(await runTransferJob({ shopId: shop.id, jobId, finalAttempt: false })).toEqual({ outcome: "done" });

    const { data: job } = await api.GET("/imports/{jobId}", { params: { path: { jobId } } });
    expect(job).toMatchObject({ status: "succeeded", imported: 3_500, skipped: 0, rowsProcessed: 3_500 });
    const report = await (await download(fetcher, job!.resultUrl!)).json();
    expect(report.totals).toMatchObject({ rows: 3_500, imported: 3_500, unchanged: 0, skipped: 0 });
    expect(await countItems(shop.id)).toBe(3_500);
    const row = await database()
      .selectFrom("TransferJob")
      .select(["status", "checkpoint"])
      .where("id", "=", jobId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("succeeded");
    expect(JSON.parse(row.checkpoint!)).toMatchObject({ line: 3_501, tally: { imported: 3_500, unchanged: 0 } });
  });
});
