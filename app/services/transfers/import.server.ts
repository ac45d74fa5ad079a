/**
 * The import job (docs/imports.md, import rules 1-8). Two passes over the stored file, each streamed:
 * 1. check it whole (UTF-8 text, CSV quoting, the header's columns, the 50 MB cap) and count its rows,
 *    so a malformed file fails before anything is written;
 * 2. resolve each row (ids, dates, customers by id or by email through the platform) and save batches
 *    through the wishlists service; a dry run runs the same transactions and rolls each back.
 * Its report (JSON: totals, columns, the first issues with their line numbers) is stored next to it.
 */
import { database, transaction, type Queryable } from "~/data/database.server";
import { findTransferJob, saveTransferJobCheckpoint } from "~/data/transfer-job-rows.server";
import { unguard } from "~/lib/csv";
import { isDomainError } from "~/lib/domain-error";
import { PlatformUnavailable } from "~/services/platform/admin-api.server";
import { requestProductSnapshots } from "~/services/products/snapshots.server";
import { getStorage } from "~/services/storage/index.server";
import { shopSettingsOf } from "~/services/shops/shops.server";
import { listName, MAX_LIST_NAME, MAX_NOTE, NAME_REFUSED, NOTE_REFUSED } from "~/services/wishlists/named-lists.server";
import { importItems, importListKey, maxItemsPerList, type ImportRow } from "~/services/wishlists/wishlists.server";
import { FORMATS, mapColumns, type ColumnMapping, type Field, type Source } from "./columns";
import { isMalformedFile, malformedFile, readCsv, type CsvRecord } from "./csv-reader.server";
import { createCustomerLookup, type CustomerLookup } from "./customers.server";
import { IMPORT_MAX_BYTES, JobFailure } from "./limits";
import { publishBatchTiming } from "./timings";
import { parseEmail, parseImportDate, parsePlatformId } from "./values";

export const BATCH_ROWS = 1_000;
const REPORTED_ISSUES = 100;
/**
 * The report names at most this many unmapped headers, each cut to REPORTED_HEADER_CHARS: the header row
 * is the file's to choose (a million columns, one name padded to megabytes), and the report is read whole
 * by the admin's import page on every load.
 */
const REPORTED_UNMAPPED = 100;
const REPORTED_HEADER_CHARS = 100;

export type SkipReason =
  | "malformed-row"
  | "unparseable-product-id"
  | "unparseable-variant-id"
  | "no-customer"
  | "customer-not-found"
  | "customer-id-not-found"
  | "list-full";

const REASON_TEXT: Record<Exclude<SkipReason, "list-full">, string> = {
  "malformed-row": "The row's quoting is malformed.",
  "unparseable-product-id": "The product id is neither digits nor a product GID.",
  "unparseable-variant-id": "The variant id is neither empty, digits nor a variant GID.",
  "no-customer":
    "The row names no customer that can be read (no customer id in digits or GID form, no valid email): guest rows are not imported.",
  "customer-not-found": "No customer of the shop has this email.",
  "customer-id-not-found": "No customer of the shop has this customer id.",
};

/** The detail of an issue; `list-full` names the cap the service runs with (MAX_ITEMS_PER_LIST). */
function reasonText(reason: SkipReason): string {
  return reason === "list-full"
    ? `The customer's wishlist already holds ${maxItemsPerList()} items, the most a list may hold.`
    : REASON_TEXT[reason];
}

export interface ImportIssue {
  line: number;
  reason: SkipReason;
  detail: string;
  value?: string;
}

export interface ImportReport {
  jobId: string;
  source: Source;
  dryRun: boolean;
  status: "succeeded" | "failed";
  error: string | null;
  format: { label: string; variant: string | null };
  columns: { mapped: ColumnMapping["mapped"]; unmapped: string[]; unmappedTruncated: boolean; missing: string[] };
  totals: {
    rows: number;
    imported: number;
    unchanged: number;
    skipped: number;
    skippedBy: Partial<Record<SkipReason, number>>;
    datesDefaulted: number;
    /**
     * Rows that named a list the customer could not have (the shop keeps one list per shopper, or the
     * customer keeps the most lists allowed): saved to the customer's default list instead.
     */
    toDefaultList: number;
  };
  issues: ImportIssue[];
  issuesTruncated: boolean;
  customerLookups: number;
}

