import { afterAll, describe, expect, it } from "vitest";
import { customerSearch, startFakeAdminApi } from "../../../scripts/lib/fake-admin-api";

// The platform's Admin GraphQL API (import rule 3: customer ids are checked with the shop), on loopback.
const platform = await startFakeAdminApi();
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
platform.answer(customerSearch({}, undefined, { ids: (id) => Number(id) >= 4000 && Number(id) < 4100 }));

const { addItem } = await import("~/services/wishlists/wishlists.server");
const { updateShopSettings } = await import("~/services/shops/shops.server");
const { database } = await import("~/data/database.server");
const { createShopWithKey } = await import("../../factories");
const { useWorker } = await import("../../support/worker");
const { connectToPlatform, countItems, download, runImport, upload, viaApp } = await import("./helpers");
const { apiHarness } = await import("../../support/harness");

const { app, clientFor } = await apiHarness();
const fetcher = viaApp(app);

// The real worker with small lists, so that a file fills them.
const MAX = 3;
useWorker({ MAX_ITEMS_PER_LIST: String(MAX) });
afterAll(() => platform.close());

const HEADER = "customer_id,anonymous_id,product_id,variant_id,handle,added_at";

async function connectedShop() {
  const { shop, secret } = await createShopWithKey();
  await connectToPlatform(shop.domain);
  return { shop, api: clientFor(secret) };
}

const reportOf = async (job: { resultUrl: string | null }) => (await download(fetcher, job.resultUrl!)).json();
const countOf = (shopId: string, customerId: string) => countItems(shopId, customerId);

