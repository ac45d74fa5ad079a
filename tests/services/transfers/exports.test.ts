import { randomUUID } from "node:crypto";
import Papa from "papaparse";
import { afterAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { resetEnvCache } from "~/env.server";
import { newId } from "~/lib/ids";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createList, updateItem } from "~/services/wishlists/named-lists.server";
import { addItem } from "~/services/wishlists/wishlists.server";
import { createShopWithKey } from "../../factories";
import { connectToPlatform, download, finished, RISKY_HANDLES, runImport, upload, viaApp } from "./helpers";
import { customerSearch, startFakeAdminApi } from "../../../scripts/lib/fake-admin-api";
import { until } from "../../support/poll";
import { useWorker } from "../../support/worker";
import { apiHarness } from "../../support/harness";

// Re-imports check each row's customer with the platform: a stand-in for its Admin API knows customer 3001.
const platform = await startFakeAdminApi();
platform.answer(customerSearch({}, undefined, { ids: ["3001"] }));
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
resetEnvCache();
afterAll(() => platform.close());

const { app, clientFor } = await apiHarness();
const fetcher = viaApp(app);

useWorker();

async function shopWithItems() {
  const { shop, secret } = await createShopWithKey();
  await connectToPlatform(shop.domain);
  const customer = { kind: "customer" as const, customerId: "3001" };
  const guestId = randomUUID();
  for (const [index, handle] of RISKY_HANDLES.entries()) {
    await addItem({
      shopId: shop.id,
      owner: customer,
      item: { productId: String(100 + index), handle },
      at: new Date(Date.UTC(2024, 0, index + 1)),
    });
  }
  await addItem({
    shopId: shop.id,
    owner: customer,
    item: { productId: "200", variantId: "201", handle: "plain, comma" },
  });
  await addItem({
    shopId: shop.id,
    owner: { kind: "anonymous", anonymousId: guestId },
    item: { productId: "300", handle: "guest" },
  });
  return { shop, guestId, api: clientFor(secret) };
}