interface PendingRow extends Omit<ImportRow, "customerId"> {
  line: number;
  customerId: string | null;
  email: string | null;
}

/** A list holds a product once, whatever the variant (docs/decisions/032-one-item-per-product.md). */
const itemKey = (listKey: string, productId: string) => flat(`${listKey}|${productId}`);

/**
 * A copy of `text` that holds on to nothing else: cells are slices of papaparse's chunk strings, and a
 * key built from them would keep every chunk of the file alive in a dry run's set of seen keys.
 */
function flat(text: string): string {
  return Buffer.from(text, "latin1").toString("latin1");
}

/** Where a retry of an import picks up: the last line accounted for, and the totals up to it. */
export interface ImportCheckpoint {
  line: number;
  tally: Pick<
    Tally,
    | "rows"
    | "imported"
    | "unchanged"
    | "skipped"
    | "datesDefaulted"
    | "toDefaultList"
    | "skippedBy"
    | "issues"
    | "issuesTruncated"
  >;
}

class Tally {
  static from(saved: ImportCheckpoint["tally"] | undefined) {
    return Object.assign(new Tally(), structuredClone(saved ?? {}));
  }

  snapshot(): ImportCheckpoint["tally"] {
    const { rows, imported, unchanged, skipped, datesDefaulted, toDefaultList, skippedBy, issues, issuesTruncated } =
      this;
    return { rows, imported, unchanged, skipped, datesDefaulted, toDefaultList, skippedBy, issues, issuesTruncated };
  }

  rows = 0;
  imported = 0;
  unchanged = 0;
  skipped = 0;
  datesDefaulted = 0;
  toDefaultList = 0;
  skippedBy: Partial<Record<SkipReason, number>> = {};
  issues: ImportIssue[] = [];
  issuesTruncated = false;

  skip(line: number, reason: SkipReason, value?: string) {
    this.skipped += 1;
    this.skippedBy[reason] = (this.skippedBy[reason] ?? 0) + 1;
    if (this.issues.length < REPORTED_ISSUES) {
      this.issues.push({ line, reason, detail: reasonText(reason), ...(value !== undefined ? { value } : {}) });
    } else this.issuesTruncated = true;
  }
}

/** The report's view of the header row: bounded whatever the file's header holds. */
function reportedColumns(mapping: ColumnMapping | undefined): ImportReport["columns"] {
  const clip = (header: string) => header.slice(0, REPORTED_HEADER_CHARS);
  const unmapped = mapping?.unmapped ?? [];
  return {
    mapped: (mapping?.mapped ?? []).map(({ header, field }) => ({ header: clip(header), field })),
    unmapped: unmapped.slice(0, REPORTED_UNMAPPED).map(clip),
    unmappedTruncated: unmapped.length > REPORTED_UNMAPPED,
    missing: mapping?.missing ?? [],
  };
}

const cell = (record: CsvRecord, column: number | undefined) =>
  column === undefined ? "" : unguard((record.fields[column] ?? "").trim());

/**
 * Pass 1: the file is CSV text within the cap, with the columns its source needs. Returns the mapping;
 * a header without them fails the job for good, with `refuse`'s report.
 */
async function checkFile(key: string, source: Source, refuse: (message: string, mapping: ColumnMapping) => never) {
  let mapping: ColumnMapping | null = null;
  let rows = 0;
  await readCsv(await getStorage().read(key), {
    maxBytes: IMPORT_MAX_BYTES,
    onRecords: async (records) => {
      for (const record of records) {
        if (!mapping) {
          mapping = mapColumns(source, record.fields);
          if (mapping.missing.length > 0) refuse(missingColumns(mapping), mapping);
        } else rows += 1;
      }
    },
  });
  if (!mapping) throw malformedFile("The file is empty: a header row is required.");
  return { mapping: mapping as ColumnMapping, rows };
}

