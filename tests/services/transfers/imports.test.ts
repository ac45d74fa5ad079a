import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { customerSearch, startFakeAdminApi, withProductLookups } from "../../../scripts/lib/fake-admin-api";

// The platform's Admin GraphQL API, for import rule 3's email lookup: a stand-in on loopback.
const platform = await startFakeAdminApi();
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
const DIRECTORY = { "alice@example.com": "1001", "bob@example.com": "1002" };
/** Customers of the shop known by id only (the dry-run test's 2000-2049, the id test's 3000-3299). */
const isShopCustomer = (id: string) =>
  (Number(id) >= 2000 && Number(id) < 2050) || (Number(id) >= 3000 && Number(id) < 3300);
const shopCustomers = () => customerSearch(DIRECTORY, undefined, { ids: isShopCustomer });
/**
 * The worker also asks the same API for the titles of the items imported without one (product snapshots,
 * tests/services/products/product-snapshots.test.ts), whenever it gets to them: those calls are answered apart and are not
 * the import's.
 */
const answer = (reply: Parameters<typeof platform.answer>[0]) => platform.answer(withProductLookups(reply));
answer(shopCustomers());
/** The calls of rule 3's customer lookups. */
const customerCalls = () => platform.calls.filter((call) => /query Customers/.test(call.query));

const { database } = await import("~/data/database.server");
const { addItem } = await import("~/services/wishlists/wishlists.server");
const { getStorage } = await import("~/services/storage/index.server");
const { createShopWithKey } = await import("../../factories");
const { useWorker } = await import("../../support/worker");
const { createQueue } = await import("~/jobs/queues.server");
const { JOBS } = await import("~/jobs/definitions");
const { connectToPlatform, countItems, countLists, download, runImport, upload, viaApp } = await import("./helpers");
const { apiHarness } = await import("../../support/harness");

const { app, clientFor } = await apiHarness();
const fetcher = viaApp(app);
const FIXTURES = path.join(import.meta.dirname, "../../fixtures/imports");
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));

async function connectedShop() {
  const { shop, secret } = await createShopWithKey();
  await connectToPlatform(shop.domain);
  return { shop, api: clientFor(secret) };
}

async function itemsOf(shopId: string) {
  const items = await database()
    .selectFrom("Item as i")
    .innerJoin("List as l", "l.id", "i.listId")
    .select(["l.customerId", "i.productId", "i.variantId", "i.handle", "i.titleSnapshot", "i.addedAt"])
    .where("i.shopId", "=", shopId)
    .orderBy("i.productId")
    .execute();
  return items.map((item) => ({
    customerId: item.customerId,
    productId: item.productId,
    variantId: item.variantId,
    handle: item.handle,
    title: item.titleSnapshot,
    addedAt: item.addedAt.toISOString(),
  }));
}

async function reportOf(job: { resultUrl: string | null }) {
  expect(job.resultUrl).toBeTruthy();
  return (await download(fetcher, job.resultUrl!)).json();
}

useWorker();
const transfers = createQueue(JOBS.transfer.queue);
afterAll(async () => {
  await transfers.close();
  await platform.close();
});

/** How many attempts BullMQ started for the job (its id is the row's). */
async function attemptsOf(jobId: string) {
  const job = await transfers.getJob(jobId);
  expect(job).toBeTruthy();
  return job!.attemptsStarted;
}

/** A vendor_b file of `rows` rows that name customers by email only. */
function emailOnlyFile(rows = 3) {
  const lines = ["Email,Product Id,Variant Id,Added On"];
  for (let index = 0; index < rows; index++)
    lines.push(`${index % 2 ? "bob" : "alice"}@example.com,${600 + index},,01/02/2024`);
  return lines.join("\n");
}

