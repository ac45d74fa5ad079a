import { afterAll, describe, expect, it } from "vitest";
import { customerSearch, startFakeAdminApi, withProductLookups } from "../../scripts/lib/fake-admin-api";

/**
 * Issue 16, item 2: `kill -9` of the real worker process in the middle of an import. Each batch commits its
 * rows together with the import's checkpoint (app/services/transfers/import.server.ts); the job is taken up
 * again by another worker once BullMQ sees it stalled, and resumes after the last committed batch. Nothing
 * may be counted twice or written twice, whatever batch the kill lands in.
 */
const platform = await startFakeAdminApi();
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
const CUSTOMERS = 150;
const PRODUCTS = 400;
/** Customer ids of the shop: 5000 to 5149. The file also names 9999, who is not one of them. */
const isShopCustomer = (id: string) => Number(id) >= 5000 && Number(id) < 5000 + CUSTOMERS;
platform.answer(withProductLookups(customerSearch({}, undefined, { ids: isShopCustomer })));

const { database } = await import("~/data/database.server");
const { createShopWithKey } = await import("../factories");
const { startProcess } = await import("../support/processes");
const { until } = await import("../support/poll");
const { connectToPlatform, download, finished, upload, viaApp } = await import("../services/transfers/helpers");
const { apiHarness } = await import("../support/harness");

const { app, clientFor } = await apiHarness();
const fetcher = viaApp(app);
afterAll(() => platform.close());

/**
 * A Vendor A file (titles given, so no product lookups): every customer saves PRODUCTS products, one row in
 * 40 is repeated further down (unchanged the second time), and one row in 100 names a customer the shop does
 * not have (skipped). Line numbers count the header as line 1.
 */
function importFile() {
  const lines = [
    "Customer ID,Customer Email,Product ID,Variant ID,Product Handle,Product Title,Date Added,Wishlist Name",
  ];
  const expected = new Map<string, { title: string; handle: string }>();
  const repeats: string[] = [];
  let rows = 0;
  let skipped = 0;
  for (let product = 0; product < PRODUCTS; product++) {
    for (let customer = 0; customer < CUSTOMERS; customer++) {
      const customerId = String(5000 + customer);
      const productId = String(800_000 + product);
      const line = `${customerId},,${productId},,handle-${productId},Title ${productId},03/05/2024 14:22,Default`;
      lines.push(line);
      rows += 1;
      expected.set(`${customerId}|${productId}`, { title: `Title ${productId}`, handle: `handle-${productId}` });
      if (rows % 40 === 0) repeats.push(line);
      if (rows % 100 === 0) {
        lines.push(`9999,,${productId},,handle-${productId},Title ${productId},03/05/2024 14:22,Default`);
        rows += 1;
        skipped += 1;
      }
    }
    // The repeats of this product's rows come a few thousand lines later, often past a batch or the kill.
    if (product % 10 === 9) {
      lines.push(...repeats.splice(0));
    }
  }
  const unchanged = lines.length - 1 - rows;
  return {
    csv: `${lines.join("\n")}\n`,
    expected,
    totals: { rows: rows + unchanged, imported: expected.size, unchanged, skipped },
  };
}

async function storedItems(shopId: string) {
  const items = await database()
    .selectFrom("Item as i")
    .innerJoin("List as l", "l.id", "i.listId")
    .select(["l.customerId", "i.productId", "i.variantId", "i.handle", "i.titleSnapshot"])
    .where("i.shopId", "=", shopId)
    .execute();
  return items;
}

const transferJob = (shopId: string, jobId: string) =>
  database()
    .selectFrom("TransferJob")
    .select(["status", "checkpoint", "rowsRead"])
    .where("shopId", "=", shopId)
    .where("id", "=", jobId)
    .executeTakeFirstOrThrow();