function missingColumns(mapping: ColumnMapping): string {
  return (
    `The header row lacks ${mapping.missing.join(", ")}. ` +
    (mapping.mapped.length === 0 ? "Is the first row a header row? " : "") +
    "See the report for the columns that were recognised."
  );
}

export interface ImportContext {
  jobId: string;
  shopId: string;
  shopDomain: string;
  source: Source;
  dryRun: boolean;
  storageKey: string;
  lookup?: CustomerLookup;
  onProgress?: (rowsRead: number) => Promise<void>;
  now?: () => Date;
  /**
   * A real (not dry) import writes its checkpoint in each batch's transaction; given the one an earlier
   * attempt left (the JSON as stored), it skips the lines that attempt accounted for and goes on with its
   * totals.
   */
  resumeFrom?: string | null;
}

/** Thrown to roll a dry run's batch back once it has run. */
class DryRunRollback extends Error {}

/**
 * Another attempt at the same job wrote a checkpoint since this one read or wrote its own: two attempts
 * run at once (a worker whose lock on the job lapsed while it was busy, and the one that took the job
 * over). The batch is rolled back and this attempt steps aside, so every row is written and counted once.
 */
export class ImportSuperseded extends Error {
  constructor(readonly jobId: string) {
    super(`another attempt at import ${jobId} wrote its checkpoint first`);
  }
}

/**
 * Whether another attempt has written the job's checkpoint since `stored`, finished the job, or the job is
 * gone. False when that cannot be read (the database away): the attempt's own failure then stands.
 */
async function supersededSince(shopId: string, jobId: string, stored: string | null): Promise<boolean> {
  const row = await findTransferJob(database(), shopId, jobId, "import").catch(() => null);
  if (row === null) return false;
  return row === undefined || row.checkpoint !== stored || row.status === "succeeded" || row.status === "failed";
}

