import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { sql } from "kysely";
import { database } from "~/data/database.server";
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
