/**
 * `npm run bench -- transfers [--engine sqlite|postgres] [--mb 50] [--export-rows 1000000]` (issue 6)
 *
 * Import of a generated generic CSV of `--mb` MB (dry run, then real), through the import job's own code
 * (runTransferJob, as the worker runs it), next to two references in the same run on the same engine and
 * database: papaparse parsing the same file alone, and parse + a raw multi-row bulk insert with the bare
 * driver. Then an export of `--export-rows` items next to a raw keyset select-to-CSV stream. Every task
 * runs in a process of its own, so each peak RSS is that task's.
 * Goal: import >= 0.5x the parse-plus-insert reference, peak RSS under 256 MB. `--heap-mb 128` caps V8's
 * old space in every task, as a memory-limited container does: without a cap V8 lets garbage pile up far
 * past the live set on a machine with memory to spare.
 */
import { spawn } from "node:child_process";
import { copyFileSync, createWriteStream, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { once } from "node:events";
import path from "node:path";
import { parseArgs } from "node:util";
import { benchDatabase, benchSql, ROOT } from "./lib";
import { customerSearch, startFakeAdminApi } from "../lib/fake-admin-api";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    engine: { type: "string", default: "sqlite" },
    mb: { type: "string", default: "50" },
    "export-rows": { type: "string", default: "1000000" },
    /** V8 old-space cap for every task (--max-old-space-size), as a memory-limited container would set. */
    "heap-mb": { type: "string" },
  },
  allowPositionals: true,
});
const engine = values.engine === "postgres" ? "postgres" : "sqlite";
const targetBytes = Math.min(Number(values.mb) * 1024 * 1024, 50 * 1024 * 1024);
const exportRows = Number(values["export-rows"]);
const CUSTOMERS = 60_000;

// The file: unique (customer, product) rows in the generic columns, up to the size asked for.
const workDir = path.join(ROOT, ".data/bench");
mkdirSync(workDir, { recursive: true });
const csvFile = path.join(workDir, `import-${targetBytes}.csv`);
if (!existsSync(csvFile)) {
  const out = createWriteStream(csvFile);
  const header = "customer_id,anonymous_id,product_id,variant_id,handle,added_at\r\n";
  out.write(header);
  let bytes = Buffer.byteLength(header);
  for (let index = 0; ; index++) {
    const product = 5_000_000 + Math.floor(index / CUSTOMERS);
    const line = `${1_000_000 + (index % CUSTOMERS)},,${product},,product-${product},2024-03-05T14:22:01.000Z\r\n`;
    if (bytes + line.length > targetBytes) break;
    bytes += line.length;
    if (!out.write(line)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}
const fileBytes = statSync(csvFile).size;

const database = await benchDatabase(engine, "transfers");
const referenceDatabase = await benchDatabase(engine, "transfers_ref");
const storageDir = path.join(workDir, `files-${process.pid}`);
// Import rule 3: the import asks the platform whether each customer id is one of the shop's. A stand-in
// for its Admin API on loopback knows the file's customers, with a bucket so large it never throttles
// (the platform's own pacing is not what this benchmark measures).
const platform = await startFakeAdminApi();
platform.answer(
  customerSearch(
    {},
    { available: 1e12, maximum: 1e12, restoreRate: 1e9, cost: 1 },
    {
      ids: (id) => Number(id) >= 1_000_000 && Number(id) < 1_000_000 + CUSTOMERS,
    },
  ),
);
const env: Record<string, string> = {
  DATABASE_URL: database.url,
  STORAGE_DIR: storageDir,
  LOG_LEVEL: "warn",
  NODE_ENV: "test",
  SHOPIFY_ADMIN_API_ORIGIN: platform.origin,
};
Object.assign(process.env, env);

interface Result {
  rows: number;
  seconds: number;
  peakRssMb: number;
  /** RSS once the task's modules are loaded, before it starts: what the process costs doing nothing. */
  loadedRssMb: number;
  /** Latency of each batch (1,000 imported rows, or a 2,000-row export page), in ms. */
  batches: { count: number; p50: number | null; p99: number | null; max: number | null };
}

function runTask(args: string[], extraEnv: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const heap = values["heap-mb"] ? [`--max-old-space-size=${Number(values["heap-mb"])}`] : [];
    const profile = process.env.BENCH_PROFILE_DIR
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
      : [];
    const child = spawn(
      process.execPath,
      [...heap, ...profile, "--import", "tsx", "scripts/bench/transfers-task.ts", ...args],
      {
        cwd: ROOT,
        env: { ...process.env, ...env, ...extraEnv },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code: number | null) => {
      const line = /RESULT (.*)/.exec(output)?.[1];
      if (code !== 0 || !line) reject(new Error(`task ${args[0]} exited ${code}:\n${output}`));
      else resolve(JSON.parse(line) as Result);
    });
  });
}

// The shop through the app's service; its platform session, upload and job rows with plain SQL on the driver.
const { ensureShop } = await import("~/services/shops/shops.server");
const { closeDatabase } = await import("~/data/database.server");
const { newId } = await import("~/lib/ids");
const { uploadKey } = await import("~/services/transfers/uploads.server");
const ours = await ensureShop({ domain: "bench-ours.myshopify.com" });
await closeDatabase();
const sql = await benchSql(database.url);
await sql.run(
  `INSERT INTO "Session" ("id", "shop", "state", "isOnline", "accessToken", "accountOwner") VALUES (?, ?, '', ?, ?, ?)`,
  [`offline_${ours.domain}`, ours.domain, false, "shpat_bench", false],
);