export async function runImport(context: ImportContext): Promise<ImportReport> {
  const { jobId, shopId, source, dryRun, storageKey } = context;
  const now = context.now ?? (() => new Date());
  const lookup = context.lookup ?? createCustomerLookup({ shopDomain: context.shopDomain });
  const format = FORMATS[source];
  // The checkpoint as the row holds it, which the next one replaces only if no other attempt has since.
  let stored = dryRun ? null : (context.resumeFrom ?? null);
  const resume = stored === null ? null : (JSON.parse(stored) as ImportCheckpoint);
  const tally = Tally.from(resume?.tally);
  const report = (status: ImportReport["status"], error: string | null, mapping?: ColumnMapping): ImportReport => ({
    jobId,
    source,
    dryRun,
    status,
    error,
    format: { label: format.label, variant: mapping?.variant ?? null },
    columns: reportedColumns(mapping),
    totals: {
      rows: tally.rows,
      imported: tally.imported,
      unchanged: tally.unchanged,
      skipped: tally.skipped,
      skippedBy: tally.skippedBy,
      datesDefaulted: tally.datesDefaulted,
      toDefaultList: tally.toDefaultList,
    },
    issues: tally.issues,
    issuesTruncated: tally.issuesTruncated,
    customerLookups: lookup.calls,
  });

  let mapping: ColumnMapping;
  try {
    ({ mapping } = await checkFile(storageKey, source, (message, unusable) => {
      throw new JobFailure(message, report("failed", message, unusable), true);
    }));
  } catch (error) {
    const message = fileProblem(error);
    if (message) throw new JobFailure(message, report("failed", message), true);
    throw error;
  }

  const columns = mapping.columns;
  const startedAt = now();
  const { settings } = await shopSettingsOf(shopId);
  const seen = dryRun ? new Set<string>() : null; // keys a dry run would have inserted in earlier batches
  const uncommitted = dryRun ? new Map<string, number>() : undefined; // and how many per list
  // and the named lists they would have made, per customer
  const uncommittedLists = dryRun ? new Map<string, Array<{ name: string; nameKey: string }>>() : undefined;
  let pending: PendingRow[] = [];
  let lastLine = 0; // the last line read: every row up to it is skipped, pending or written

  const flush = async () => {
    const batch = pending;
    if (batch.length === 0) return;
    pending = [];
    const began = performance.now();
    await writeBatch(batch);
    publishBatchTiming("import", batch.length, began);
  };

  const writeBatch = async (batch: PendingRow[]) => {
    // Rule 3: a row's customer id must be one of the shop's customers, asked like emails are.
    const ids = batch.filter((row) => row.customerId).map((row) => row.customerId!);
    const known = ids.length > 0 ? await lookup.resolveIds(ids) : new Map<string, boolean>();
    const emails = batch.filter((row) => !row.customerId && row.email).map((row) => row.email!);
    const found = emails.length > 0 ? await lookup.resolve(emails) : new Map<string, string | null>();
    const rows: (ImportRow & { line: number })[] = [];
    for (const row of batch) {
      if (row.customerId && !known.get(row.customerId)) {
        tally.skip(row.line, "customer-id-not-found", row.customerId);
        continue;
      }
      const customerId = row.customerId ?? (row.email ? found.get(row.email) : null);
      if (!customerId) {
        tally.skip(row.line, "customer-not-found", row.email ?? undefined);
        continue;
      }
      const key = seen ? itemKey(importListKey({ customerId, list: row.list }), row.productId) : "";
      if (seen?.has(key)) {
        tally.unchanged += 1;
        continue;
      }
      rows.push({ ...row, customerId });
    }
    // What the batch adds to the totals: rows for a full list are skipped (list-full), the rest that were not
    // inserted were already saved.
    const settle = (into: Tally, inserted: number, full: typeof rows, redirected: number) => {
      for (const row of full.toSorted((a, b) => a.line - b.line)) into.skip(row.line, "list-full", row.customerId);
      into.imported += inserted;
      into.toDefaultList += redirected;
      into.unchanged += rows.length - inserted - full.length;
      return into;
    };
    // The totals as they stand once this batch is in, saved with it: a retry neither counts again what
    // this attempt wrote nor writes it again.
    const checkpoint = (inserted: number, full: typeof rows, redirected: number): string =>
      JSON.stringify({
        line: lastLine,
        tally: settle(Tally.from(tally.snapshot()), inserted, full, redirected).snapshot(),
      } satisfies ImportCheckpoint);
    // Replaces the stored checkpoint, or throws (rolling back the batch's transaction) if another attempt did.
    const save = async (q: Queryable, next: string) => {
      if (!(await saveTransferJobCheckpoint(q, shopId, jobId, next, stored))) throw new ImportSuperseded(jobId);
      return next;
    };
    if (rows.length === 0) {
      if (!dryRun) stored = await save(database(), checkpoint(0, [], 0));
      return;
    }
    let result: { inserted: string[]; full: typeof rows; redirected: number };
    let rolledBack: typeof result | undefined;
    try {
      let saved = stored;
      result = await transaction(async (tx) => {
        const written = await importItems(tx, {
          shopId,
          rows,
          at: startedAt,
          uncommitted,
          uncommittedLists,
          uncommittedItems: seen ?? undefined,
          settings,
        });
        if (dryRun) {
          rolledBack = written;
          throw new DryRunRollback();
        }
        saved = await save(tx, checkpoint(written.inserted.length, written.full, written.redirected));
        return written;
      });
      stored = saved; // committed
    } catch (error) {
      if (!(error instanceof DryRunRollback) || !rolledBack) throw error;
      result = rolledBack;
      for (const key of result.inserted) {
        seen!.add(flat(key));
        const listKey = key.slice(0, key.lastIndexOf("|"));
        uncommitted!.set(listKey, (uncommitted!.get(listKey) ?? 0) + 1);
      }
    }
    settle(tally, result.inserted.length, result.full, result.redirected);
    // Every row is saved due for a product lookup: the worker gives it the platform's title, which replaces a
    // title the file carried (docs/decisions/029-catalogue-titles.md).
    if (!dryRun && result.inserted.length > 0) {
      await requestProductSnapshots(shopId);
    }
  };

  let header = true;
  try {
    await readRows();
    await flush();
  } catch (error) {
    if (error instanceof ImportSuperseded) throw error; // the other attempt reports
    // Nor does this attempt report a failure of its own once another attempt has written since (or finished
    // the job): its failure (a refused lookup, a timeout) would overwrite the other's outcome and report.
    if (!dryRun && (await supersededSince(shopId, jobId, stored))) throw new ImportSuperseded(jobId);
    // Pass 1 read the file whole and found it sound, so it was replaced meanwhile (its upload URL is valid
    // 15 minutes). That is final like a bad file in pass 1, but batches before this point are written.
    const message = fileProblem(error);
    if (!message) {
      // Anything else leaves a report too, with what was done and what to do (docs/imports.md, "Job states").
      const stopped = stoppedBy(error, { dryRun, imported: tally.imported });
      const failed = report("failed", stopped.message, mapping);
      throw new JobFailure(stopped.message, failed, stopped.final, { cause: error });
    }
    const detail = dryRun
      ? `${message} The file changed during the dry run; nothing was written.`
      : `${message} The file changed while it was being imported: the ${tally.imported} rows counted as ` +
        "imported are saved; upload the file again and re-run the import to finish (it is idempotent).";
    throw new JobFailure(detail, report("failed", detail, mapping), true);
  }
  await context.onProgress?.(tally.rows);
  return report("succeeded", null, mapping);

  async function readRows() {
    await readCsv(await getStorage().read(storageKey), {
      maxBytes: IMPORT_MAX_BYTES,
      onRecords: async (records) => {
        for (const record of records) {
          if (header) {
            header = false;
            continue;
          }
          if (resume && record.line <= resume.line) continue; // accounted for by an earlier attempt
          lastLine = record.line;
          tally.rows += 1;
          const row = resolveRow(record, columns, format.dateOrder, tally, now, source !== "csv");
          if (row) pending.push(row);
          if (pending.length >= BATCH_ROWS) await flush();
        }
        await context.onProgress?.(tally.rows);
      },
    });
  }
}

