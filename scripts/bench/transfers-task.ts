/**
 * One measured task of the transfers benchmark, in a process of its own so its peak RSS is its own.
 * Prints `RESULT <json>` with rows, seconds, peak RSS and batch latency percentiles (a batch: 1,000 rows
 * resolved, inserted and committed, or one 2,000-row page of an export; ours are heard on the jobs'
 * diagnostics channel, the references time their own). Tasks:
 *   parse <file>                papaparse alone over the file (streamed), counting rows
 *   reference-insert <file>     parse + raw multi-row inserts with the bare driver, one transaction per 1,000 rows
 *   import <jobId> <shopId>     our import job (runTransferJob: the worker's code path), dry run or not per the row
 *   export <jobId> <shopId>     our export job
 *   reference-export <shopId> <out>  raw keyset select-to-CSV stream with the bare driver
 */
import { createReadStream, createWriteStream, readFileSync } from "node:fs";
import { subscribe } from "node:diagnostics_channel";
import { once } from "node:events";
import Papa from "papaparse";
import { typeidUnboxed } from "typeid-js";

const [task, ...args] = process.argv.slice(2);
const url = process.env.DATABASE_URL ?? "";
const engine = url.startsWith("file:") ? "sqlite" : "postgres";

function peakRssMb() {
  const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0);
  return Math.round(kb / 1024);
}

function parseFile(file: string, onChunk: (rows: string[][]) => Promise<void> | void) {
  return new Promise<void>((resolve, reject) => {
    Papa.parse<string[]>(createReadStream(file, "utf8") as unknown as File, {
      delimiter: ",",
      chunk(results, parser) {
        parser.pause();
        Promise.resolve(onChunk(results.data)).then(() => parser.resume(), reject);
      },
      complete: () => resolve(),
      error: reject,
    });
  });
}

/** The bare driver, no layer of ours: better-sqlite3 or pg. */
async function bareDriver() {
  if (engine === "sqlite") {
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(url.slice("file:".length));
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    // The schema's foreign keys hold, as on PostgreSQL and on our connections: the same rows, checked the same.
    db.pragma("foreign_keys = ON");
    const statements = new Map<string, ReturnType<typeof db.prepare>>();
    const prepare = (sql: string) => {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      return statement;
    };
    return {
      begin: async () => void db.exec("BEGIN IMMEDIATE"),
      commit: async () => void db.exec("COMMIT"),
      all: async (sql: string, params: unknown[]) => prepare(sql).all(params) as Array<Record<string, unknown>>,
      run: async (sql: string, params: unknown[]) => void prepare(sql).run(params),
      close: async () => db.close(),
    };
  }
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const numbered = (sql: string) => {
    let index = 0;
    return sql.replace(/\?/g, () => `$${++index}`);
  };
  return {
    begin: async () => void (await client.query("BEGIN")),
    commit: async () => void (await client.query("COMMIT")),
    all: async (sql: string, params: unknown[]) => (await client.query(numbered(sql), params)).rows,
    run: async (sql: string, params: unknown[]) => void (await client.query(numbered(sql), params)),
    close: async () => client.end(),
  };
}

// Our tasks load the app's modules before the clock starts, as a running worker has them loaded.
const app =
  task === "import" || task === "export"
    ? {
        data: await import("~/data/database.server"),
        run: await import("~/services/transfers/transfer-run.server"),
      }
    : null;
const loadedRssMb = Math.round(process.memoryUsage().rss / 1024 / 1024);
const batchMs: number[] = [];
if (app) {
  const { batchTimings } = await import("~/services/transfers/timings");
  subscribe(batchTimings.name, (message) => batchMs.push((message as { ms: number }).ms));
}

const started = performance.now();
let rows = 0;