async function createJob(job: { kind: "import" | "export"; dryRun?: boolean; uploadId?: string }) {
  const id = newId("job");
  const now = new Date();
  await sql.run(
    `INSERT INTO "TransferJob" ("id", "shopId", "kind", "status", "format", "source", "dryRun", "uploadId", "rowsRead", ` +
      `"createdAt", "updatedAt") VALUES (?, ?, ?, 'queued', ?, ?, ?, ?, 0, ?, ?)`,
    [
      id,
      ours.id,
      job.kind,
      job.kind === "export" ? "csv" : null,
      job.kind === "import" ? "csv" : null,
      job.dryRun ?? false,
      job.uploadId ?? null,
      now,
      now,
    ],
  );
  return { id };
}

async function importJob(dryRun: boolean) {
  const uploadId = newId("upload");
  const key = uploadKey(ours.id, uploadId);
  mkdirSync(path.dirname(path.join(storageDir, key)), { recursive: true });
  copyFileSync(csvFile, path.join(storageDir, key));
  await sql.run(
    `INSERT INTO "Upload" ("id", "shopId", "storageKey", "filename", "contentType", "maxBytes", "sizeBytes", ` +
      `"expiresAt", "createdAt") VALUES (?, ?, ?, 'bench.csv', 'text/csv', ?, ?, ?, ?)`,
    [uploadId, ours.id, key, 50 * 1024 * 1024, fileBytes, new Date(Date.now() + 900_000), new Date()],
  );
  return createJob({ kind: "import", dryRun, uploadId });
}

try {
  const parse = await runTask(["parse", csvFile]);
  // The reference inserts into a freshly migrated database of its own, as our import does into ours.
  const shopRow = Object.fromEntries(
    Object.entries(ours).map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]),
  );
  const insert = await runTask(["reference-insert", csvFile, JSON.stringify(shopRow)], {
    DATABASE_URL: referenceDatabase.url,
  });
  const dry = await runTask(["import", (await importJob(true)).id, ours.id]);
  const real = await runTask(["import", (await importJob(false)).id, ours.id]);
  const count = async () =>
    Number((await sql.all<{ n: number }>(`SELECT COUNT(*) AS "n" FROM "Item" WHERE "shopId" = ?`, [ours.id]))[0]!.n);
  const imported = await count();
  if (imported !== insert.rows) throw new Error(`imported ${imported} items, the reference ${insert.rows}`);

  // Export: top the shop up to --export-rows items.
  const [list] = await sql.all<{ id: string; ownerKey: string }>(
    `SELECT "id", coalesce('c:' || "customerId", 'a:' || "anonymousId") AS "ownerKey" FROM "List" WHERE "shopId" = ? LIMIT 1`,
    [ours.id],
  );
  if (!list) throw new Error("the import made no list");
  for (let have = imported; have < exportRows; have += 500) {
    const count = Math.min(500, exportRows - have);
    await sql.transaction((tx) =>
      tx.run(
        `INSERT INTO "Item" ("id", "listId", "ownerKey", "shopId", "productId", "variantId", "handle", "titleSnapshot", "addedAt") VALUES ` +
          Array.from({ length: count }, () => "(?, ?, ?, ?, ?, '', 'extra', '', ?)").join(", "),
        Array.from({ length: count }, (_, index) => [
          newId("item"),
          list.id,
          list.ownerKey,
          ours.id,
          String(9_000_000 + have + index),
          new Date(),
        ]).flat(),
      ),
    );
  }
  const exportJob = await createJob({ kind: "export" });
  const exported = await runTask(["export", exportJob.id, ours.id]);
  const rawExport = await runTask([
    "reference-export",
    ours.id,
    path.join(workDir, `reference-export-${process.pid}.csv`),
  ]);

  const rate = (result: Result) => Math.round(result.rows / result.seconds);
  const ms = (value: number | null) => (value === null ? "" : value.toFixed(1));
  const row = (name: string, result: Result, baseline?: Result) =>
    `| ${name} | ${result.rows} | ${result.seconds.toFixed(2)} | ${rate(result)} | ` +
    `${ms(result.batches.p50)} | ${ms(result.batches.p99)} | ${ms(result.batches.max)} | ` +
    `${result.peakRssMb} (${result.loadedRssMb} at start) | ` +
    `${baseline ? `${(rate(result) / rate(baseline)).toFixed(2)}x` : ""} | ` +
    `${baseline?.batches.p99 && result.batches.p99 ? `${(result.batches.p99 / baseline.batches.p99).toFixed(2)}x` : ""} |`;
  process.stdout.write(
    `\nTransfers benchmark, ${engine}, import file ${(fileBytes / 1024 / 1024).toFixed(1)} MB, Node ${process.version}, ` +
      `V8 heap ${values["heap-mb"] ? `capped at ${values["heap-mb"]} MB` : "uncapped"}.\n\n` +
      `| Task | rows | seconds | rows/s | batch p50 ms | batch p99 ms | batch max ms | peak RSS MB | throughput ratio | batch p99 ratio |\n` +
      `|---|---|---|---|---|---|---|---|---|---|\n` +
      `${row("reference: papaparse alone", parse)}\n` +
      `${row("reference: parse + raw bulk insert", insert)}\n` +
      `${row("import, dry run (ours)", dry, insert)}\n` +
      `${row("import (ours)", real, insert)}\n` +
      `${row("reference: raw select-to-CSV", rawExport)}\n` +
      `${row("export (ours)", exported, rawExport)}\n`,
  );
} finally {
  await platform.close();
  await sql.close();
  rmSync(storageDir, { recursive: true, force: true });
  await database.drop();
  await referenceDatabase.drop();
}
process.exit(0);