describe("imports into lists that reach MAX_ITEMS_PER_LIST", () => {
  it("skips the rows beyond the cap as list-full, by line, in the dry run and the real run alike", async () => {
    const { shop, api } = await connectedShop();
    for (const productId of ["1", "2"]) {
      await addItem({
        shopId: shop.id,
        owner: { kind: "customer", customerId: "4000" },
        item: { productId, handle: "h" },
      });
    }
    const file = [
      HEADER,
      "4000,,1,,h,2024-01-01", // line 2: already saved, unchanged
      "4000,,10,,h,2024-01-01", // line 3: the list's last room
      "4000,,11,,h,2024-01-01", // line 4: list-full
      "4000,,2,,h,2024-01-01", // line 5: already saved, unchanged even though the list is full
      "4001,,20,,h,2024-01-01", // lines 6-8: a new list fills up
      "4001,,21,,h,2024-01-01",
      "4001,,22,,h,2024-01-01",
      "4001,,23,,h,2024-01-01", // line 9: list-full
      "4000,,12,,h,2024-01-01", // line 10: list-full
    ].join("\n");
    const { fileUrl } = await upload(api, fetcher, file);

    const dry = await runImport(api, { source: "csv", fileUrl, dryRun: true });
    const real = await runImport(api, { source: "csv", fileUrl });
    for (const job of [dry, real]) {
      expect(job).toMatchObject({ status: "succeeded", imported: 4, skipped: 3, rowsProcessed: 9 });
      const report = await reportOf(job);
      expect(report.totals).toMatchObject({ rows: 9, imported: 4, unchanged: 2, skipped: 3 });
      expect(report.totals.skippedBy).toEqual({ "list-full": 3 });
      expect(report.issues.map((issue: { line: number }) => issue.line).sort((a: number, b: number) => a - b)).toEqual([
        4, 9, 10,
      ]);
      for (const issue of report.issues) {
        expect(issue).toMatchObject({ reason: "list-full", detail: expect.stringContaining(String(MAX)) });
      }
      expect(report.issues.find((issue: { line: number }) => issue.line === 9).value).toBe("4001");
    }
    expect(await countOf(shop.id, "4000")).toBe(MAX);
    expect(await countOf(shop.id, "4001")).toBe(MAX);

    // Running it again changes nothing: the full lists' rows are still skipped, the saved ones unchanged.
    const again = await runImport(api, { source: "csv", fileUrl });
    expect(again).toMatchObject({ status: "succeeded", imported: 0, skipped: 3 });
    expect((await reportOf(again)).totals).toMatchObject({ imported: 0, unchanged: 6, skipped: 3 });
  });

  it("a dry run counts a list's room across batches as the real run does", async () => {
    const { shop, api } = await connectedShop();
    // 1,003 rows for one customer: the first batch (1,000 rows) fills the list, the second finds it full.
    const rows = [HEADER];
    for (let index = 0; index < 1_003; index++) rows.push(`4002,,${100 + index},,h,2024-01-01`);
    const { fileUrl } = await upload(api, fetcher, rows.join("\n"));
    const dry = await runImport(api, { source: "csv", fileUrl, dryRun: true });
    const real = await runImport(api, { source: "csv", fileUrl });
    for (const job of [dry, real]) expect(job).toMatchObject({ status: "succeeded", imported: MAX, skipped: 1_000 });
    expect((await reportOf(real)).totals).toEqual((await reportOf(dry)).totals);
    expect(await countOf(shop.id, "4002")).toBe(MAX);
  });

  it("saves rows naming a list the customer cannot have to the default list, and counts them (toDefaultList)", async () => {
    const { shop, api } = await connectedShop();
    // Two lists per shopper: the default one and one more
    await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true, maxListsPerOwner: 2 } });
    const file = [
      `${HEADER},list_name`,
      "4003,,30,,h,2024-01-01,Gifts", // creates Gifts
      "4003,,31,,h,2024-01-01,gifts", // the same list, in another case
      "4003,,32,,h,2024-01-01,Kitchen", // no room for a third list: the default one
      "4003,,33,,h,2024-01-01,", // the default list, named by no one
    ].join("\n");
    const { fileUrl } = await upload(api, fetcher, file);
    const dry = await runImport(api, { source: "csv", fileUrl, dryRun: true });
    const real = await runImport(api, { source: "csv", fileUrl });
    for (const job of [dry, real]) {
      expect(job).toMatchObject({ status: "succeeded", imported: 4, skipped: 0 });
      expect((await reportOf(job)).totals).toMatchObject({ imported: 4, toDefaultList: 1 });
    }
    const lists = await database()
      .selectFrom("List")
      .innerJoin("Item", "Item.listId", "List.id")
      .select(["List.name", "Item.productId"])
      .where("List.shopId", "=", shop.id)
      .orderBy("Item.productId")
      .execute();
    expect(lists.map((row) => `${row.productId}:${row.name}`)).toEqual([
      "30:Gifts",
      "31:Gifts",
      "32:Wishlist",
      "33:Wishlist",
    ]);

    // A shop that keeps one list per shopper saves every named row to the default list, and says so
    const { shop: single, api: singleApi } = await connectedShop();
    const other = await runImport(singleApi, {
      source: "csv",
      fileUrl: (await upload(singleApi, fetcher, file.replaceAll("4003", "4004"))).fileUrl,
    });
    expect((await reportOf(other)).totals).toMatchObject({ imported: 3, toDefaultList: 3, skipped: 1 });
    expect(await countOf(single.id, "4004")).toBe(MAX);
  });

  it("a dry run counts the lists an earlier batch made, as the real run does (toDefaultList)", async () => {
    const { shop, api } = await connectedShop();
    // Two lists per shopper: the default one and one more
    await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true, maxListsPerOwner: 2 } });
    // The first batch (1,000 rows) makes Gifts, the customer's second list; the second batch names Kitchen,
    // a third list there is no room for: it goes to the default list
    const rows = [`${HEADER},list_name`, "4008,,40,,h,2024-01-01,Gifts"];
    for (let index = 0; index < 999; index++) rows.push("4009,,41,,h,2024-01-01,");
    rows.push("4008,,42,,h,2024-01-01,Kitchen");
    const { fileUrl } = await upload(api, fetcher, rows.join("\n"));
    const dry = await runImport(api, { source: "csv", fileUrl, dryRun: true });
    const real = await runImport(api, { source: "csv", fileUrl });
    expect((await reportOf(real)).totals).toMatchObject({ imported: 3, toDefaultList: 1 });
    expect((await reportOf(dry)).totals).toEqual((await reportOf(real)).totals);
    const lists = await database()
      .selectFrom("List")
      .select("name")
      .where("shopId", "=", shop.id)
      .where("customerId", "=", "4008")
      .orderBy("id")
      .execute();
    expect(lists.map((row) => row.name)).toEqual(["Wishlist", "Gifts"]);
  });

  it("a dry run counts a row saved to the default list for want of its list once, as the real run does", async () => {
    const { shop, api } = await connectedShop();
    // One list per shopper: every row naming a list goes to the default list
    // The same product, naming a list, in the first batch and again in the second: imported once
    const rows = [`${HEADER},list_name`, "4012,,60,,h,2024-01-01,Kitchen"];
    for (let index = 0; index < 999; index++) rows.push("4013,,61,,h,2024-01-01,");
    rows.push("4012,,60,,h,2024-01-01,Kitchen");
    const { fileUrl } = await upload(api, fetcher, rows.join("\n"));
    const dry = await runImport(api, { source: "csv", fileUrl, dryRun: true });
    const real = await runImport(api, { source: "csv", fileUrl });
    expect((await reportOf(real)).totals).toMatchObject({ imported: 2, toDefaultList: 2 });
    expect((await reportOf(dry)).totals).toEqual((await reportOf(real)).totals);
    expect(dry).toMatchObject({ imported: real.imported });
    expect(await countOf(shop.id, "4012")).toBe(1);
  });

  it("takes list names and notes as the API does: joiners kept, text direction overrides and line separators not", async () => {
    const { shop, api } = await connectedShop();
    await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true } });
    // GIVEN the customer's list whose name needs joiners (an emoji family), as the API takes it and exports it
    const family = "\u{1f468}\u200d\u{1f469}\u200d\u{1f467} Family";
    const { createList } = await import("~/services/wishlists/named-lists.server");
    await createList({ shopId: shop.id, owner: { kind: "customer", customerId: "4010" }, name: family });
    // WHEN a file names that list, with a note holding what the API refuses in notes (a right-to-left override
    // that makes "gpj.exe" read "exe.jpg", a line separator)
    const file = [
      `${HEADER},list_name,note`,
      `4010,,50,,h,2024-01-01,${family},size M \u202egpj.exe\u2028for Sam`,
    ].join("\n");
    const { fileUrl } = await upload(api, fetcher, file);
    const job = await runImport(api, { source: "csv", fileUrl });
    expect(job).toMatchObject({ status: "succeeded", imported: 1 });
    // THEN the item is on that list (no second list of a near name), and the note holds none of them
    const rows = await database()
      .selectFrom("List")
      .leftJoin("Item", "Item.listId", "List.id")
      .select(["List.name", "Item.note"])
      .where("List.shopId", "=", shop.id)
      .where("List.customerId", "=", "4010")
      .orderBy("List.id")
      .execute();
    expect(rows).toEqual([
      { name: "Wishlist", note: null },
      { name: family, note: "size M  gpj.exe for Sam" },
    ]);
  });

  it("refuses a MAX_ITEMS_PER_LIST that is not a positive whole number", async () => {
    const { parseEnv } = await import("~/env.server");
    for (const value of ["0", "-1", "2.5", "many"]) {
      expect(() => parseEnv({ ...process.env, MAX_ITEMS_PER_LIST: value })).toThrow(/MAX_ITEMS_PER_LIST/);
    }
  });
});
