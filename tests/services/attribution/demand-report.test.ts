/**
 * The demand report's rarely bought products when the most saved ones sell well (decision 055): the savers of
 * the first 20 candidates are read beside their purchases, and those of products further down the list after.
 */
import { describe, expect, it } from "vitest";
import { addConversionStats } from "~/data/conversion-rows.server";
import { addProductStats } from "~/data/daily-stat-rows.server";
import { database } from "~/data/database.server";
import { insertItems } from "~/data/item-rows.server";
import { insertDefaultLists, findDefaultLists } from "~/data/list-rows.server";
import { demandReport } from "~/services/attribution/revenue-reports.server";
import { createShop } from "../../factories";

describe("demand report", () => {
  it("lists 20 rarely bought products with their savers when the top ones are bought often", async () => {
    const shop = await createShop();
    const day = "2026-06-10";
    // 25 products: product k saved 100 - k times; the three most saved bought 20 times each (not rare).
    const products = Array.from({ length: 25 }, (_, index) => String(9_100_000 + index));
    await addProductStats(
      database(),
      products.map((productId, index) => ({ shopId: shop.id, day, productId, adds: 100 - index, removes: 0 })),
    );
    await addConversionStats(
      database(),
      products.slice(0, 3).map((productId) => ({
        shopId: shop.id,
        day,
        productId,
        source: "",
        currency: "USD",
        lines: 20,
        quantity: 20,
        revenueMinor: 20_000,
        refundedMinor: 0,
      })),
    );
    // Shoppers holding them now: product k is held by k % 4 + 1 customers.
    const customers = ["c1", "c2", "c3", "c4"];
    await insertDefaultLists(database(), shop.id, "customerId", customers, new Date());
    const lists = await findDefaultLists(database(), shop.id, "customerId", customers);
    const listOf = (customer: string) => lists.find((list) => list.customerId === customer)!.id;
    await insertItems(
      database(),
      shop.id,
      products.flatMap((productId, index) =>
        customers.slice(0, (index % 4) + 1).map((customer) => ({
          listId: listOf(customer),
          productId,
          variantId: "",
          handle: `p-${productId}`,
          titleSnapshot: "",
          addedAt: new Date(`${day}T12:00:00Z`),
        })),
      ),
    );

    const report = await demandReport(shop.id, { from: "2026-06-01", to: "2026-06-30" });

    // Products 4th to 23rd by saves: three of them beyond the first 20 candidates.
    expect(report.rarelyBought.map((row) => row.productId)).toEqual(products.slice(3, 23));
    expect(report.rarelyBought.map((row) => row.savers)).toEqual(
      products.slice(3, 23).map((_, at) => ((at + 3) % 4) + 1),
    );
    expect(report.rarelyBought.every((row) => row.purchases === 0 && row.purchaseRate === 0)).toBe(true);
  });
});
