import { spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { sqliteDialect } from "~/data/sqlite-dialect.server";
import { sqliteWriteLock } from "~/data/sqlite-lock.server";
import { ROOT, TEST_DATA_DIR } from "../../scripts/lib/databases";

// Opening a SQLite file while another PROCESS holds its write lock, as the worker does when `npm run dev`
// starts it while the web process writes (issue 25, item 19). Statements never wait inside SQLite
// (docs/decisions/016-sqlite-writers.md); opening (the journal mode, the PRAGMAs, the first read) does, for
// a bounded time. The holder is another process: opening waits synchronously, so a timer of this one could
// not release the lock. Any SQLite file shows it, on either project.
const dir = path.join(TEST_DATA_DIR, `sqlite-open-${process.pid}`);
mkdirSync(dir, { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A database as the migrations leave it (rollback journal, not yet WAL), with a table. */
function freshDatabase(name: string): string {
  const file = path.join(dir, name);
  const db = new Database(file);
  db.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)");
  db.close();
  return file;
}

/** Another process that takes the file's write lock, writes, and holds it for `holdMs` before committing. */
async function holdLockInAnotherProcess(file: string, holdMs: number) {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `const db = new (require("better-sqlite3"))(process.argv[1]);
       db.prepare("BEGIN IMMEDIATE").run();
       db.prepare("INSERT INTO item (name) VALUES ('held')").run();
       process.stdout.write("locked\\n");
       setTimeout(() => { db.prepare("COMMIT").run(); db.close(); }, Number(process.argv[2]));`,
      file,
      String(holdMs),
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolve());
    child.once("exit", (code) => reject(new Error(`the lock holder exited (${code}) before taking the lock`)));
  });
  return { exited };
}

function open(file: string, openWaitMs?: number) {
  return sqliteDialect({ file, lock: sqliteWriteLock(file), writerPragmas: ["cache_size = -16384"], openWaitMs });
}

describe("opening a SQLite database that another process is writing", () => {
  it("waits for the other process's lock, then opens in WAL mode with statements that never wait", async () => {
    const file = freshDatabase("waits.db");
    const holder = await holdLockInAnotherProcess(file, 1_500);
    const started = performance.now();
    const { connections } = open(file);
    try {
      expect(performance.now() - started).toBeGreaterThan(500);
      expect(connections.writer.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(connections.reader.prepare("SELECT name FROM item").all()).toEqual([{ name: "held" }]);
      // Decision 016: once open, a statement that finds the database busy fails at once (and is retried
      // asynchronously by the data layer), never waiting inside SQLite.
      expect(connections.writer.pragma("busy_timeout", { simple: true })).toBe(0);
      expect(connections.reader.pragma("busy_timeout", { simple: true })).toBe(0);
      expect(await holder.exited).toBe(0);
    } finally {
      connections.reader.close();
      connections.writer.close();
    }
  });

  it("gives up after its bound with an error that says the database is locked by another process", async () => {
    const file = freshDatabase("bounded.db");
    const holder = await holdLockInAnotherProcess(file, 4_000);
    const started = performance.now();
    expect(() => open(file, 300)).toThrow(
      /another process held the database's lock for longer than 0.3 s while it was being opened/,
    );
    expect(performance.now() - started).toBeLessThan(3_500);
    expect(await holder.exited).toBe(0);
  });
});
