import { CompiledQuery, type KyselyPlugin, type RootOperationNode } from "kysely";
import { describe, expect, it } from "vitest";
import { database, engine, transaction, type Queryable } from "~/data/database.server";
import { findAlertsMadeAfter, findItemsSavedAfter, findReminderScan } from "~/data/reminder-rows.server";
import { updateAlertSettingsText } from "~/data/shop-rows.server";
import { newId } from "~/lib/ids";
import { alertSettingsSchema } from "~/services/alerts/alert-settings";
import { runReminders } from "~/services/alerts/reminders.server";
import { createList, createShop, ownerKeyOf } from "../../factories";

/**
 * The reminders' passes over a large shop (docs/decisions/050-wishlist-alerts.md#reminders), on both engines:
 * the items are read a page of an index at a time, each row once, and a run reads a bounded number of rows
 * and leaves the rest to the next run, which goes on where it stopped. No worker: the runs are called as the
 * worker's job calls them, and nothing is sent (the passes are what is measured).
 */
const DAY = 24 * 60 * 60 * 1000;

/** Items of one list, saved `at` (several at one instant: the pages must split ties by id). */
async function seedItems(
  shopId: string,
  list: { id: string; customerId: string | null; anonymousId: string | null },
  count: number,
  at: (n: number) => Date,
) {
  const rows = Array.from({ length: count }, (_, n) => ({
    id: newId("item"),
    listId: list.id,
    ownerKey: ownerKeyOf(list),
    shopId,
    productId: String(8_500_000_000 + n),
    handle: `p-${n}`,
    addedAt: at(n),
  }));
  for (let start = 0; start < rows.length; start += 500) {
    await database()
      .insertInto("Item")
      .values(rows.slice(start, start + 500))
      .execute();
  }
  return rows;
}

/** The statements a data-layer call runs, compiled as the engine runs them. */
async function statementsOf(call: (q: Queryable) => Promise<unknown>): Promise<CompiledQuery[]> {
  const nodes: RootOperationNode[] = [];
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => {
      nodes.push(node);
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  await call(database().withPlugin(plugin));
  return nodes.map((node) =>
    database()
      .getExecutor()
      .compileQuery(node, { queryId: newId("event") }),
  );
}

/** The engine's plan of a statement, as one text (PostgreSQL told to use an index where one serves). */
async function planOf(statement: CompiledQuery): Promise<string> {
  return transaction(async (tx) => {
    if (engine() === "sqlite") {
      const { rows } = await tx.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`EXPLAIN QUERY PLAN ${statement.sql}`, [...statement.parameters]),
      );
      return rows.map((row) => row.detail).join("\n");
    }
    // The tables of a test are small: without this the planner reads them whole, whatever the indexes.
    await tx.executeQuery(CompiledQuery.raw("SET LOCAL enable_seqscan = off"));
    const { rows } = await tx.executeQuery<{ "QUERY PLAN": string }>(
      CompiledQuery.raw(`EXPLAIN ${statement.sql}`, [...statement.parameters]),
    );
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  });
}

describe(`the reminders' scan (${engine()})`, () => {
  it("reads a shop's items saved by a time a page at a time, in the order saved, each once", async () => {
    const shop = await createShop();
    const other = await createShop();
    const guest = await createList(shop.id);
    const start = Date.now() - 40 * DAY;
    // 2,503 items, ten to an instant, then three saved after the time the scan reads to.
    const items = await seedItems(shop.id, guest, 2_503, (n) =>
      n < 2_500 ? new Date(start + Math.floor(n / 10) * 60_000) : new Date(Date.now() - DAY),
    );
    await seedItems(other.id, await createList(other.id), 20, () => new Date(start));
    const savedBy = new Date(Date.now() - 14 * DAY);

    const pages: string[][] = [];
    let after: { at: Date; id: string } | null = null;
    for (;;) {
      const rows: Awaited<ReturnType<typeof findItemsSavedAfter>> = await findItemsSavedAfter(database(), shop.id, {
        after,
        savedBy,
        limit: 1_000,
      });
      if (rows.length === 0) break;
      pages.push(rows.map((row) => row.id));
      after = { at: rows.at(-1)!.addedAt, id: rows.at(-1)!.id };
    }
    expect(pages.map((page) => page.length)).toEqual([1_000, 1_000, 500]);
    const expected = items
      .slice(0, 2_500)
      .sort((a, b) => a.addedAt.getTime() - b.addedAt.getTime() || (a.id < b.id ? -1 : 1))
      .map((item) => item.id);
    expect(pages.flat()).toEqual(expected);
  });

  it("has each pass's statements served by its index, not a read of the shop's rows", async () => {
    const shop = await createShop();
    const after = { at: new Date(Date.now() - 20 * DAY), id: "itm_x" };
    const [scan] = await statementsOf((q) =>
      findItemsSavedAfter(q, shop.id, { after, savedBy: new Date(Date.now() - 14 * DAY), limit: 1_000 }),
    );
    expect(await planOf(scan!)).toContain("Item_shopId_addedAt_id_idx");
    const [weekly] = await statementsOf((q) =>
      findAlertsMadeAfter(q, shop.id, { kind: "reminder", after, madeBy: new Date(), limit: 1_000 }),
    );
    expect(await planOf(weekly!)).toContain("Alert_shopId_kind_createdAt_id_idx");
  });

  it("reads a bounded number of rows a run, and the next run goes on where it stopped", async () => {
    const shop = await createShop();
    const settings = alertSettingsSchema.parse({
      reminders: { enabled: true, afterDays: 14 },
      email: { enabled: true, fromAddress: "wishlist@shop.example", smtp: { host: "smtp.shop.example" } },
    });
    await updateAlertSettingsText(database(), shop.id, JSON.stringify(settings), new Date());
    // 6,000 guest items, then one customer's item: the customer's comes due after all of them.
    const start = Date.now() - 60 * DAY;
    await seedItems(shop.id, await createList(shop.id), 6_000, (n) => new Date(start + n * 1_000));
    const list = await createList(shop.id, { customerId: "7001" }, { isDefault: true });
    await database()
      .insertInto("Item")
      .values({
        id: newId("item"),
        listId: list.id,
        ownerKey: "c:7001",
        shopId: shop.id,
        productId: "8100000002",
        handle: "harbor-wool-coat",
        addedAt: new Date(start + DAY),
      })
      .execute();
    await database()
      .insertInto("CatalogueVariant")
      .values({
        shopId: shop.id,
        productId: "8100000002",
        variantId: "9100000002",
        title: "Default Title",
        priceMinor: 3_600,
        currency: "USD",
        available: true,
        readAt: new Date(),
      })
      .execute();

    const first = await runReminders({ shopId: shop.id });
    expect(first).toMatchObject({ scanned: 5_000, more: true, reminders: 0 });
    const second = await runReminders({ shopId: shop.id });
    expect(second).toMatchObject({ scanned: 1_001, reminders: 1 });
    expect(second.more).toBeUndefined();
    expect((await findReminderScan(database(), shop.id)).item?.at).toEqual(new Date(start + DAY));
    // Nothing new: a run reads nothing.
    expect(await runReminders({ shopId: shop.id })).toMatchObject({ scanned: 0, revisited: 0, reminders: 0 });
  });
});