describe("exports through the real worker", () => {
  it("streams the shop's items as generic CSV, guards formulas, hides guest ids, and re-imports to 0", async () => {
    const { shop, guestId, api } = await shopWithItems();
    const other = await shopWithItems(); // another shop's items never appear
    const started = await api.POST("/exports", { body: { format: "csv" } });
    expect(started.response.status).toBe(202);
    const job = await finished(api, "exports", started.data!.jobId);
    const rowCount = RISKY_HANDLES.length + 2; // the risky handles, a plain one and a guest's
    expect(job).toMatchObject({
      status: "succeeded",
      kind: "export",
      format: "csv",
      rowsProcessed: rowCount,
      error: null,
    });

    const response = await download(fetcher, job.resultUrl!);
    expect(response.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="wishlist-export-${job.jobId}.csv"`);
    const text = await response.text();
    const { data } = Papa.parse<string[]>(text.trimEnd(), { newline: "\r\n" });
    expect(data[0]).toEqual([
      ...["customer_id", "anonymous_id", "product_id", "variant_id", "handle", "added_at"],
      ...["list_name", "note", "quantity"],
    ]);
    const rows = data.slice(1);
    expect(rows).toHaveLength(rowCount);
    const byProduct = new Map(rows.map((row) => [row[2], row]));
    for (const [index, handle] of RISKY_HANDLES.entries()) {
      expect(byProduct.get(String(100 + index))![4]).toBe(`'${handle}`);
    }
    expect(byProduct.get("100")![5]).toBe("2024-01-01T00:00:00.000Z");
    expect(byProduct.get("200")).toEqual(["3001", "", "200", "201", "plain, comma", expect.any(String), "", "", "1"]);
    const guestRow = byProduct.get("300")!;
    expect(guestRow[0]).toBe("");
    expect(guestRow[1]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(guestRow[1]).not.toBe(guestId);
    expect(text).not.toContain(other.guestId);

    // Rule 8: the export re-imports cleanly: nothing new, the guest row skipped, handles unchanged.
    const itemsOf = (shopId: string) =>
      database().selectFrom("Item").selectAll().where("shopId", "=", shopId).orderBy("id").execute();
    // The worker's product lookups of these untitled saves change the rows on their own schedule (later on a
    // loaded machine): they settle first, so the comparison sees only what the import did.
    const before = await until(
      () => itemsOf(shop.id),
      (items) => items.every((item) => item.productLookupAt === null),
      "the product lookups of the saved items are done",
    );
    const { fileUrl } = await upload(api, fetcher, text);
    const reimport = await runImport(api, { source: "csv", fileUrl });
    expect(reimport).toMatchObject({ status: "succeeded", imported: 0, skipped: 1, rowsProcessed: rowCount });
    expect(await itemsOf(shop.id)).toEqual(before);

    // Into another shop, the same file imports every customer row with its addedAt and handle intact.
    const { api: emptyApi, shop: empty } = await (async () => {
      const created = await createShopWithKey();
      await connectToPlatform(created.shop.domain);
      return { shop: created.shop, api: clientFor(created.secret) };
    })();
    const copy = await runImport(emptyApi, { source: "csv", fileUrl: (await upload(emptyApi, fetcher, text)).fileUrl });
    expect(copy).toMatchObject({ imported: rowCount - 1, skipped: 1 });
    const copied = await database()
      .selectFrom("Item")
      .selectAll()
      .where("shopId", "=", empty.id)
      .orderBy("productId")
      .execute();
    expect(copied.map((item) => item.handle)).toEqual([...RISKY_HANDLES, "plain, comma"]);
    expect(copied[0]!.addedAt.toISOString()).toBe("2024-01-01T00:00:00.000Z");
  });

  it("carries list names, notes and quantities (issue 28) into a file that re-imports them; six columns on request", async () => {
    const { shop, secret } = await createShopWithKey();
    await connectToPlatform(shop.domain);
    await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true } });
    const api = clientFor(secret);
    const customer = { kind: "customer" as const, customerId: "3001" };
    const gifts = await createList({ shopId: shop.id, owner: customer, name: "=Gifts+1" });
    const saved = await addItem({ shopId: shop.id, owner: customer, item: { productId: "11", handle: "a" } });
    await updateItem({
      shopId: shop.id,
      owner: customer,
      itemId: saved.item.id,
      changes: { note: 'size M, "Sam"', quantity: 3 },
    });
    await addItem({ shopId: shop.id, owner: customer, listId: gifts.id, item: { productId: "12", handle: "b" } });

    const job = await finished(api, "exports", (await api.POST("/exports", { body: { format: "csv" } })).data!.jobId);
    const text = await (await download(fetcher, job.resultUrl!)).text();
    const rows = Papa.parse<string[]>(text.trimEnd(), { newline: "\r\n" }).data.slice(1);
    const byProduct = new Map(rows.map((row) => [row[2], row.slice(6)]));
    // The default list's rows name no list; a name a spreadsheet could run is guarded, as every cell is.
    expect(byProduct.get("11")).toEqual(["", 'size M, "Sam"', "3"]);
    expect(byProduct.get("12")).toEqual(["'=Gifts+1", "", "1"]);

    // Into another shop that keeps named lists, the file makes the same lists, notes and quantities.
    const other = await createShopWithKey();
    await connectToPlatform(other.shop.domain);
    await updateShopSettings({ shopId: other.shop.id, patch: { multipleLists: true } });
    const otherApi = clientFor(other.secret);
    const copy = await runImport(otherApi, { source: "csv", fileUrl: (await upload(otherApi, fetcher, text)).fileUrl });
    expect(copy).toMatchObject({ status: "succeeded", imported: 2, skipped: 0 });
    const copied = await database()
      .selectFrom("Item")
      .innerJoin("List", "List.id", "Item.listId")
      .select(["Item.productId", "List.name", "List.isDefault", "Item.note", "Item.quantity"])
      .where("Item.shopId", "=", other.shop.id)
      .orderBy("Item.productId")
      .execute();
    expect(copied).toEqual([
      { productId: "11", name: "Wishlist", isDefault: true, note: 'size M, "Sam"', quantity: 3 },
      { productId: "12", name: "=Gifts+1", isDefault: null, note: "", quantity: 1 },
    ]);
    // Into a shop that keeps one list per shopper, every row lands on the default list: nothing is lost.
    const single = await createShopWithKey();
    await connectToPlatform(single.shop.domain);
    const singleApi = clientFor(single.secret);
    const flat = await runImport(singleApi, {
      source: "csv",
      fileUrl: (await upload(singleApi, fetcher, text)).fileUrl,
    });
    expect(flat).toMatchObject({ status: "succeeded", imported: 2 });
    const lists = await database().selectFrom("List").select("name").where("shopId", "=", single.shop.id).execute();
    expect(lists.map((list) => list.name)).toEqual(["Wishlist"]);

    // The contract's six columns alone, on request.
    const six = await finished(
      api,
      "exports",
      (await api.POST("/exports", { body: { format: "csv_six_columns" } })).data!.jobId,
    );
    expect(six).toMatchObject({ format: "csv_six_columns" });
    const sixText = await (await download(fetcher, six.resultUrl!)).text();
    expect(sixText.split("\r\n")[0]).toBe("customer_id,anonymous_id,product_id,variant_id,handle,added_at");
    expect(sixText).not.toContain("Sam");
  });

  it("leaves out retired guest lists, even a whole batch of them before the live items", async () => {
    const { shop, secret } = await createShopWithKey();
    const api = clientFor(secret);
    const retired = { id: newId("list"), anonymousId: randomUUID() };
    const at = new Date();
    await database()
      .insertInto("List")
      .values({
        id: retired.id,
        shopId: shop.id,
        anonymousId: retired.anonymousId,
        retiredAt: at,
        createdAt: at,
        updatedAt: at,
      })
      .execute();
    // In chunks: SQLite takes at most 32,766 bound values in one statement.
    for (let start = 0; start < 2_100; start += 500) {
      await database()
        .insertInto("Item")
        .values(
          Array.from({ length: Math.min(500, 2_100 - start) }, (_, index) => ({
            id: newId("item"),
            listId: retired.id,
            ownerKey: `a:${retired.anonymousId}`,
            shopId: shop.id,
            productId: String(start + index + 1),
            handle: "retired",
            addedAt: at,
          })),
        )
        .execute();
    }
    await addItem({
      shopId: shop.id,
      owner: { kind: "customer", customerId: "4001" },
      item: { productId: "9", handle: "live" },
    });
    const job = await finished(api, "exports", (await api.POST("/exports", { body: { format: "csv" } })).data!.jobId);
    expect(job.rowsProcessed).toBe(1);
    const text = await (await download(fetcher, job.resultUrl!)).text();
    expect(text.trimEnd().split("\r\n")).toEqual([
      "customer_id,anonymous_id,product_id,variant_id,handle,added_at,list_name,note,quantity",
      expect.stringMatching(/^4001,,9,,live,.*,,,1$/),
    ]);
  });

  it("exports an empty shop as a header row, pages the job list newest first, and refuses unknown formats", async () => {
    const { shop, secret } = await createShopWithKey();
    const api = clientFor(secret);
    const ids: string[] = [];
    for (let index = 0; index < 3; index++)
      ids.push((await api.POST("/exports", { body: { format: "csv" } })).data!.jobId);
    const job = await finished(api, "exports", ids[0]!);
    expect(job.rowsProcessed).toBe(0);
    expect(await (await download(fetcher, job.resultUrl!)).text()).toBe(
      "customer_id,anonymous_id,product_id,variant_id,handle,added_at,list_name,note,quantity\r\n",
    );

    const first = await api.GET("/exports", { params: { query: { limit: 2 } } });
    expect(first.data!.data.map((entry) => entry.jobId)).toEqual([ids[2], ids[1]]);
    const second = await api.GET("/exports", {
      params: { query: { limit: 2, cursor: first.data!.pageInfo.nextCursor! } },
    });
    expect(second.data!.data.map((entry) => entry.jobId)).toEqual([ids[0]]);
    expect(second.data!.pageInfo.nextCursor).toBeNull();
    expect((await api.GET("/imports", {})).data!.data).toEqual([]);

    const xlsx = await api.POST("/exports", { body: { format: "xlsx" as never } });
    expect(xlsx.response.status).toBe(422);
    const jobs = await database()
      .selectFrom("TransferJob")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("shopId", "=", shop.id)
      .executeTakeFirstOrThrow();
    expect(Number(jobs.n)).toBe(3);

    // A tampered download link is refused; the untampered one still works.
    const tampered = new URL(job.resultUrl!);
    tampered.searchParams.set("filename", "other.csv");
    expect((await app.request(tampered.toString())).status).toBe(403);
  });
});