if (task === "parse") {
  await parseFile(args[0]!, (chunk) => void (rows += chunk.length));
  rows -= 1; // header
} else if (task === "reference-insert") {
  const [file, shopJson] = [args[0]!, args[1]!];
  const db = await bareDriver();
  // Its own database: the shop row first, as our import finds it in its database.
  const shop = JSON.parse(shopJson) as Record<string, string | number | boolean | null>;
  const columns = Object.keys(shop);
  await db.run(
    `INSERT INTO "Shop" (${columns.map((column) => `"${column}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
    Object.values(shop),
  );
  const shopId = shop.id as string;
  const lists = new Map<string, string>();
  let batch: string[][] = [];
  const now = new Date().toISOString();
  const flush = async () => {
    if (batch.length === 0) return;
    const began = performance.now();
    await db.begin();
    const customers = [...new Set(batch.map((row) => row[0]!))].filter((id) => !lists.has(id));
    if (customers.length > 0) {
      await db.run(
        `INSERT INTO "List" ("id", "shopId", "customerId", "name", "isDefault", "shareEnabled", "createdAt", "updatedAt") VALUES ` +
          customers.map(() => "(?, ?, ?, 'Wishlist', TRUE, FALSE, ?, ?)").join(", ") +
          " ON CONFLICT DO NOTHING",
        customers.flatMap((id) => [typeidUnboxed("lst"), shopId, id, now, now]),
      );
      const found = await db.all(
        `SELECT "id", "customerId" FROM "List" WHERE "shopId" = ? AND "customerId" IN (${customers.map(() => "?").join(", ")})`,
        [shopId, ...customers],
      );
      for (const row of found) lists.set(row.customerId as string, row.id as string);
    }
    for (let index = 0; index < batch.length; index += 250) {
      const part = batch.slice(index, index + 250);
      await db.run(
        `INSERT INTO "Item" ("id", "listId", "ownerKey", "shopId", "productId", "variantId", "handle", "titleSnapshot", "addedAt") VALUES ` +
          part.map(() => "(?, ?, ?, ?, ?, ?, ?, '', ?)").join(", ") +
          " ON CONFLICT DO NOTHING",
        part.flatMap((row) => [
          typeidUnboxed("itm"),
          lists.get(row[0]!)!,
          `c:${row[0]!}`,
          shopId,
          row[2]!,
          row[3] ?? "",
          row[4]!,
          row[5]!,
        ]),
      );
    }
    await db.commit();
    batchMs.push(performance.now() - began);
    rows += batch.length;
    batch = [];
  };
  let header = true;
  await parseFile(file, async (chunk) => {
    for (const row of chunk) {
      if (header) {
        header = false;
        continue;
      }
      if (row.length < 6) continue;
      batch.push(row);
      if (batch.length >= 1_000) await flush();
    }
  });
  await flush();
  await db.close();
} else if (task === "import" || task === "export") {
  const [jobId, shopId] = [args[0]!, args[1]!];
  const { runTransferJob } = app!.run;
  await runTransferJob({ shopId, jobId, finalAttempt: true });
  await app!.data.closeDatabase();
  // The job's outcome, read with the bare driver after the clock's work is done.
  const db = await bareDriver();
  const [job] = await db.all(
    `SELECT "status", "error", "rowsRead", "imported", "skipped" FROM "TransferJob" WHERE "id" = ?`,
    [jobId],
  );
  await db.close();
  if (job?.status !== "succeeded") throw new Error(`job ${String(job?.status)}: ${String(job?.error)}`);
  rows = Number(job.rowsRead);
  process.stdout.write(`JOB ${JSON.stringify({ imported: job.imported, skipped: job.skipped })}\n`);
} else if (task === "reference-export") {
  const [shopId, out] = [args[0]!, args[1]!];
  const db = await bareDriver();
  const file = createWriteStream(out);
  file.write("customer_id,anonymous_id,product_id,variant_id,handle,added_at\r\n");
  let after = "";
  for (;;) {
    const began = performance.now();
    const batch = await db.all(
      `SELECT i."id", l."customerId", l."anonymousId", i."productId", i."variantId", i."handle", i."addedAt" ` +
        `FROM "Item" i JOIN "List" l ON l."id" = i."listId" WHERE i."shopId" = ? AND i."id" > ? ORDER BY i."id" LIMIT 2000`,
      [shopId, after],
    );
    if (batch.length === 0) break;
    after = batch.at(-1)!.id as string;
    rows += batch.length;
    const text = batch
      .map((row) =>
        [
          row.customerId ?? "",
          row.anonymousId ?? "",
          row.productId,
          row.variantId,
          row.handle,
          String(row.addedAt),
        ].join(","),
      )
      .join("\r\n");
    batchMs.push(performance.now() - began);
    if (!file.write(`${text}\r\n`)) await once(file, "drain");
  }
  file.end();
  await once(file, "finish");
  await db.close();
} else {
  throw new Error(`unknown task ${task}`);
}

const seconds = (performance.now() - started) / 1000;
batchMs.sort((a, b) => a - b);
const percentile = (p: number) =>
  batchMs.length === 0 ? null : batchMs[Math.min(batchMs.length - 1, Math.ceil((p / 100) * batchMs.length) - 1)]!;
const batches = { count: batchMs.length, p50: percentile(50), p99: percentile(99), max: batchMs.at(-1) ?? null };
process.stdout.write(`RESULT ${JSON.stringify({ rows, seconds, peakRssMb: peakRssMb(), loadedRssMb, batches })}\n`);
process.exit(0);