describe("a worker killed (SIGKILL) in the middle of an import", () => {
  it(
    "leaves the import to another worker, which finishes it counting and writing every row exactly once",
    { timeout: 240_000 },
    async () => {
      const { shop, secret } = await createShopWithKey();
      await connectToPlatform(shop.domain);
      const api = clientFor(secret);
      const file = importFile();
      expect(file.totals.rows).toBeGreaterThan(60_000);
      const { fileUrl } = await upload(api, fetcher, file.csv);

      // A short lock, so BullMQ notices the dead worker's job within seconds rather than 30 s, yet renewed
      // (every half of it) in time on a loaded machine: a late renewal would start a second run of the job.
      const env = { WORKER_LOCK_DURATION_MS: "8000" };
      const first = startProcess("worker/index.ts", env);
      let second: ReturnType<typeof startProcess> | undefined;
      try {
        await first.waitForOutput(/worker ready/, 90_000);
        const started = await api.POST("/imports", { body: { source: "vendor_a", fileUrl, dryRun: false } });
        expect(started.response.status).toBe(202);
        const jobId = started.data!.jobId;

        // Mid-way: at least ten batches committed (their checkpoint says so), the job still running.
        const before = await until(
          () => transferJob(shop.id, jobId),
          (row) =>
            (row.status !== "queued" && row.status !== "running") ||
            (row.checkpoint !== null && (JSON.parse(row.checkpoint) as { line: number }).line > 10_000),
          "ten batches of the import committed",
        );
        first.child.kill("SIGKILL");
        await new Promise((resolve) =>
          first.child.exitCode === null ? first.child.once("exit", resolve) : resolve(0),
        );
        expect(before.status).toBe("running");
        const killedAt = await transferJob(shop.id, jobId);
        expect(killedAt.status).toBe("running"); // the dead worker left it running: another must finish it
        const committedLine = (JSON.parse(killedAt.checkpoint!) as { line: number }).line;
        expect(committedLine).toBeLessThan(file.totals.rows);

        second = startProcess("worker/index.ts", env);
        await second.waitForOutput(/worker ready/, 90_000);
        const job = await finished(api, "imports", jobId, 180_000);
        expect(job.error).toBeNull();
        expect(job.status).toBe("succeeded");
        expect(job).toMatchObject({
          rowsProcessed: file.totals.rows,
          imported: file.totals.imported,
          skipped: file.totals.skipped,
        });
        const report = await (await download(fetcher, job.resultUrl!)).json();
        expect(report.totals).toEqual({
          rows: file.totals.rows,
          imported: file.totals.imported,
          unchanged: file.totals.unchanged,
          skipped: file.totals.skipped,
          skippedBy: { "customer-id-not-found": file.totals.skipped },
          datesDefaulted: 0,
          toDefaultList: 0,
        });
        // The report's issues name each skipped line once, in file order, across the two attempts.
        const lines = report.issues.map((issue: { line: number }) => issue.line);
        expect(new Set(lines).size).toBe(lines.length);
        expect(lines).toEqual([...lines].sort((a: number, b: number) => a - b));

        // The items are exactly the file's: each customer-product once, with the file's handle and title.
        const items = await storedItems(shop.id);
        expect(items).toHaveLength(file.expected.size);
        for (const item of items) {
          expect(file.expected.get(`${item.customerId}|${item.productId}`)).toEqual({
            title: item.titleSnapshot,
            handle: item.handle,
          });
          expect(item.variantId).toBe(""); // no variant (stored as an empty id)
        }
        const lists = await database()
          .selectFrom("List")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("shopId", "=", shop.id)
          .executeTakeFirstOrThrow();
        expect(Number(lists.n)).toBe(CUSTOMERS);

        // No transfer job of the shop is left queued or running.
        const jobs = await database()
          .selectFrom("TransferJob")
          .select(["id", "status"])
          .where("shopId", "=", shop.id)
          .execute();
        expect(jobs).toEqual([{ id: jobId, status: "succeeded" }]);
      } finally {
        if (first.child.exitCode === null && first.child.signalCode === null) first.child.kill("SIGKILL");
        if (second) expect(await second.stop(30_000)).toBe(0);
      }
    },
  );
});
