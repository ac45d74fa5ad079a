import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  addProductStats,
  addShopStats,
  countActiveOwners,
  countSaversOfProducts,
  findShopStats,
  insertActiveOwners,
  topProductStats,
} from "~/data/daily-stat-rows.server";
import { database, engine, transaction } from "~/data/database.server";
import { findCatalogueTitles } from "~/data/item-rows.server";
import { upsertShop } from "~/data/shop-rows.server";
import { newId } from "~/lib/ids";

/** The analytics rollups on both engines: additive upserts, once-a-day owners, range sums, scoping. */
async function newShop() {
  return upsertShop(
    database(),
    {
      id: newId("shop"),
      domain: `stats-${randomBytes(4).toString("hex")}.myshopify.com`,
      publicKey: `svc_pk_${randomBytes(12).toString("hex")}`,
      settings: "{}",
    },
    new Date(),
  );
}

describe(`daily stat rows (${engine()})`, () => {
  it("counts an owner once a day: only first sightings come back", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    const day = "2026-06-01";
    expect(
      await insertActiveOwners(database(), [
        { shopId: shop.id, day, ownerKey: "c:1" },
        { shopId: shop.id, day, ownerKey: "a:x" },
      ]),
    ).toHaveLength(2);
    const again = await insertActiveOwners(database(), [
      { shopId: shop.id, day, ownerKey: "c:1" },
      { shopId: shop.id, day: "2026-06-02", ownerKey: "c:1" },
      { shopId: other.id, day, ownerKey: "c:1" },
    ]);
    expect(again).toEqual(
      expect.arrayContaining([
        { shopId: shop.id, day: "2026-06-02", ownerKey: "c:1" },
        { shopId: other.id, day, ownerKey: "c:1" },
      ]),
    );
    expect(again).toHaveLength(2);
    expect(await insertActiveOwners(database(), [])).toEqual([]);
    expect(await countActiveOwners(database(), shop.id, "2026-06-01", "2026-06-02")).toBe(2);
    expect(await countActiveOwners(database(), shop.id, "2026-06-02", "2026-06-02")).toBe(1);
    expect(await countActiveOwners(database(), other.id, "2026-06-01", "2026-06-30")).toBe(1);
  });

  it("counts the distinct owners of any range up to 366 days exactly, whatever order their days arrive in", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    // 12 owners over two years: some days close together, some a year or more apart, inserted in a shuffled
    // order in batches (a late batch puts a day before days already recorded), some twice.
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    const base = Date.parse("2025-01-01T00:00:00Z");
    const dayOf = (offset: number) => new Date(base + offset * 86_400_000).toISOString().slice(0, 10);
    const rows: Array<{ shopId: string; day: string; ownerKey: string }> = [];
    for (let owner = 0; owner < 12; owner++) {
      for (let visit = 0; visit < 8; visit++) {
        rows.push({ shopId: shop.id, day: dayOf(Math.floor(next() * 730)), ownerKey: `a:owner-${owner}` });
      }
    }
    rows.push(
      { shopId: shop.id, day: dayOf(10), ownerKey: "c:1" },
      { shopId: shop.id, day: dayOf(376), ownerKey: "c:1" },
    );
    rows.push(
      { shopId: shop.id, day: dayOf(20), ownerKey: "c:2" },
      { shopId: shop.id, day: dayOf(385), ownerKey: "c:2" },
    );
    rows.push({ shopId: other.id, day: dayOf(100), ownerKey: "a:owner-1" });
    const shuffled = rows.map((row) => ({ row, key: next() })).sort((a, b) => a.key - b.key);
    for (let at = 0; at < shuffled.length; at += 9) {
      const batch = shuffled.slice(at, at + 9).map(({ row }) => row);
      await transaction((tx) =>
        insertActiveOwners(
          tx,
          [...batch, ...batch.slice(0, 2)].filter(
            (row, index, all) =>
              all.findIndex((o) => o.day === row.day && o.ownerKey === row.ownerKey && o.shopId === row.shopId) ===
              index,
          ),
        ),
      );
    }
    await insertActiveOwners(database(), rows.slice(0, 5)); // already there: nothing changes
    const direct = async (from: string, to: string) =>
      Number(
        (
          await database()
            .selectFrom("DailyActiveOwner")
            .select((eb) => eb.fn.count<number>("ownerKey").distinct().as("n"))
            .where("shopId", "=", shop.id)
            .where("day", ">=", from)
            .where("day", "<=", to)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const ranges: Array<[number, number]> = [
      [0, 365],
      [10, 375],
      [11, 376],
      [364, 729],
      [376, 376],
      [20, 385],
      [21, 386],
    ];
    for (let index = 0; index < 60; index++) {
      const from = Math.floor(next() * 730);
      ranges.push([from, Math.min(729, from + Math.floor(next() * 366))]);
    }
    for (const [from, to] of ranges) {
      expect([dayOf(from), dayOf(to), await countActiveOwners(database(), shop.id, dayOf(from), dayOf(to))]).toEqual([
        dayOf(from),
        dayOf(to),
        await direct(dayOf(from), dayOf(to)),
      ]);
    }
    expect(await countActiveOwners(database(), other.id, dayOf(0), dayOf(365))).toBe(1);
    // A day of no one's: nothing.
    expect(await countActiveOwners(database(), shop.id, "2024-01-01", "2024-01-02")).toBe(0);
  });

  it("counts an owner once when transactions add their days at the same time", async () => {
    const shop = await newShop();
    const days = Array.from({ length: 12 }, (_, index) => `2026-03-${String(index + 1).padStart(2, "0")}`);
    // Each day of the same two owners in a transaction of its own, all at once.
    await Promise.all(
      days.map((day) =>
        transaction((tx) =>
          insertActiveOwners(tx, [
            { shopId: shop.id, day, ownerKey: "c:7" },
            { shopId: shop.id, day, ownerKey: "a:seven" },
          ]),
        ),
      ),
    );
    expect(await countActiveOwners(database(), shop.id, days[0]!, days.at(-1)!)).toBe(2);
    for (const day of days) expect(await countActiveOwners(database(), shop.id, day, days.at(-1)!)).toBe(2);
  });

  it("adds to existing counts and creates missing rows, many rows in one statement", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    await addShopStats(database(), [{ shopId: shop.id, day: "2026-06-01", adds: 2, removes: 1, activeShoppers: 1 }]);
    await addShopStats(database(), [
      { shopId: shop.id, day: "2026-06-01", adds: 3, removes: 0, activeShoppers: 2 },
      { shopId: shop.id, day: "2026-06-03", adds: 1, removes: 1, activeShoppers: 1 },
      { shopId: other.id, day: "2026-06-01", adds: 9, removes: 9, activeShoppers: 9 },
    ]);
    await addShopStats(database(), []);
    expect(await findShopStats(database(), shop.id, "2026-06-01", "2026-06-02")).toEqual([
      { day: "2026-06-01", adds: 5, removes: 1, activeShoppers: 3 },
    ]);
    expect(await findShopStats(database(), shop.id, "2026-06-01", "2026-06-03")).toHaveLength(2);
  });

  it("sums product counts over the range, most saved first, ties by product id, within the shop", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    const stat = (day: string, productId: string, adds: number, removes = 0) => ({
      shopId: shop.id,
      day,
      productId,
      adds,
      removes,
    });
    await addProductStats(database(), [
      stat("2026-06-01", "b", 2),
      stat("2026-06-01", "a", 1, 1),
      stat("2026-06-01", "c", 5),
    ]);
    await addProductStats(database(), [
      stat("2026-06-02", "a", 1),
      stat("2026-06-01", "b", 1),
      stat("2026-07-01", "z", 99),
    ]);
    await addProductStats(database(), [{ ...stat("2026-06-01", "q", 50), shopId: other.id }]);
    expect(await topProductStats(database(), shop.id, "2026-06-01", "2026-06-30", 10)).toEqual([
      { productId: "c", adds: 5, removes: 0 },
      { productId: "b", adds: 3, removes: 0 },
      { productId: "a", adds: 2, removes: 1 },
    ]);
    expect(await topProductStats(database(), shop.id, "2026-06-02", "2026-06-02", 1)).toEqual([
      { productId: "a", adds: 1, removes: 0 },
    ]);
  });

  it("sums any range from the week and month rows exactly as from the days, batches spanning periods included", async () => {
    const shop = await newShop();
    // 14 months of days, 6 products, counts from a fixed generator, added in batches that cross weeks and months
    let seed = 7;
    const next = () => (seed = (seed * 48_271) % 2_147_483_647) % 7;
    const stats: Array<{ shopId: string; day: string; productId: string; adds: number; removes: number }> = [];
    for (let at = Date.UTC(2025, 9, 1); at <= Date.UTC(2026, 11, 1); at += 86_400_000) {
      const day = new Date(at).toISOString().slice(0, 10);
      for (const productId of ["p1", "p2", "p3", "p4", "p5", "p6"]) {
        const adds = next();
        if (adds > 0) stats.push({ shopId: shop.id, day, productId, adds, removes: next() % 2 });
      }
    }
    for (let start = 0; start < stats.length; start += 97)
      await addProductStats(database(), stats.slice(start, start + 97));
    const direct = (from: string, to: string) => {
      const sums = new Map<string, { productId: string; adds: number; removes: number }>();
      for (const stat of stats.filter((row) => row.day >= from && row.day <= to)) {
        const sum = sums.get(stat.productId) ?? { productId: stat.productId, adds: 0, removes: 0 };
        sum.adds += stat.adds;
        sum.removes += stat.removes;
        sums.set(stat.productId, sum);
      }
      return [...sums.values()].sort((a, b) => b.adds - a.adds || (a.productId < b.productId ? -1 : 1));
    };
    const ranges: Array<[string, string]> = [
      ["2026-11-23", "2026-11-29"], // one whole week
      ["2026-10-31", "2026-11-29"], // weeks and days, no whole month
      ["2026-09-01", "2026-11-29"], // months, weeks and days
      ["2025-11-30", "2026-11-29"], // a year
      ["2025-10-01", "2026-12-01"], // everything
      ["2026-02-01", "2026-02-28"], // one month exactly
      ["2026-03-15", "2026-03-15"], // one day
    ];
    for (const [from, to] of ranges) {
      expect(await topProductStats(database(), shop.id, from, to, 10), `${from}..${to}`).toEqual(direct(from, to));
    }
  });

  it("adds concurrent batches of one day row without losing any", async () => {
    const shop = await newShop();
    await Promise.all(
      Array.from({ length: 10 }, () =>
        transaction((tx) =>
          addShopStats(tx, [{ shopId: shop.id, day: "2026-06-05", adds: 1, removes: 0, activeShoppers: 0 }]),
        ),
      ),
    );
    expect((await findShopStats(database(), shop.id, "2026-06-05", "2026-06-05"))[0]?.adds).toBe(10);
  });

  it("reads current savers and the latest catalogue handle and title of products from the shop's items", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    const lists = [newId("list"), newId("list"), newId("list")];
    for (const id of lists) {
      await database()
        .insertInto("List")
        .values({ id, shopId: shop.id, anonymousId: id, updatedAt: new Date() })
        .execute();
    }
    const item = (listId: string, productId: string, handle: string, addedAt: string, variantId = "") => ({
      id: newId("item"),
      listId,
      ownerKey: `a:${listId}`,
      shopId: shop.id,
      productId,
      variantId,
      handle,
      titleSnapshot: handle.toUpperCase(),
      addedAt: new Date(addedAt),
      // The catalogue named the older items; the newest save of p1 and the save of p2 carry a shopper's title.
      catalogueTitleAt: handle.startsWith("old") ? new Date(addedAt) : null,
    });
    await database()
      .insertInto("Item")
      .values([
        item(lists[0]!, "p1", "old", "2026-06-01T00:00:00.000Z"),
        item(lists[2]!, "p1", "older", "2026-05-01T00:00:00.000Z", "v2"),
        item(lists[1]!, "p1", "new", "2026-06-02T00:00:00.000Z"),
        item(lists[1]!, "p2", "two", "2026-06-01T00:00:00.000Z"),
      ])
      .execute();
    const savers = await countSaversOfProducts(database(), shop.id, ["p1", "p2", "p3"]);
    expect(Object.fromEntries(savers)).toEqual({ p1: 3, p2: 1 });
    // The report's names come from the catalogue's latest title and handle (findCatalogueTitles).
    const latest = await findCatalogueTitles(database(), shop.id, ["p1", "p2"]);
    // p1: its latest item the catalogue named; p2: none was, so no title and no handle (a shopper's is never
    // the product's, decision 029).
    expect(latest.get("p1")).toMatchObject({ handle: "old", titleSnapshot: "OLD" });
    expect(latest.get("p2")).toBeUndefined();
    expect((await countSaversOfProducts(database(), other.id, ["p1"])).size).toBe(0);
    expect((await findCatalogueTitles(database(), other.id, ["p1"])).size).toBe(0);
    expect((await findCatalogueTitles(database(), shop.id, [])).size).toBe(0);
  });
});
