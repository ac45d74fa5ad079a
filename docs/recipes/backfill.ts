// Backfills another system (here a JSON file standing in for a data warehouse) from the shop's CSV export.
//   npx tsx --env-file=.env backfill.ts              exports through the API, downloads the file, loads it
//   npx tsx --env-file=.env backfill.ts export.csv   loads a file downloaded before (the admin's Exports page)
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import Papa from "papaparse";
import { createWishlistClient } from "@wishlist-service/sdk";

/** One saved item, as the warehouse keeps it. */
interface SavedItem {
  /** `customer:<id>`, or `guest:<pseudonym>`: an export never carries a guest's anonymous id. */
  owner: string;
  /** The list's name; empty for the owner's default list. */
  listName: string;
  productId: string;
  variantId: string | null;
  handle: string;
  addedAt: string;
  note: string | null;
  quantity: number;
}

const wishlist = createWishlistClient({
  baseUrl: process.env.WISHLIST_URL!,
  privateKey: process.env.WISHLIST_PRIVATE_KEY!,
});

/** Starts an export, waits while the worker writes it, and downloads the file. */
async function downloadExport(): Promise<string> {
  const { data: accepted } = await wishlist.POST("/exports", { body: { format: "csv" } });
  const jobId = accepted.jobId;
  for (;;) {
    const { data: job } = await wishlist.GET("/exports/{jobId}", { params: { path: { jobId } } });
    if (job.status === "failed") throw new Error(`export ${jobId} failed: ${job.error}`);
    if (job.status === "succeeded") {
      // A signed link, valid 24 hours: it needs no key.
      const file = await fetch(job.resultUrl!);
      if (!file.ok) throw new Error(`export ${jobId}: the download answered ${file.status}`);
      console.log(`export ${jobId}: ${job.rowsProcessed} rows`);
      return await file.text();
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

// The export puts a ' before a cell that a spreadsheet would run as a formula (docs/imports.md, "Formula
// guard"). This takes off exactly that ', as the service's import does.
const GUARDED = /^'*(?:\s*[=+\-@]|[\t\r\n])|[\r\n]/;
const unguard = (cell: string) => (cell.startsWith("'") && GUARDED.test(cell.slice(1)) ? cell.slice(1) : cell);

function toSavedItem(row: Record<string, string>): SavedItem {
  const cell = (column: string) => unguard(row[column] ?? "");
  return {
    owner: cell("customer_id") ? `customer:${cell("customer_id")}` : `guest:${cell("anonymous_id")}`,
    listName: cell("list_name"),
    productId: cell("product_id"),
    variantId: cell("variant_id") || null,
    handle: cell("handle"),
    addedAt: cell("added_at"),
    note: cell("note") || null,
    quantity: Number(cell("quantity") || "1"),
  };
}

const csv = process.argv[2] ? readFileSync(process.argv[2], "utf8") : await downloadExport();
const { data: rows, errors } = Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true });
if (errors.length > 0) throw new Error(`unreadable CSV, row ${errors[0]!.row}: ${errors[0]!.message}`);

// An upsert by owner, list and product (a list holds a product once): loading an export twice changes nothing.
const file = process.env.WAREHOUSE_FILE ?? "warehouse.json";
const warehouse: Record<string, SavedItem> = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
const counts = { inserted: 0, updated: 0, unchanged: 0 };
for (const item of rows.map(toSavedItem)) {
  const key = `${item.owner}/${item.listName}/${item.productId}`;
  const held = warehouse[key];
  if (held && JSON.stringify(held) === JSON.stringify(item)) {
    counts.unchanged++;
  } else {
    counts[held ? "updated" : "inserted"]++;
    warehouse[key] = item;
  }
}
writeFileSync(`${file}.tmp`, `${JSON.stringify(warehouse, null, 2)}\n`);
renameSync(`${file}.tmp`, file);
console.log(`${rows.length} rows: ${JSON.stringify(counts)}`);
