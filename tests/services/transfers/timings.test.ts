import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { insertTransferJob } from "~/data/transfer-job-rows.server";
import { resetEnvCache } from "~/env.server";
import { newId } from "~/lib/ids";
import { getStorage } from "~/services/storage/index.server";
import { exportCsv } from "~/services/transfers/export.server";
import { BATCH_ROWS, runImport } from "~/services/transfers/import.server";
import { batchTimings, type BatchTiming } from "~/services/transfers/timings";
import { createShop } from "../../factories";
import { customerSearch, startFakeAdminApi } from "../../../scripts/lib/fake-admin-api";
import { connectToPlatform } from "./helpers";

// The import checks each row's customer with the platform: a stand-in for its Admin API knows 7000-7049.
const platform = await startFakeAdminApi();
platform.answer(customerSearch({}, undefined, { ids: (id) => Number(id) >= 7000 && Number(id) < 7050 }));
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
resetEnvCache();
afterAll(() => platform.close());

const heard: BatchTiming[] = [];
const listener = (message: unknown) => heard.push(message as BatchTiming);
afterEach(() => {
  unsubscribe(batchTimings.name, listener);
  heard.length = 0;
});

describe("batch timings of transfer jobs", () => {
  it("publishes one timing per import batch and per export page, with their rows", async () => {
    const shop = await createShop();
    await connectToPlatform(shop.domain);
    const rows = BATCH_ROWS * 2 + 500;
    const csv =
      "customer_id,anonymous_id,product_id,variant_id,handle,added_at\n" +
      Array.from(
        { length: rows },
        (_, index) => `${7000 + (index % 50)},,${10_000 + index},,h-${index},2024-01-02`,
      ).join("\n");
    const key = `uploads/${shop.id}/${newId("upload")}`;
    await getStorage().write(key, Readable.from([csv]), "text/csv");
    // The job's row: a real import writes its checkpoint there after each batch.
    const job = await insertTransferJob(
      database(),
      { id: newId("job"), shopId: shop.id, kind: "import", source: "csv" },
      new Date(),
    );
    const context = { jobId: job.id, shopId: shop.id, shopDomain: shop.domain, source: "csv" as const };

    subscribe(batchTimings.name, listener);
    const report = await runImport({ ...context, dryRun: false, storageKey: key });
    expect(report.totals.imported).toBe(rows);
    expect(heard.map(({ kind, rows }) => ({ kind, rows }))).toEqual([
      { kind: "import", rows: BATCH_ROWS },
      { kind: "import", rows: BATCH_ROWS },
      { kind: "import", rows: 500 },
    ]);
    expect(heard.every((timing) => timing.ms > 0)).toBe(true);

    heard.length = 0;
    await pipeline(exportCsv(shop.id), new Writable({ write: (_chunk, _encoding, done) => done() }));
    expect(heard.map(({ kind, rows }) => ({ kind, rows }))).toEqual([
      { kind: "export", rows: 2_000 },
      { kind: "export", rows: 500 },
    ]);
  });
});
