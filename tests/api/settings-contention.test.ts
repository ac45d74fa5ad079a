import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { newId } from "~/lib/ids";
import { createShopWithKey } from "../factories";
import { apiHarness } from "../support/harness";

const { clientFor } = await apiHarness();

/** A shop with `customers` customer lists, and its API client. */
async function shopWithCustomers(customers: number) {
  const { shop, secret } = await createShopWithKey();
  const at = new Date();
  for (let start = 0; start < customers; start += 1_000) {
    const count = Math.min(1_000, customers - start);
    await database()
      .insertInto("List")
      .values(
        Array.from({ length: count }, (_, n) => ({
          id: newId("list"),
          shopId: shop.id,
          customerId: String(100_000_000 + start + n),
          createdAt: at,
          updatedAt: at,
        })),
      )
      .execute();
  }
  return { shop, api: clientFor(secret) };
}

describe("settings changes of a large shop", { timeout: 300_000 }, () => {
  // A settings change holds the shop's row lock, and every PATCH of the shop waiting for it holds a
  // connection of the pool. When that lock was held while every customer was marked for the metafield
  // sync (seconds for 100,000 customers), the toggles queued for the pool past its 5 s connect timeout:
  // 5 of these 30 answered 503 "the database cannot be reached", and the pool was the other shops' too.
  it("the metafield sync toggled 30 times at once: every change answers 200, and so does another shop meanwhile", async () => {
    const noisy = await shopWithCustomers(100_000);
    const quiet = await shopWithCustomers(1);

    const toggles = Array.from({ length: 30 }, (_, n) =>
      noisy.api.PATCH("/shop/settings", { body: { metafieldSyncEnabled: n % 2 === 0 } }),
    );
    let settled = false;
    const toggled = Promise.all(toggles).finally(() => (settled = true));
    // The other shop reads its overview, one request after another, for as long as the toggles run (at
    // least 5 reads; at most 200, well within its key's 600 a minute).
    const readStatuses: number[] = [];
    while ((!settled || readStatuses.length < 5) && readStatuses.length < 200) {
      readStatuses.push((await quiet.api.GET("/shop")).response.status);
    }

    expect(readStatuses).toEqual(readStatuses.map(() => 200));
    expect((await toggled).map(({ response }) => response.status)).toEqual(toggles.map(() => 200));
    // The request marked nobody: the worker's job marks the customers, a page at a time.
    const marked = await database()
      .selectFrom("CustomerMetafieldSync")
      .select(({ fn }) => fn.countAll<number>().as("count"))
      .where("shopId", "=", noisy.shop.id)
      .executeTakeFirstOrThrow();
    expect(Number(marked.count)).toBe(0);
  });
});