/**
 * What a job stopped by `error` in its second pass tells the merchant: what happened, what was saved and
 * what to do. `final`: asking again cannot help (the shop's token or scopes), so the job fails at once;
 * otherwise BullMQ runs it again and the message is the job's if the last attempt ends the same way.
 */
export function stoppedBy(error: unknown, { dryRun, imported }: { dryRun: boolean; imported: number }) {
  const saved = dryRun
    ? "Nothing was written (dry run)."
    : imported === 0
      ? "Nothing was imported."
      : `The ${imported} rows counted as imported are saved; running the import again adds only the rest.`;
  if (isDomainError(error, "platform_not_connected")) {
    return {
      final: true,
      message:
        `The shop's customer data could not be read (Admin API access refused). ${saved} Open the app from ` +
        "the shop's admin to reconnect it, or reinstall the app, then run the import again.",
    };
  }
  if (error instanceof PlatformUnavailable && !error.transient) {
    return {
      final: true,
      message:
        `The shop's customer data could not be read (Admin API ${error.reason}: ${error.message}) ${saved} ` +
        "Reinstall the app so that it may read customers, then run the import again.",
    };
  }
  if (isDomainError(error, "platform_unavailable")) {
    const reason = error instanceof PlatformUnavailable ? error.reason : "unavailable";
    return {
      final: false,
      message:
        `The shop's customer data could not be reached (Admin API ${reason}). ${saved} Retry the import ` +
        "later; if it keeps failing, reinstall the app.",
    };
  }
  return {
    final: false,
    message:
      `The import stopped on an unexpected error (it was retried). ${saved} Run the import again later; ` +
      "if it keeps failing, contact support.",
  };
}

