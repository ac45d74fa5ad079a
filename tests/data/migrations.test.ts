import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { sql } from "kysely";
import { insertActiveOwners } from "~/data/daily-stat-rows.server";
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

  it("enforces foreign keys (and SQLite runs in WAL mode)", async () => {
    await expect(
      database()
        .insertInto("Item")
        .values({ id: "itm_orphan", listId: "lst_missing", shopId: "shop_missing", productId: "1", handle: "x" })
        .execute(),
    ).rejects.toThrow();
    if (engine === "sqlite") {
      const { rows } = await sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(database());
      expect(rows[0]?.journal_mode).toBe("wal");
    }
  });
});
