/**
 * docs/recipes/backfill-from-export.md (issue 31): the recipe exports through the real web process and worker,
 * downloads the CSV from its signed link, and ends with exactly the expected rows: customers' default and named
 * lists with notes and quantities, a guest under the export's pseudonym, cells behind the formula guard read
 * back as saved. A second run changes nothing, and a file downloaded before loads to the same rows.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createWishlistClient } from "../../sdk/src/index";
import { createShopWithKey } from "../factories";
import { runExampleOk, useService } from "../support/examples";
import { until } from "../support/poll";

const { baseUrl } = await useService();
const dir = mkdtempSync(path.join(tmpdir(), "backfill-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the backfill recipe", () => {
  it("loads a real export into exactly the expected rows, once", async () => {
    const { secret } = await createShopWithKey();
    const wishlist = createWishlistClient({ baseUrl, privateKey: secret });
    await wishlist.PATCH("/shop/settings", { body: { multipleLists: true } });
    const save = async (query: { customerId: string } | { aid: string }, body: Record<string, string>) =>
      (
        await wishlist.POST("/storefront/wishlist/items", {
          params: { query },
          body: body as { productId: string; handle: string },
        })
      ).data!;

    const coat = await save({ customerId: "9101" }, { productId: "8100000002", handle: "harbor-wool-coat" });
    const sweater = await save(
      { customerId: "9101" },
      { productId: "8100000007", variantId: "9200000007", handle: "orchard-knit-sweater" },
    );
    const gifts = (
      await wishlist.POST("/storefront/wishlists", {
        params: { query: { customerId: "9101" } },
        body: { name: "Gifts" },
      })
    ).data!;
    const scarf = await save(
      { customerId: "9101" },
      { productId: "8100000009", handle: "ember-wool-scarf", listId: gifts.id! },
    );
    // A note a spreadsheet would run as a formula: the export guards it.
    await wishlist.PATCH("/storefront/wishlist/items/{itemId}", {
      params: { path: { itemId: scarf.id }, query: { customerId: "9101" } },
      body: { note: "=for Sam, size M", quantity: 2 },
    });
    const hat = await save({ customerId: "9102" }, { productId: "8100000003", handle: "-meadow-sun-hat" });
    const guestId = randomUUID();
    const shirt = await save({ aid: guestId }, { productId: "8100000001", handle: "aurora-linen-shirt" });

    const customerRow = (customerId: string, listName: string, item: typeof coat, extra = {}) => ({
      owner: `customer:${customerId}`,
      listName,
      productId: item.productId,
      variantId: item.variantId,
      handle: item.handle,
      addedAt: item.addedAt,
      note: null,
      quantity: 1,
      ...extra,
    });
    const expected = {
      "customer:9101//8100000002": customerRow("9101", "", coat),
      "customer:9101//8100000007": customerRow("9101", "", sweater),
      "customer:9101/Gifts/8100000009": customerRow("9101", "Gifts", scarf, { note: "=for Sam, size M", quantity: 2 }),
      "customer:9102//8100000003": customerRow("9102", "", hat),
    };

    const warehouseFile = path.join(dir, "warehouse.json");
    const env = { WISHLIST_URL: baseUrl, WISHLIST_PRIVATE_KEY: secret, WAREHOUSE_FILE: warehouseFile };
    const first = await runExampleOk("recipes/backfill.ts", env);
    expect(first.stdout).toMatch(/^export job_\w+: 5 rows\n5 rows: \{"inserted":5,"updated":0,"unchanged":0\}\n$/);
    const warehouse = JSON.parse(readFileSync(warehouseFile, "utf8")) as Record<string, { owner: string }>;
    const guestKeys = Object.keys(warehouse).filter((key) => key.startsWith("guest:"));
    expect(guestKeys).toHaveLength(1);
    // The guest's row carries the export's pseudonym, never the anonymous id itself.
    expect(guestKeys[0]).toMatch(/^guest:[0-9a-f-]{36}\/\/8100000001$/);
    expect(guestKeys[0]).not.toContain(guestId);
    expect(warehouse).toEqual({
      ...expected,
      [guestKeys[0]!]: {
        ...customerRow("", "", shirt),
        owner: guestKeys[0]!.slice(0, guestKeys[0]!.indexOf("/")),
      },
    });

    // Again: nothing changes.
    const second = await runExampleOk("recipes/backfill.ts", env);
    expect(second.stdout).toMatch(/5 rows: \{"inserted":0,"updated":0,"unchanged":5\}\n$/);
    expect(JSON.parse(readFileSync(warehouseFile, "utf8"))).toEqual(warehouse);

    // A file downloaded before (as from the admin's Exports page) loads to the same rows.
    const { data: accepted } = await wishlist.POST("/exports", { body: { format: "csv" } });
    const job = await until(
      async () => (await wishlist.GET("/exports/{jobId}", { params: { path: { jobId: accepted!.jobId } } })).data!,
      (read) => read.status === "succeeded",
      "the export",
    );
    const csvFile = path.join(dir, `wishlist-export-${job.jobId}.csv`);
    writeFileSync(csvFile, await (await fetch(job.resultUrl!)).text());
    const fromFile = path.join(dir, "from-file.json");
    const loaded = await runExampleOk("recipes/backfill.ts", { ...env, WAREHOUSE_FILE: fromFile }, [csvFile]);
    expect(loaded.stdout).toBe(`5 rows: {"inserted":5,"updated":0,"unchanged":0}\n`);
    expect(JSON.parse(readFileSync(fromFile, "utf8"))).toEqual(warehouse);
  });
});
