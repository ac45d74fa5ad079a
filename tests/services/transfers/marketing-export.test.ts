import { randomUUID } from "node:crypto";
import Papa from "papaparse";
import { afterAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { resetEnvCache } from "~/env.server";
import { getStorage } from "~/services/storage/index.server";
import { addItem } from "~/services/wishlists/wishlists.server";
import type { StandInShop } from "../../../stand-in/demo-data";
import { createShopWithKey } from "../../factories";
import { standInGraphql, startFakeAdminApi } from "../../../scripts/lib/fake-admin-api";
import type { apiClient } from "../../support/openapi-client";
import { BASE_URL } from "../../support/http";
import { platformWebhook } from "../../support/platform-webhooks";
import { until } from "../../support/poll";
import { useWorker } from "../../support/worker";
import { connectToPlatform, download, finished, viaApp } from "./helpers";
import { apiHarness } from "../../support/harness";

// The platform's Admin API, answered by the stand-in's GraphQL engine (a query it would refuse is refused):
// two customers, one of whom named herself like a spreadsheet formula, and a product with two variants.
const catalogue: StandInShop = {
  domain: "marketing.myshopify.com",
  name: "Marketing",
  accessToken: "shpat_x",
  currency: "EUR",
  customers: [
    { id: "7001", email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" },
    { id: "7002", email: "grace@example.com", firstName: '=HYPERLINK("http://evil.example","x")', lastName: "Hopper" },
  ],
  products: [
    {
      id: "8100000001",
      handle: "linen-shirt",
      title: "Linen Shirt",
      price: "29.00",
      colour: "#fff",
      variants: [
        { id: "9100000011", title: "Small", price: "29.00" },
        { id: "9100000012", title: "Large", price: "34.50" },
      ],
    },
    { id: "8100000002", handle: "wool-coat", title: "Wool Coat", price: "180.00", colour: "#000" },
  ],
  theme: { id: "gid://shopify/OnlineStoreTheme/1", name: "Dawn", blocks: {} },
};
const platform = await startFakeAdminApi();
platform.answer(standInGraphql(catalogue));
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
resetEnvCache();
afterAll(() => platform.close());

const { app, clientFor } = await apiHarness();
const fetcher = viaApp(app);

useWorker();

const HEADER = [
  "customer_id",
  "email",
  "first_name",
  "last_name",
  "product_id",
  "product_title",
  "variant_id",
  "variant_title",
  "price",
  "currency",
  "added_at",
];

/** A shop whose customers 7001 and 7002 saved items, with a guest's and a departed customer's saves beside. */
async function shopWithSaves() {
  const { shop, secret } = await createShopWithKey();
  await connectToPlatform(shop.domain);
  const save = (owner: Parameters<typeof addItem>[0]["owner"], productId: string, variantId?: string, day = 1) =>
    addItem({
      shopId: shop.id,
      owner,
      item: { productId, variantId, handle: "h", title: "Saved title" },
      at: new Date(Date.UTC(2024, 2, day)),
    });
  await save({ kind: "customer", customerId: "7001" }, "8100000001", "9100000012", 1);
  await save({ kind: "customer", customerId: "7001" }, "8100000002", undefined, 2);
  await save({ kind: "customer", customerId: "7002" }, "8100000002", undefined, 3);
  // A product the shop no longer sells: no price, and no title (the one its save carried is a shopper's, never
  // written as the product's: decision 029).
  await save({ kind: "customer", customerId: "7002" }, "8100000099", undefined, 4);
  // A customer the shop no longer has, and a guest: neither has an email to write to.
  await save({ kind: "customer", customerId: "7999" }, "8100000001", undefined, 5);
  await save({ kind: "anonymous", anonymousId: randomUUID() }, "8100000001", undefined, 6);
  return { shop, secret, api: clientFor(secret) };
}

async function marketingExport(api: ReturnType<typeof apiClient>) {
  const started = await api.POST("/exports", { body: { format: "marketing_csv" } });
  expect(started.response.status, JSON.stringify(started.error)).toBe(202);
  return finished(api, "exports", started.data!.jobId);
}

describe("the marketing export", () => {
  it("writes each customer's saves with their email, name, titles and price; guests and departed customers left out", async () => {
    const { api } = await shopWithSaves();
    await shopWithSaves(); // another shop's saves, of the same customers: never in this shop's file
    const job = await marketingExport(api);
    expect(job).toMatchObject({ status: "succeeded", kind: "export", format: "marketing_csv", rowsProcessed: 4 });

    const response = await download(fetcher, job.resultUrl!);
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="wishlist-marketing-${job.jobId}.csv"`,
    );
    const { data } = Papa.parse<string[]>((await response.text()).trimEnd(), { newline: "\r\n" });
    expect(data).toEqual([
      HEADER,
      [
        "7001",
        "ada@example.com",
        "Ada",
        "Lovelace",
        "8100000001",
        "Linen Shirt",
        "9100000012",
        "Large",
        "34.50",
        "EUR",
        "2024-03-01T00:00:00.000Z",
      ],
      [
        "7001",
        "ada@example.com",
        "Ada",
        "Lovelace",
        "8100000002",
        "Wool Coat",
        "",
        "",
        "180.00",
        "EUR",
        "2024-03-02T00:00:00.000Z",
      ],
      // The formula guard: a spreadsheet shows the name as text rather than running it.
      [
        "7002",
        "grace@example.com",
        `'=HYPERLINK("http://evil.example","x")`,
        "Hopper",
        "8100000002",
        "Wool Coat",
        "",
        "",
        "180.00",
        "EUR",
        "2024-03-03T00:00:00.000Z",
      ],
      [
        "7002",
        "grace@example.com",
        `'=HYPERLINK("http://evil.example","x")`,
        "Hopper",
        "8100000099",
        "",
        "",
        "",
        "",
        "",
        "2024-03-04T00:00:00.000Z",
      ],
    ]);

    // Names and emails were asked of the platform for this file only, 250 ids a query at most.
    const asked = platform.calls.filter((call) => call.query.includes("WishlistMarketingExport"));
    expect(asked.length).toBeGreaterThan(0);
    for (const call of asked) expect((call.variables.ids as string[]).length).toBeLessThanOrEqual(250);

    // The re-importable export is unchanged by it: the contract's six columns and the trailing ones of issue 28.
    const generic = await finished(
      api,
      "exports",
      (await api.POST("/exports", { body: { format: "csv" } })).data!.jobId,
    );
    const genericText = await (await download(fetcher, generic.resultUrl!)).text();
    expect(genericText.split("\r\n")[0]).toBe(
      "customer_id,anonymous_id,product_id,variant_id,handle,added_at,list_name,note,quantity",
    );
    expect(genericText).not.toContain("ada@example.com");
  });

  it("fails at once, writing no file, when the platform refuses the customers' details", async () => {
    const { api } = await shopWithSaves();
    // What the platform answers a query for customer fields the app may not read (scope or approval missing).
    platform.answer((call) =>
      call.query.includes("WishlistMarketingExport")
        ? {
            status: 200,
            body: {
              errors: [
                {
                  message: "Access denied for firstName field. Required access: `read_customers` access scope.",
                  extensions: { code: "ACCESS_DENIED" },
                },
              ],
            },
          }
        : standInGraphql(catalogue)(call),
    );
    try {
      const job = await marketingExport(api);
      expect(job).toMatchObject({ status: "failed", resultUrl: null });
      expect(job.error).toContain("The customers' names and emails could not be read");
      expect(job.error).toContain("No file was written.");
      expect(job.error).toContain("read_customers");
      const row = await database().selectFrom("TransferJob").selectAll().where("id", "=", job.jobId).executeTakeFirst();
      expect(row!.resultKey).toBeNull();
      expect(await getStorage().stat(`exports/${row!.shopId}/${job.jobId}.csv`)).toBeNull();
    } finally {
      platform.answer(standInGraphql(catalogue));
    }
  });

  it("is deleted when one of its customers is erased (customers/redact)", async () => {
    const { shop, api } = await shopWithSaves();
    const job = await marketingExport(api);
    expect(job.status).toBe("succeeded");
    const key = `exports/${shop.id}/${job.jobId}.csv`;
    expect(await getStorage().stat(key)).not.toBeNull();

    const body = JSON.stringify({
      shop_id: 1,
      shop_domain: shop.domain,
      customer: { id: 7002, email: "grace@example.com", phone: null },
      orders_to_redact: [],
    });
    const answered = await app.request(
      `${BASE_URL}/webhooks/customers/redact`,
      platformWebhook("customers/redact", shop.domain, body),
    );
    expect(answered.status).toBe(200);
    await until(
      () => getStorage().stat(key),
      (stat) => stat === null,
      "the marketing export naming the erased customer is deleted",
    );
    // The job stays listed; its link finds no file.
    expect((await fetcher(job.resultUrl!)).status).toBe(404);
  });

  it("is asked for with a format the contract knows; anything else is refused with a problem document", async () => {
    const { api } = await shopWithSaves();
    const refused = await api.POST("/exports", { body: { format: "marketing_xlsx" as never } });
    expect(refused.response.status).toBe(422);
    expect(refused.response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });
});