describe("imports through the real worker", () => {
  it("imports the generic CSV (BOM, CRLF, quoted line breaks), skips and reports by line, and a re-run imports 0", async () => {
    const { shop, api } = await connectedShop();
    const target = await upload(api, fetcher, fixture("generic.csv"));
    const before = Date.now();
    const job = await runImport(api, { source: "csv", fileUrl: target.fileUrl });
    expect(job).toMatchObject({ status: "succeeded", kind: "import", imported: 3, skipped: 2, rowsProcessed: 5 });

    const items = await itemsOf(shop.id);
    expect(items.map(({ customerId, productId, variantId }) => [customerId, productId, variantId])).toEqual([
      ["1001", "9001", "9101"],
      ["1001", "9002", ""],
      ["1002", "9004", ""],
    ]);
    expect(items[0]!.handle).toBe("multi\r\nline, handle");
    expect(items[0]!.addedAt).toBe("2024-01-15T08:00:00.000Z");
    // Rule 6: an unparseable added_at becomes the current time.
    expect(Date.parse(items[2]!.addedAt)).toBeGreaterThanOrEqual(before - 1000);

    const report = await reportOf(job);
    expect(report.totals).toMatchObject({ rows: 5, imported: 3, unchanged: 0, skipped: 2, datesDefaulted: 1 });
    // Line numbers count the line break inside the quoted handle (rows start on lines 2, 4, 5, 6, 7).
    expect(report.issues).toEqual([
      expect.objectContaining({ line: 5, reason: "no-customer" }),
      expect.objectContaining({ line: 6, reason: "unparseable-product-id", value: "not-a-product" }),
    ]);
    expect(report.columns.unmapped).toEqual([]);

    const again = await runImport(api, { source: "csv", fileUrl: target.fileUrl });
    expect(again).toMatchObject({ status: "succeeded", imported: 0, skipped: 2, rowsProcessed: 5 });
    expect((await reportOf(again)).totals).toMatchObject({ imported: 0, unchanged: 3 });
    expect(await itemsOf(shop.id)).toEqual(items);
  });

  it("never overwrites the addedAt of an item the shopper already saved (rule 5)", async () => {
    const { shop, api } = await connectedShop();
    const savedAt = new Date("2020-02-02T02:02:02.000Z");
    await addItem({
      shopId: shop.id,
      owner: { kind: "customer", customerId: "1001" },
      item: { productId: "9002", handle: "plain" },
      at: savedAt,
    });
    const job = await runImport(api, {
      source: "csv",
      fileUrl: (await upload(api, fetcher, fixture("generic.csv"))).fileUrl,
    });
    expect(job).toMatchObject({ imported: 2, skipped: 2 });
    const kept = (await itemsOf(shop.id)).find((item) => item.productId === "9002");
    expect(kept!.addedAt).toBe(savedAt.toISOString());
    // The list is the customer's one default list, not a second one.
    expect(await countLists(shop.id, "1001")).toBe(1);
  });

  it("reports the unreadable customer id or email of a row skipped as no-customer, and no value for a guest row", async () => {
    const { api } = await connectedShop();
    const file = [
      "customer_id,anonymous_id,product_id,variant_id,handle,added_at,email",
      '"Ada, Lovelace",,9001,,h,2024-01-01,',
      ",,9002,,h,2024-01-01,not-an-email",
      ",6f1c2b9e-3c1d-4c2a-9a51-1f2e3d4c5b6a,9003,,h,2024-01-01,",
    ].join("\n");
    const dry = await runImport(api, {
      source: "csv",
      fileUrl: (await upload(api, fetcher, file)).fileUrl,
      dryRun: true,
    });
    expect(dry).toMatchObject({ status: "succeeded", skipped: 3 });
    const issues = (await reportOf(dry)).issues as Array<{ line: number; reason: string; value?: string }>;
    expect(issues.map(({ line, reason, value }) => ({ line, reason, value }))).toEqual([
      { line: 2, reason: "no-customer", value: "Ada, Lovelace" },
      { line: 3, reason: "no-customer", value: "not-an-email" },
      { line: 4, reason: "no-customer", value: undefined },
    ]);
  });

  it("a dry run writes nothing and reports what the real run then does, duplicates within the file included", async () => {
    const { shop, api } = await connectedShop();
    const rows = ["customer_id,anonymous_id,product_id,variant_id,handle,added_at"];
    // 2,500 rows over three batches; every product appears twice for the same customer, the second time with
    // a variant: still the same saved item (docs/decisions/032-one-item-per-product.md).
    for (let index = 0; index < 2_500; index++)
      rows.push(`${2000 + (index % 50)},,${(index % 1_250) + 1},${index < 1_250 ? "" : 77},h,2024-01-01`);
    const { fileUrl } = await upload(api, fetcher, rows.join("\n"));
    const dry = await runImport(api, { source: "csv", fileUrl, dryRun: true });
    expect(dry).toMatchObject({ status: "succeeded", dryRun: true, imported: 1_250, skipped: 0, rowsProcessed: 2_500 });
    expect(await countItems(shop.id)).toBe(0);
    expect(await countLists(shop.id)).toBe(0);
    const real = await runImport(api, { source: "csv", fileUrl });
    expect(real).toMatchObject({ imported: 1_250, skipped: 0 });
    expect(await countItems(shop.id)).toBe(1_250);
    expect((await reportOf(real)).totals).toEqual((await reportOf(dry)).totals);
  });

  it("resolves customers by email through the platform in batches, once per email, waiting out its throttling", async () => {
    const { shop, api } = await connectedShop();
    const directory: Record<string, string> = {};
    for (let index = 0; index < 60; index++) directory[`shopper${index}@example.com`] = String(5000 + index);
    // An empty bucket that pays for one query every 500 ms: the first query is answered THROTTLED, the
    // client waits for the refill; after the second, it paces itself instead of being throttled again.
    answer(customerSearch(directory, { available: 0, maximum: 10, restoreRate: 20, cost: 10 }));
    platform.calls.length = 0;
    try {
      const rows = ["Email,Product Id,Variant Id,Added On"];
      for (let index = 0; index < 60; index++) {
        rows.push(
          `Shopper${index}@Example.com,${100 + index},,01/02/2024`,
          `shopper${index}@example.com,${200 + index},,01/02/2024`,
        );
      }
      rows.push("stranger@example.com,999,,01/02/2024");
      const { fileUrl } = await upload(api, fetcher, rows.join("\n"));
      const job = await runImport(api, { source: "vendor_b", fileUrl });
      expect(job).toMatchObject({ status: "succeeded", imported: 120, skipped: 1 });
      const asked = customerCalls().flatMap((call) =>
        [...String(call.variables.query).matchAll(/email:"([^"]+)"/g)].map((m) => m[1]),
      );
      // Two batches (50 + 11 distinct emails), the first asked twice because of the throttling; never more.
      expect(customerCalls().length).toBe(3);
      expect(new Set(asked).size).toBe(61);
      expect(asked.length).toBe(50 + 50 + 11);
      // Waited 500 ms after THROTTLED (10 points at 20/s), then 500 ms of pacing before the next batch.
      const [first, second, third] = customerCalls().map((call) => call.at);
      expect(second! - first!).toBeGreaterThanOrEqual(450);
      expect(third! - second!).toBeGreaterThanOrEqual(450);
      expect(customerCalls().every((call) => call.accessToken === "shpat_x")).toBe(true);
      const report = await reportOf(job);
      expect(report.issues).toEqual([
        expect.objectContaining({ line: 122, reason: "customer-not-found", value: "stranger@example.com" }),
      ]);
      const addedAt = (await itemsOf(shop.id)).map((item) => item.addedAt);
      expect(new Set(addedAt)).toEqual(new Set(["2024-02-01T00:00:00.000Z"])); // vendor_b dates are day-first
    } finally {
      answer(shopCustomers());
    }
  });

  it("resumes a retried import after its last committed batch, so its totals count each row once", async () => {
    const { shop, api } = await connectedShop();
    const directory: Record<string, string> = {};
    const rows = ["Email,Product Id,Variant Id,Added On"];
    for (let index = 0; index < 2_500; index++) {
      // Batch 1 (rows 1-1000) and batches 2-3 need different customers, so batch 2 asks the platform again.
      const email = `${index < 1_000 ? "first" : "later"}${index % 10}@example.com`;
      directory[email] = String(5_000 + (index < 1_000 ? 0 : 10) + (index % 10));
      rows.push(`${email},${10_000 + index},,01/02/2024`);
    }
    const search = customerSearch(directory);
    let failed = 0;
    // The platform fails batch 2's lookup three times, the job's first ask and both of its retries:
    // attempt 1 has committed batch 1 and fails; BullMQ runs the job again.
    answer((call) => {
      if (String(call.variables.query).includes("later") && failed < 3) {
        failed += 1;
        return { status: 500, body: { errors: "Internal Server Error" } };
      }
      return search(call);
    });
    try {
      const { fileUrl } = await upload(api, fetcher, rows.join("\n"));
      const job = await runImport(api, { source: "vendor_b", fileUrl }, 120_000);
      expect(failed).toBe(3);
      expect(await attemptsOf(job.jobId)).toBe(2);
      expect(job).toMatchObject({ status: "succeeded", imported: 2_500, skipped: 0, rowsProcessed: 2_500 });
      const report = await reportOf(job);
      expect(report.totals).toMatchObject({ rows: 2_500, imported: 2_500, unchanged: 0, skipped: 0 });
      expect(await countItems(shop.id)).toBe(2_500);
      const again = await runImport(api, { source: "vendor_b", fileUrl });
      expect(again).toMatchObject({ status: "succeeded", imported: 0, skipped: 0 });
    } finally {
      answer(shopCustomers());
    }
  });

  it("checks customer ids with the shop in batches, and skips and reports ids that are no customer of it (rule 3)", async () => {
    const { shop, api } = await connectedShop();
    const rows = ["customer_id,anonymous_id,product_id,variant_id,handle,added_at"];
    // 300 customers of the shop, each on two rows; two ids the shop does not have, one of them as a GID.
    for (let index = 0; index < 600; index++) rows.push(`${3000 + (index % 300)},,${7000 + index},,h,2024-01-01`);
    rows.push("99999,,1,,h,2024-01-01", "gid://shopify/Customer/88888,,2,,h,2024-01-01", "3000,,3,,h,2024-01-01");
    platform.calls.length = 0;
    const { fileUrl } = await upload(api, fetcher, rows.join("\n"));
    const dry = await runImport(api, { source: "csv", fileUrl, dryRun: true });
    const job = await runImport(api, { source: "csv", fileUrl });
    for (const run of [dry, job]) expect(run).toMatchObject({ status: "succeeded", imported: 601, skipped: 2 });
    expect(await countItems(shop.id)).toBe(601);
    const owners = await database().selectFrom("List").select("customerId").where("shopId", "=", shop.id).execute();
    expect(owners.map((list) => list.customerId)).not.toContain("99999");
    const report = await reportOf(job);
    expect(report.totals.skippedBy).toEqual({ "customer-id-not-found": 2 });
    expect(report.issues).toEqual([
      {
        line: 602,
        reason: "customer-id-not-found",
        detail: "No customer of the shop has this customer id.",
        value: "99999",
      },
      {
        line: 603,
        reason: "customer-id-not-found",
        detail: "No customer of the shop has this customer id.",
        value: "88888",
      },
    ]);
    // Per run: 302 distinct ids in two nodes queries (250 + 52), each id asked once, as GIDs.
    const asked = customerCalls().filter((call) => Array.isArray(call.variables.ids));
    expect(asked.map((call) => (call.variables.ids as string[]).length)).toEqual([250, 52, 250, 52]);
    const perRun = asked.slice(0, 2).flatMap((call) => call.variables.ids as string[]);
    expect(new Set(perRun).size).toBe(302);
    expect(perRun).toContain("gid://shopify/Customer/99999");
    expect(asked[0]!.query).toMatch(/nodes\(ids: \$ids\)/);
  });

  it("fails an import whose customers cannot be reached, after retries, with a report that says why and what to do", async () => {
    const { shop, api } = await connectedShop();
    answer(() => "drop"); // every connection to the Admin API dies: unreachable
    platform.calls.length = 0;
    try {
      const { fileUrl } = await upload(api, fetcher, emailOnlyFile());
      const job = await runImport(api, { source: "vendor_b", fileUrl }, 150_000);
      const message =
        "The shop's customer data could not be reached (Admin API unreachable). Nothing was imported. " +
        "Retry the import later; if it keeps failing, reinstall the app.";
      expect(job).toMatchObject({ status: "failed", error: message, imported: null });
      const report = await reportOf(job);
      expect(report).toMatchObject({ status: "failed", error: message, jobId: job.jobId });
      expect(report.totals).toMatchObject({ rows: 3, imported: 0 });
      expect(report.format.variant).toBe("classic (v1)");
      expect(await countItems(shop.id)).toBe(0);
      // Three attempts, each asking three times (twice again after a backoff of 1 s, then 3 s).
      expect(await attemptsOf(job.jobId)).toBe(3);
      expect(customerCalls()).toHaveLength(9);
      const [first, second, third] = customerCalls().map((call) => call.at);
      expect(second! - first!).toBeGreaterThanOrEqual(900);
      expect(third! - second!).toBeGreaterThanOrEqual(2_900);
    } finally {
      answer(shopCustomers());
    }
  }, 180_000);

  it("retries a platform answering 503 with a backoff inside the job, and the import then succeeds in its first attempt", async () => {
    const { shop, api } = await connectedShop();
    const search = shopCustomers();
    let unavailable = 0;
    answer((call) => {
      if (unavailable < 2) {
        unavailable += 1;
        return { status: 503, body: { errors: "Service Unavailable" } };
      }
      return search(call);
    });
    platform.calls.length = 0;
    try {
      const { fileUrl } = await upload(api, fetcher, emailOnlyFile());
      const job = await runImport(api, { source: "vendor_b", fileUrl }, 120_000);
      expect(job).toMatchObject({ status: "succeeded", imported: 3, skipped: 0, error: null });
      expect(await countItems(shop.id)).toBe(3);
      expect(await attemptsOf(job.jobId)).toBe(1);
      expect(customerCalls()).toHaveLength(3);
      const [first, second] = customerCalls().map((call) => call.at);
      expect(second! - first!).toBeGreaterThanOrEqual(900);
      expect((await reportOf(job)).customerLookups).toBe(3);
    } finally {
      answer(shopCustomers());
    }
  }, 180_000);

  it("fails at once, with a report, when the platform refuses the shop's token: retrying cannot help", async () => {
    const { api } = await connectedShop();
    answer(() => ({ status: 401, body: { errors: "Invalid API key or access token" } }));
    platform.calls.length = 0;
    try {
      const { fileUrl } = await upload(api, fetcher, emailOnlyFile());
      const job = await runImport(api, { source: "vendor_b", fileUrl }, 120_000);
      expect(job.status).toBe("failed");
      expect(job.error).toBe(
        "The shop's customer data could not be read (Admin API access refused). Nothing was imported. Open the " +
          "app from the shop's admin to reconnect it, or reinstall the app, then run the import again.",
      );
      expect((await reportOf(job)).error).toBe(job.error);
      expect(await attemptsOf(job.jobId)).toBe(1);
      expect(customerCalls()).toHaveLength(1);
    } finally {
      answer(shopCustomers());
    }
  }, 180_000);

  const vendorCases = [
    {
      file: "vendor_a-v1.csv",
      source: "vendor_a",
      variant: "2021 (v1)",
      // Its `Wishlist Name` is the list's name (issue 28): "Default" there is the default list.
      unmapped: [],
      imported: 2,
      issues: [{ line: 4, reason: "customer-not-found" }],
      items: [
        ["1001", "7001", "", "2024-03-05T14:22:00.000Z"],
        ["1002", "7002", "8002", "2023-12-31T00:00:00.000Z"],
      ],
    },
    {
      file: "vendor_a-v2.csv",
      source: "vendor_a",
      variant: "2023 (v2, GIDs)",
      unmapped: [],
      imported: 2,
      issues: [{ line: 4, reason: "unparseable-product-id" }],
      items: [
        ["1001", "7101", "8101", "2024-06-01T10:00:00.000Z"],
        ["1002", "7102", "", "2024-06-02T09:30:00.000Z"],
      ],
    },
    {
      file: "vendor_a-v3.csv",
      source: "vendor_a",
      variant: "2025 (v3)",
      unmapped: [],
      imported: 2,
      issues: [{ line: 3, reason: "no-customer" }],
      items: [
        ["1001", "7201", "", "2024-07-04T00:00:00.000Z"],
        ["1002", "7203", "", null],
      ],
    },
    {
      file: "vendor_b-v1.csv",
      source: "vendor_b",
      variant: "classic (v1)",
      unmapped: [],
      imported: 2,
      issues: [],
      items: [
        ["1001", "7301", "8301", "2024-03-05T00:00:00.000Z"],
        ["1002", "7302", "", "2023-12-31T00:00:00.000Z"],
      ],
    },
    {
      file: "vendor_b-v2.csv",
      source: "vendor_b",
      variant: "2024 (v2)",
      unmapped: ["points"],
      imported: 2,
      issues: [],
      items: [
        ["1002", "7401", "", "2024-06-01T10:00:00.000Z"],
        ["1001", "7402", "", "2024-06-02T10:00:00.000Z"],
      ],
    },
    {
      file: "vendor_b-v3.csv",
      source: "vendor_b",
      variant: "2025 (v3)",
      unmapped: [],
      imported: 1,
      issues: [{ line: 3, reason: "no-customer" }],
      items: [["1001", "7501", "", "2024-07-04T00:00:00.000Z"]],
    },
  ] as const;

  it.each(vendorCases)("imports $file ($variant) with its header variant", async (expected) => {
    const { shop, api } = await connectedShop();
    const { fileUrl } = await upload(api, fetcher, fixture(expected.file));
    const dry = await runImport(api, { source: expected.source, fileUrl, dryRun: true });
    const dryReport = await reportOf(dry);
    // The dry run names the variant and the columns that map to nothing before anything is written.
    expect(dryReport.format.variant).toBe(expected.variant);
    expect(dryReport.columns.unmapped).toEqual(expected.unmapped);
    expect(await countItems(shop.id)).toBe(0);

    const job = await runImport(api, { source: expected.source, fileUrl });
    expect(job).toMatchObject({ status: "succeeded", imported: expected.imported, skipped: expected.issues.length });
    const report = await reportOf(job);
    expect(
      report.issues.map((issue: { line: number; reason: string }) => ({ line: issue.line, reason: issue.reason })),
    ).toEqual(expected.issues);
    const items = await itemsOf(shop.id);
    expect(items.map((item) => [item.customerId, item.productId, item.variantId])).toEqual(
      expected.items.map(([customer, product, variant]) => [customer, product, variant]),
    );
    // Rule 6: an unparseable added_at (null here) becomes the current time, i.e. that of the import run.
    expected.items.forEach(([, , , addedAt], index) => {
      const saved = items[index]!.addedAt;
      if (addedAt !== null) return expect(saved).toBe(addedAt);
      const run = job as typeof job & { startedAt: string | null; finishedAt: string | null };
      expect(Date.parse(saved)).toBeGreaterThanOrEqual(Date.parse(run.startedAt!));
      expect(Date.parse(saved)).toBeLessThanOrEqual(Date.parse(run.finishedAt!));
    });
  });

  it("keeps titles and handles from vendor files, quoted commas and doubled quotes included", async () => {
    const { shop, api } = await connectedShop();
    await runImport(api, {
      source: "vendor_a",
      fileUrl: (await upload(api, fetcher, fixture("vendor_a-v1.csv"))).fileUrl,
    });
    const jeans = (await itemsOf(shop.id)).find((item) => item.productId === "7002");
    expect(jeans).toMatchObject({ handle: "blue, jeans", title: 'Blue Jeans "Slim"' });
  });

  const malformed = [
    { name: "no header row", body: "1001,,9001,,h,2024-01-01\n1002,,9002,,h,2024-01-01\n", error: /header row lacks/ },
    { name: "wrong columns", body: "user,product\n1001,9001\n", error: /header row lacks customer_id/ },
    {
      name: "binary junk",
      body: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x08, 0x00, 0xff, 0xfe]),
      error: /not UTF-8|NUL/,
    },
    {
      name: "an unterminated quote",
      body: 'customer_id,anonymous_id,product_id,variant_id,handle,added_at\n1001,,9001,,ok,2024-01-01\n1001,,9002,,"never closed,2024-01-01\n1001,,9003,,h,2024-01-01\n',
      error: /line 3 is never closed/,
    },
    { name: "an empty file", body: "", error: /empty/ },
  ];

  it.each(malformed)(
    "fails an import of a file with $name, writing nothing, with a report",
    async ({ body, error }) => {
      const { shop, api } = await connectedShop();
      const { fileUrl } = await upload(api, fetcher, body);
      const job = await runImport(api, { source: "csv", fileUrl });
      expect(job.status).toBe("failed");
      expect(job.error).toMatch(error);
      expect(job.imported).toBeNull();
      expect(await countItems(shop.id)).toBe(0);
      expect((await reportOf(job)).error).toBe(job.error);
    },
  );
});

