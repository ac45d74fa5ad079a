import Database from "better-sqlite3";
import pg from "pg";
import { inject } from "vitest";
import { sqliteFilePath } from "~/env.server";

/**
 * Holds the database's write lock from ANOTHER connection (as the worker process does when it writes),
 * until the returned function is called (once or more). SQLite: `BEGIN IMMEDIATE` on a connection of its
 * own. PostgreSQL: the tables that the app's writes touch, locked against writers (readers go on).
 */
export async function holdWriteLockElsewhere(): Promise<() => Promise<void>> {
  const url = process.env.DATABASE_URL!;
  let end: () => Promise<void>;
  if (inject("engine") === "sqlite") {
    const other = new Database(sqliteFilePath(url));
    other.prepare("BEGIN IMMEDIATE").run();
    end = async () => {
      other.prepare("COMMIT").run();
      other.close();
    };
  } else {
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    await other.query("BEGIN");
    await other.query(`LOCK TABLE "ApiKey", "Shop", "HeadlessOrigin", "List", "Item", "Event" IN EXCLUSIVE MODE`);
    end = async () => {
      await other.query("COMMIT");
      await other.end();
    };
  }
  let ended: Promise<void> | undefined;
  return () => (ended ??= end());
}