/** The message of an error that makes the file unusable as a whole, or null for any other error. */
function fileProblem(error: unknown): string | null {
  if (isMalformedFile(error)) return error.message;
  if (isDomainError(error, "too_large")) return `The file is larger than ${IMPORT_MAX_BYTES} bytes (50 MB).`;
  return null;
}

function resolveRow(
  record: CsvRecord,
  columns: Partial<Record<Field, number>>,
  dateOrder: (typeof FORMATS)[Source]["dateOrder"],
  tally: Tally,
  now: () => Date,
  /** Another app's file: its list named "Default" is its default list. */
  vendor: boolean,
): PendingRow | null {
  if (record.malformed) {
    tally.skip(record.line, "malformed-row");
    return null;
  }
  const rawProduct = cell(record, columns.productId);
  const productId = parsePlatformId(rawProduct, "Product");
  if (!productId) {
    tally.skip(record.line, "unparseable-product-id", rawProduct.slice(0, 100));
    return null;
  }
  const rawVariant = cell(record, columns.variantId);
  const variantId = rawVariant === "" ? null : parsePlatformId(rawVariant, "ProductVariant");
  if (rawVariant !== "" && !variantId) {
    tally.skip(record.line, "unparseable-variant-id", rawVariant.slice(0, 100));
    return null;
  }
  const rawCustomer = cell(record, columns.customerId);
  const rawEmail = cell(record, columns.email);
  const customerId = parsePlatformId(rawCustomer, "Customer");
  const email = parseEmail(rawEmail);
  if (!customerId && !email) {
    // An unreadable customer id or email is shown as the value, so the merchant sees what was not understood.
    const unreadable = rawCustomer || rawEmail;
    tally.skip(record.line, "no-customer", unreadable === "" ? undefined : unreadable.slice(0, 100));
    return null;
  }
  let addedAt = parseImportDate(cell(record, columns.addedAt), dateOrder);
  if (!addedAt) {
    tally.datesDefaulted += 1;
    addedAt = now();
  }
  return {
    line: record.line,
    customerId,
    email,
    productId,
    variantId,
    handle: cell(record, columns.handle).slice(0, 255),
    title: cell(record, columns.title).slice(0, 255),
    addedAt,
    ...listDetails(record, columns, vendor),
  };
}

/**
 * What the API refuses in a list name, and in a note (line breaks and tabs are a note's): never kept. The
 * joiners that Persian words and emoji sequences need are kept, as the API keeps them, so a name the export
 * wrote names the same list again.
 */
const NAME_CONTROL = new RegExp(NAME_REFUSED.source, "gu");
const NOTE_CONTROL = new RegExp(NOTE_REFUSED.source, "gu");
const firstCodePoints = (text: string, count: number) => Array.from(text).slice(0, count).join("");

/**
 * The optional trailing columns (issue 28): the list's name (empty: the default list; in another app's file,
 * "Default" too), the note and the quantity. What a storefront call would refuse is made to fit rather than refused: a name loses control
 * characters and what passes 60 characters, a note what passes 280; a quantity that is no whole number
 * from 1 to 99 is 1.
 */
function listDetails(record: CsvRecord, columns: Partial<Record<Field, number>>, vendor: boolean) {
  const rawName = cell(record, columns.listName).replace(NAME_CONTROL, " ");
  const fitted = firstCodePoints(listName(rawName).name, MAX_LIST_NAME).trim();
  const name = vendor && fitted.toLowerCase() === "default" ? "" : fitted;
  const note = firstCodePoints(cell(record, columns.note).replace(NOTE_CONTROL, " "), MAX_NOTE);
  const rawQuantity = cell(record, columns.quantity).trim();
  const quantity = /^\d{1,2}$/.test(rawQuantity) && Number(rawQuantity) >= 1 ? Number(rawQuantity) : 1;
  return {
    ...(name ? { list: listName(name) } : {}),
    ...(note.trim() ? { note } : {}),
    quantity,
  };
}