describe("upload URLs (local storage driver)", () => {
  it("refuses a file over 50 MB while streaming, declared or not, and stores nothing", async () => {
    const { api } = await connectedShop();
    const target = await api.POST("/imports/upload", { body: { filename: "big.csv", contentType: "text/csv" } });
    const { uploadUrl, headers, uploadId } = target.data!;
    const size = 50 * 1024 * 1024 + 1;
    const declared = await app.request(uploadUrl, {
      method: "PUT",
      headers: { ...headers, "Content-Length": String(size) },
      body: new Uint8Array(size),
    });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({
      type: expect.stringMatching(/payload-too-large$/),
      maxBytes: 50 * 1024 * 1024,
    });

    // No Content-Length: the body arrives as a stream of 1 MB chunks and is cut off past the cap.
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= size) return controller.close();
        const chunk = new Uint8Array(Math.min(1024 * 1024, size - sent));
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const streamed = await app.request(uploadUrl, {
      method: "PUT",
      headers,
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    const status = await api.GET("/imports/uploads/{uploadId}", { params: { path: { uploadId } } });
    expect(status.data).toMatchObject({ uploaded: false, sizeBytes: null });
    const started = await api.POST("/imports", { body: { source: "csv", fileUrl: target.data!.fileUrl } });
    expect(started.response.status).toBe(422);
  });

  it("accepts exactly the declared Content-Type, and refuses tampered, malformed, misused and expired URLs", async () => {
    const { api } = await connectedShop();
    const target = (await api.POST("/imports/upload", { body: { filename: "a.csv", contentType: "text/csv" } })).data!;
    const put = (url: string, type = "text/csv") =>
      app.request(url, { method: "PUT", headers: { "Content-Type": type }, body: "a\n" });

    const wrongType = await put(target.uploadUrl, "text/plain");
    expect(wrongType.status).toBe(415);
    expect((await wrongType.json()).type).toMatch(/content-type-mismatch$/);

    const tampered = new URL(target.uploadUrl);
    tampered.searchParams.set("maxBytes", String(10 * 1024 * 1024 * 1024));
    expect((await (await put(tampered.toString())).json()).type).toMatch(/signed-url-invalid$/);
    const otherKey = target.uploadUrl.replace(/upl_[A-Za-z0-9]+/, "upl_01jd2x6c5ef0q8w3d0s8b2n7k4");
    expect((await put(otherKey)).status).toBe(403);
    // Malformed percent-encoding, or a path no key of ours has, is a bad URL (403), never a server error.
    const query = new URL(target.uploadUrl).search;
    for (const badPath of ["/files/imports/%E0%A4%A", "/files/imports/a%2F..%2Fb", "/files/imports/a%20b"]) {
      const bad = await put(new URL(`${badPath}${query}`, target.uploadUrl).toString());
      expect(bad.status, badPath).toBe(403);
      expect((await bad.json()).type).toMatch(/signed-url-invalid$/);
    }
    // The upload URL does not serve the file back: a GET needs a GET signature.
    expect((await app.request(target.uploadUrl)).status).toBe(403);

    const expired = await getStorage().presignUpload({
      key: "imports/shop_x/upl_expired.csv",
      contentType: "text/csv",
      maxBytes: 10,
      expiresInSeconds: -1,
    });
    const answer = await put(expired.url);
    expect(answer.status).toBe(403);
    expect((await answer.json()).type).toMatch(/signed-url-expired$/);

    expect((await put(target.uploadUrl)).status).toBe(200);
  });

  it("takes only this shop's uploads as fileUrl, and answers bad requests with problems", async () => {
    const mine = await connectedShop();
    const theirs = await connectedShop();
    const theirUpload = await upload(theirs.api, fetcher, fixture("generic.csv"));
    const foreign = await mine.api.POST("/imports", { body: { source: "csv", fileUrl: theirUpload.fileUrl } });
    expect(foreign.response.status).toBe(422);
    expect(foreign.error).toMatchObject({ errors: [{ pointer: "#/fileUrl" }] });
    const theirs404 = await mine.api.GET("/imports/uploads/{uploadId}", {
      params: { path: { uploadId: theirUpload.uploadId } },
    });
    expect(theirs404.response.status).toBe(404);

    for (const fileUrl of [
      "not a url",
      "https://evil.example/v1/imports/uploads/upl_x",
      "https://localhost:3000/v1/keys",
    ]) {
      const answer = await mine.api.POST("/imports", { body: { source: "csv", fileUrl } });
      expect(answer.response.status, fileUrl).toBe(422);
    }
    const badSource = await mine.api.POST("/imports", {
      body: { source: "vendor_c" as never, fileUrl: theirUpload.fileUrl },
    });
    expect(badSource.response.status).toBe(422);
    const badType = await mine.api.POST("/imports/upload", {
      body: { filename: "a.xlsx", contentType: "application/zip" as never },
    });
    expect(badType.response.status).toBe(422);
    const badName = await mine.api.POST("/imports/upload", { body: { filename: "../a.csv", contentType: "text/csv" } });
    expect(badName.response.status).toBe(422);

    const job = await runImport(theirs.api, { source: "csv", fileUrl: theirUpload.fileUrl });
    const wrongPrefix = await mine.api.GET("/imports/{jobId}", {
      params: { path: { jobId: "lst_01jd2x6c5ef0q8w3d0s8b2n7k4" } },
    });
    expect(wrongPrefix.response.status).toBe(400);
    const notMine = await mine.api.GET("/imports/{jobId}", { params: { path: { jobId: job.jobId } } });
    expect(notMine.response.status).toBe(404);
    const asExport = await theirs.api.GET("/exports/{jobId}", { params: { path: { jobId: job.jobId } } });
    expect(asExport.response.status).toBe(404);
  });
});
