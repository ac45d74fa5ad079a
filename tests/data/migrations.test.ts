import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { sql } from "kysely";
import { addProductStats, insertActiveOwners } from "~/data/daily-stat-rows.server";
import { database, transaction, type Queryable } from "~/data/database.server";
import { upsertShop } from "~/data/shop-rows.server";
import { newId } from "~/lib/ids";
import { ROOT } from "../../scripts/lib/databases";

const engine = inject("engine");
const folder = engine === "sqlite" ? "prisma/migrations" : "prisma/postgres/migrations";

describe(`migrations on ${engine}`, () => {
  it("applied every migration of the engine's folder, each finished", async () => {
    const expected = readdirSync(path.join(ROOT, folder), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    const { rows: applied } = await sql<{ migration_name: string; finished_at: unknown }>`
      SELECT migration_name, finished_at FROM _prisma_migrations ORDER BY migration_name`.execute(database());
    expect(applied.map((row) => row.migration_name)).toEqual(expected);
    expect(applied.every((row) => row.finished_at !== null)).toBe(true);
  });

  it("created every table of the data model", async () => {
    const query =
      engine === "sqlite"
        ? sql<{
            name: string;
          }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_prisma_migrations'`
        : sql<{
            name: string;
          }>`SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`;
    const tables = (await query.execute(database())).rows.map((row) => row.name).sort();
    expect(tables).toEqual([
      "Alert",
      "AlertMessage",
      "AlertSuppression",
      "ApiKey",
      "CatalogueVariant",
      "ComplianceRequest",
      "Conversion",
      "ConversionRefund",
      "CustomerMetafieldSync",
      "DailyActiveOwner",
      "DailyConversionDelay",
      "DailyConversionOrder",
      "DailyConversionStat",
      "DailyOwnerReturn",
      "DailyProductStat",
      "DailyShopStat",
      "Event",
      "FlowTriggerUse",
      "HeadlessOrigin",
      "IdempotencyRecord",
      "Item",
      "List",
      "MonthlyProductStat",
      "PlanUsage",
      "PlatformWebhook",
      "ProductRefresh",
      "ReminderScan",
      "Session",
      "Shop",
      "TransferJob",
      "Upload",
      "WebhookDelivery",
      "WebhookDeliveryDue",
      "WebhookEndpoint",
      "WeeklyProductStat",
    ]);
  });

  it("added the retention columns as nullable timestamps (TransferJob.resultDeletedAt, Upload.fileDeletedAt)", async () => {
    const columns = async (table: string) =>
      engine === "sqlite"
        ? (
            await sql<{
              name: string;
              type: string;
              notnull: number;
            }>`SELECT name, type, "notnull" FROM pragma_table_info(${table})`.execute(database())
          ).rows.map((row) => ({ name: row.name, type: row.type, nullable: row.notnull === 0 }))
        : (
            await sql<{ name: string; type: string; nullable: string }>`
              SELECT column_name::text AS name, data_type::text AS type, is_nullable::text AS nullable
              FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${table}`.execute(
              database(),
            )
          ).rows.map((row) => ({ name: row.name, type: row.type, nullable: row.nullable === "YES" }));
    const timestamp = engine === "sqlite" ? "DATETIME" : "timestamp without time zone";
    expect(await columns("TransferJob")).toContainEqual({ name: "resultDeletedAt", type: timestamp, nullable: true });
    expect(await columns("Upload")).toContainEqual({ name: "fileDeletedAt", type: timestamp, nullable: true });
  });

  it("backfilled DailyOwnerReturn from the active owners recorded before it, as the app keeps it since", async () => {
    const backfill = readFileSync(path.join(ROOT, folder, "20261129155808_distinct_shoppers/migration.sql"), "utf8")
      .split("-- Backfill")[1]!
      .split("\n")
      .slice(1)
      .join("\n");
    const newShop = (name: string) =>
      upsertShop(
        database(),
        {
          id: newId("shop"),
          domain: `${name}-${Date.now()}.myshopify.com`,
          publicKey: `svc_pk_${name}${Date.now()}`,
          settings: "{}",
        },
        new Date(),
      );
    const [kept, backfilled] = [await newShop("kept"), await newShop("backfilled")];
    // The same owner-days: one shop's through the app (which keeps DailyOwnerReturn), the other's as rows of
    // before the migration (DailyActiveOwner only).
    const days = [
      ["a:1", "2025-01-01"],
      ["a:1", "2025-01-05"],
      ["a:1", "2026-01-05"], // 365 days after: its previous day is kept
      ["a:1", "2027-01-10"], // more than 365 days after: none
      ["c:2", "2025-01-05"],
      ["c:2", "2025-03-01"],
      ["a:3", "2025-03-01"],
    ] as const;
    await insertActiveOwners(
      database(),
      days.map(([ownerKey, day]) => ({ shopId: kept.id, day, ownerKey })),
    );
    await database()
      .insertInto("DailyActiveOwner")
      .values(days.map(([ownerKey, day]) => ({ shopId: backfilled.id, day, ownerKey })))
      .execute();
    const rowsOf = (q: Queryable, shopId: string) =>
      q
        .selectFrom("DailyOwnerReturn")
        .select(["day", "previousDay", "owners"])
        .where("shopId", "=", shopId)
        .where("owners", "<>", 0)
        .orderBy("day")
        .orderBy("previousDay")
        .execute();
    const expected = await rowsOf(database(), kept.id);
    expect(expected).toEqual([
      { day: "2025-01-01", previousDay: "", owners: 1 },
      { day: "2025-01-05", previousDay: "", owners: 1 },
      { day: "2025-01-05", previousDay: "2025-01-01", owners: 1 },
      { day: "2025-03-01", previousDay: "", owners: 1 },
      { day: "2025-03-01", previousDay: "2025-01-05", owners: 1 },
      { day: "2026-01-05", previousDay: "2025-01-05", owners: 1 },
      { day: "2027-01-10", previousDay: "", owners: 1 },
    ]);
    // The migration's backfill, run again on the whole table in a transaction that is then rolled back.
    let backfilledRows: unknown;
    await expect(
      transaction(async (tx) => {
        await tx.deleteFrom("DailyOwnerReturn").execute();
        await sql.raw(backfill).execute(tx);
        backfilledRows = await rowsOf(tx, backfilled.id);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(backfilledRows).toEqual(expected);
  });

  it("backfilled the week and month sums of the product counts recorded before them, as the app keeps them since", async () => {
    const backfill = readFileSync(path.join(ROOT, folder, "20261129185702_product_stat_periods/migration.sql"), "utf8")
      .split("-- Backfill")[1]!
      .split("\n")
      .slice(1)
      .join("\n");
    const newShop = (name: string) =>
      upsertShop(
        database(),
        {
          id: newId("shop"),
          domain: `${name}-${Date.now()}.myshopify.com`,
          publicKey: `svc_pk_${name}${Date.now()}`,
          settings: "{}",
        },
        new Date(),
      );
    const [kept, backfilled] = [await newShop("kept-periods"), await newShop("backfilled-periods")];
    // Days across a month end inside a week (Sunday 2026-11-29 .. Tuesday 2026-12-01), a leap day and a year end.
    const days = [
      ["p1", "2024-02-29", 2, 1],
      ["p1", "2024-03-01", 1, 0],
      ["p1", "2025-12-31", 4, 0],
      ["p1", "2026-01-01", 1, 1],
      ["p2", "2026-11-29", 3, 0],
      ["p2", "2026-11-30", 5, 2],
      ["p2", "2026-12-01", 1, 0],
    ] as const;
    await addProductStats(
      database(),
      days.map(([productId, day, adds, removes]) => ({ shopId: kept.id, day, productId, adds, removes })),
    );
    await database()
      .insertInto("DailyProductStat")
      .values(days.map(([productId, day, adds, removes]) => ({ shopId: backfilled.id, day, productId, adds, removes })))
      .execute();
    const rowsOf = async (q: Queryable, shopId: string) => ({
      weeks: await q
        .selectFrom("WeeklyProductStat")
        .select(["week", "productId", "adds", "removes"])
        .where("shopId", "=", shopId)
        .orderBy("week")
        .orderBy("productId")
        .execute(),
      months: await q
        .selectFrom("MonthlyProductStat")
        .select(["month", "productId", "adds", "removes"])
        .where("shopId", "=", shopId)
        .orderBy("month")
        .orderBy("productId")
        .execute(),
    });
    const expected = await rowsOf(database(), kept.id);
    expect(expected).toEqual({
      weeks: [
        { week: "2024-02-26", productId: "p1", adds: 3, removes: 1 },
        { week: "2025-12-29", productId: "p1", adds: 5, removes: 1 },
        { week: "2026-11-23", productId: "p2", adds: 3, removes: 0 },
        { week: "2026-11-30", productId: "p2", adds: 6, removes: 2 },
      ],
      months: [
        { month: "2024-02", productId: "p1", adds: 2, removes: 1 },
        { month: "2024-03", productId: "p1", adds: 1, removes: 0 },
        { month: "2025-12", productId: "p1", adds: 4, removes: 0 },
        { month: "2026-01", productId: "p1", adds: 1, removes: 1 },
        { month: "2026-11", productId: "p2", adds: 8, removes: 2 },
        { month: "2026-12", productId: "p2", adds: 1, removes: 0 },
      ],
    });
    // The migration's backfill, run again on the whole table in a transaction that is then rolled back.
    let backfilledRows: unknown;
    await expect(
      transaction(async (tx) => {
        await tx.deleteFrom("WeeklyProductStat").execute();
        await tx.deleteFrom("MonthlyProductStat").execute();
        for (const statement of backfill.split(";").filter((text) => text.trim() !== "")) {
          await sql.raw(statement).execute(tx);
        }
        backfilledRows = await rowsOf(tx, backfilled.id);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(backfilledRows).toEqual(expected);
  });

  it("backfilled each item's owner from its list", async () => {
    const text = readFileSync(path.join(ROOT, folder, "20261129185007_demand_item_owner/migration.sql"), "utf8");
    const shop = await upsertShop(
      database(),
      {
        id: newId("shop"),
        domain: `owners-${Date.now()}.myshopify.com`,
        publicKey: `svc_pk_o${Date.now()}`,
        settings: "{}",
      },
      new Date(),
    );
    const at = new Date();
    const lists = [
      { id: newId("list"), shopId: shop.id, customerId: "41", createdAt: at, updatedAt: at },
      {
        id: newId("list"),
        shopId: shop.id,
        anonymousId: "0b3f2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
        createdAt: at,
        updatedAt: at,
      },
    ];
    await database().insertInto("List").values(lists).execute();
    const items = lists.map((list) => ({
      id: newId("item"),
      listId: list.id,
      ownerKey: "",
      shopId: shop.id,
      productId: "1",
      handle: "h",
    }));
    await database().insertInto("Item").values(items).execute();
    const ownersOf = (q: Queryable, table: string) =>
      sql<{
        id: string;
        ownerKey: string;
      }>`select "id", "ownerKey" from ${sql.table(table)} where "shopId" = ${shop.id} order by "id"`.execute(q);
    let backfilled: unknown;
    await expect(
      transaction(async (tx) => {
        if (engine === "sqlite") {
          // The migration rebuilds the table: its copy statement, run into a scratch table of the same columns.
          const copy = text.slice(
            text.indexOf('INSERT INTO "new_Item"'),
            text.indexOf(";", text.indexOf('INSERT INTO "new_Item"')),
          );
          await sql`CREATE TEMP TABLE "new_Item" AS SELECT * FROM "Item" WHERE 0`.execute(tx);
          await sql.raw(copy).execute(tx);
          backfilled = (await ownersOf(tx, "new_Item")).rows;
          await sql`DROP TABLE temp."new_Item"`.execute(tx);
        } else {
          const update = text.slice(text.indexOf('UPDATE "Item"'), text.indexOf(";", text.indexOf('UPDATE "Item"')));
          await sql.raw(update).execute(tx);
          backfilled = (await ownersOf(tx, "Item")).rows;
        }
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(backfilled).toEqual(
      [
        { id: items[0]!.id, ownerKey: "c:41" },
        { id: items[1]!.id, ownerKey: "a:0b3f2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f" },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
  });

  it("enforces foreign keys (and SQLite runs in WAL mode)", async () => {
    await expect(
      database()
        .insertInto("Item")
        .values({
          id: "itm_orphan",
          listId: "lst_missing",
          ownerKey: "",
          shopId: "shop_missing",
          productId: "1",
          handle: "x",
        })
        .execute(),
    ).rejects.toThrow();
    if (engine === "sqlite") {
      const { rows } = await sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(database());
      expect(rows[0]?.journal_mode).toBe("wal");
    }
  });
});
