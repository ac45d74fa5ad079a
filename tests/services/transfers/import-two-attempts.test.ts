import { afterAll, describe, expect, it } from "vitest";
import {
  customerSearch,
  isProductLookup,
  startFakeAdminApi,
  withProductLookups,
} from "../../../scripts/lib/fake-admin-api";
import { until } from "../../support/poll";

// The platform's Admin GraphQL API, for import rule 3's email lookup: a stand-in on loopback.
const platform = await startFakeAdminApi();
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
afterAll(() => platform.close());

const { database } = await import("~/data/database.server");
const { runTransferJob } = await import("~/services/transfers/transfer-run.server");
const { getStorage } = await import("~/services/storage/index.server");
const { createShopWithKey } = await import("../../factories");
const { connectToPlatform, countItems, download, upload, viaApp } = await import("./helpers");
const { apiHarness } = await import("../../support/harness");

const { app, clientFor } = await apiHarness();
const fetcher = viaApp(app);

/** A promise the test resolves when it chooses: holds an attempt at a point of its run. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** A connected shop, a file of `lines` rows (one email lookup per 1,000-row batch) and its import queued. */
async function queuedImport(lines: number) {
  const { shop, secret } = await createShopWithKey();
  await connectToPlatform(shop.domain);
  const api = clientFor(secret);
  const directory: Record<string, string> = {};
  const rows = ["Email,Product Id,Variant Id,Added On"];
  for (let index = 0; index < lines; index++) {
    const batch = Math.floor(index / 1_000);
    const email = `b${batch}s${index % 5}@example.com`;
    directory[email] = String(6_000 + batch * 10 + (index % 5));
    rows.push(`${email},${20_000 + index},,01/02/2024`);
  }
  const { fileUrl } = await upload(api, fetcher, rows.join("\n"));
  const started = await api.POST("/imports", { body: { source: "vendor_b", fileUrl, dryRun: false } });
  expect(started.response.status).toBe(202);
  return { shop, jobId: started.data!.jobId, platformAnswers: withProductLookups(customerSearch(directory)) };
}

const jobRow = (jobId: string) =>
  database()
    .selectFrom("TransferJob")
    .select(["status", "rowsRead", "imported", "error", "resultKey"])
    .where("id", "=", jobId)
    .executeTakeFirstOrThrow();

/**
 * Two attempts at one import at the same time: BullMQ hands a job to another worker when the lock of the
 * one running it lapses (its event loop held up longer than half the lock), and the first goes on. No
 * worker runs in this file: the two attempts are the service's own, called side by side.
 */
describe("two attempts at one import at once", () => {
  it("the first to commit a batch goes on, the other steps aside: every row written and counted once", async () => {
    const { shop, secret } = await createShopWithKey();
    await connectToPlatform(shop.domain);
    const api = clientFor(secret);
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

  it("an attempt that fails after the other finished the job leaves it succeeded, with the other's report", async () => {
    const { shop, jobId, platformAnswers } = await queuedImport(2_500);
    const held = gate();
    let lookups = 0;
    platform.answer(async (call) => {
      if (!isProductLookup(call) && lookups++ === 0) {
        await held.opened; // the first attempt's first lookup waits, then is refused
        return { status: 401, body: { errors: "[API] Invalid API key or access token" } };
      }
      return platformAnswers(call);
    });
    const first = runTransferJob({ shopId: shop.id, jobId, finalAttempt: true });
    await until(
      () => lookups,
      (count) => count === 1,
      "the first attempt waiting on its lookup",
    );
    expect(await runTransferJob({ shopId: shop.id, jobId, finalAttempt: true })).toEqual({ outcome: "done" });
    const finished = await jobRow(jobId);
    expect(finished).toMatchObject({ status: "succeeded", imported: 2_500, error: null });
    held.open();
    expect(await first).toEqual({ outcome: "wait" }); // steps aside rather than failing the job
    expect(await jobRow(jobId)).toEqual(finished);
    const report = await getStorage().read(finished.resultKey!);
    const text = Buffer.concat(await report.toArray()).toString("utf8");
    expect(JSON.parse(text)).toMatchObject({ status: "succeeded", totals: { imported: 2_500 } });
    expect(await countItems(shop.id)).toBe(2_500);
  });

  it("an attempt resuming from the other's checkpoint writes no progress once the other finished", async () => {
    const { shop, jobId, platformAnswers } = await queuedImport(8_000);
    const sixBatches = gate();
    let lookups = 0;
    platform.answer(async (call) => {
      if (!isProductLookup(call) && ++lookups === 7) await sixBatches.opened; // batch 7 waits
      return platformAnswers(call);
    });
    const first = runTransferJob({ shopId: shop.id, jobId, finalAttempt: false });
    await until(
      () => lookups,
      (count) => count === 7,
      "six batches committed",
    );
    // The second attempt resumes from the first's checkpoint (6,000 rows); its read of the file waits.
    const storage = getStorage();
    const read = storage.read.bind(storage);
    const fileRead = gate();
    let reads = 0;
    storage.read = async (...args: Parameters<typeof read>) => {
      reads += 1;
      await fileRead.opened;
      return read(...args);
    };
    try {
      const second = runTransferJob({ shopId: shop.id, jobId, finalAttempt: false });
      await until(
        () => reads,
        (count) => count === 1,
        "the second attempt reading the file",
      );
      sixBatches.open();
      expect(await first).toEqual({ outcome: "done" });
      const finished = await jobRow(jobId);
      expect(finished).toMatchObject({ status: "succeeded", imported: 8_000, rowsRead: 8_000 });
      fileRead.open();
      expect(await second).toEqual({ outcome: "wait" }); // its first batch found the checkpoint moved on
      expect(await jobRow(jobId)).toEqual(finished);
    } finally {
      storage.read = read;
    }
    expect(await countItems(shop.id)).toBe(8_000);
  });
});
