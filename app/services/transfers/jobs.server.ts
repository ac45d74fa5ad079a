/**
 * Imports and exports as jobs (docs/imports.md, "Job states"; the TransferJob schema of docs/openapi.json):
 * starting one creates its row and queues it; the worker runs it through queued -> running -> succeeded |
 * failed, counting rows as it goes. Every statement is scoped by the shop id.
 */
import { Readable } from "node:stream";
import type { Redis } from "ioredis";
import { database, engine, transaction, type Tx, type UnitOfWork } from "~/data/database.server";
import { analyzeAfterBulkLoad } from "~/data/item-rows.server";
import {
  abandonTransferJobRow,
  countOpenTransferJobs,
  countRunningTransferJobs,
  findQueuedTransferJobs,
  findSilentRunningTransferJobs,
  findImportOfUpload,
  findRunnableJob,
  findTransferJob,
  insertTransferJob,
  listTransferJobs,
  lockShopTransferJobs,
  markTransferJobFailed,
  markTransferJobRunning,
  markTransferJobSucceeded,
  updateTransferJobProgress,
  type RunnableJobRow,
  type TransferJobRow,
  type TransferKind,
} from "~/data/transfer-job-rows.server";
import { findUpload, findUploadFilenames, insertUpload, markUploaded, type UploadRow } from "~/data/upload-rows.server";
import { enqueueTransferJob, holdsTransferJob, transferJobState, withinMs } from "~/jobs/queues.server";
import { getEnv } from "~/env.server";
import { DomainError, isDomainError } from "~/lib/domain-error";
import { newId } from "~/lib/ids";
import { logger } from "~/logger.server";
import { getStorage } from "~/services/storage/index.server";
import type { Source } from "./columns";
import { exportCsv } from "./export.server";
import { exportMarketingCsv } from "./marketing-export.server";
import type { ExportFormat } from "./transfer-requests";
import { ImportSuperseded, runImport, type ImportReport } from "./import.server";
import { DOWNLOAD_URL_SECONDS, IMPORT_MAX_BYTES, JobFailure, UPLOAD_URL_SECONDS } from "./limits";

export type { TransferJobRow, TransferKind } from "~/data/transfer-job-rows.server";
export type { ImportIssue, ImportReport } from "./import.server";
export type { UploadRow } from "~/data/upload-rows.server";

const ANALYZE_AFTER_ROWS = 10_000;

export const uploadKey = (shopId: string, uploadId: string) => `imports/${shopId}/${uploadId}.csv`;
const reportKey = (shopId: string, jobId: string) => `reports/${shopId}/${jobId}.json`;
const exportKey = (shopId: string, jobId: string) => `exports/${shopId}/${jobId}.csv`;

function fileUrlOf(baseUrl: string, uploadId: string) {
  return `${baseUrl}/v1/imports/uploads/${uploadId}`;
}

/** Step 1 of an import: a presigned upload target and its row. */
export interface CreatedUpload {
  upload: UploadRow;
  /** Where and how to send the file (a presigned URL or this app's signed upload URL). */
  target: Awaited<ReturnType<ReturnType<typeof getStorage>["presignUpload"]>>;
  fileUrl: string;
}

export async function createUpload(
  {
    shopId,
    baseUrl,
    filename,
    contentType,
  }: {
    shopId: string;
    baseUrl: string;
    filename: string;
    contentType: string;
  },
  unit?: UnitOfWork<CreatedUpload>,
): Promise<CreatedUpload> {
  const id = newId("upload");
  const storageKey = uploadKey(shopId, id);
  const target = await getStorage().presignUpload({
    key: storageKey,
    contentType,
    maxBytes: IMPORT_MAX_BYTES,
    expiresInSeconds: UPLOAD_URL_SECONDS,
  });
  const fileUrl = fileUrlOf(baseUrl, id);
  const upload = await transaction(async (tx) => {
    const row = await insertUpload(
      tx,
      { id, shopId, storageKey, filename, contentType, maxBytes: IMPORT_MAX_BYTES, expiresAt: target.expiresAt },
      new Date(),
    );
    await unit?.within?.(tx, { upload: row, target, fileUrl });
    return row;
  });
  return { upload, target, fileUrl };
}

/** The shop's upload with what is stored for it now (null size: nothing uploaded yet). */
async function findUploadWithSize(shopId: string, uploadId: string) {
  const upload = await findUpload(database(), shopId, uploadId);
  if (!upload) return null;
  const stored = await getStorage().stat(upload.storageKey);
  return { upload, sizeBytes: stored?.size ?? null };
}

/** The shop's upload with what is stored for it now (null size: nothing uploaded yet); `not_found` if none. */
export async function getUpload({ shopId, uploadId }: { shopId: string; uploadId: string }) {
  const found = await findUploadWithSize(shopId, uploadId);
  if (!found) throw new DomainError("not_found", "No upload with this id.");
  if (found.upload.fileDeletedAt) throw uploadExpired(found.upload);
  return found;
}

const FILE_URL_PATH = /\/v1\/imports\/uploads\/(upl_[A-Za-z0-9]+)$/;

/** The error for an upload whose file the retention job deleted. */
function uploadExpired(upload: UploadRow) {
  return new DomainError(
    "file_expired",
    `The file uploaded to this fileUrl was deleted on ${upload.fileDeletedAt?.toISOString() ?? "its expiry"}, ` +
      `${getEnv().FILE_RETENTION_DAYS} days after an import last started from it (or after it was uploaded): ` +
      "upload it again (POST /v1/imports/upload).",
    { details: { deletedAt: upload.fileDeletedAt?.toISOString() ?? null } },
  );
}

/**
 * The upload a `fileUrl` names, if it is one of this shop's, with the size stored; `invalid` otherwise,
 * `file_expired` once its file was deleted, `too_large` past the cap.
 */
async function resolveFileUrl(shopId: string, fileUrl: string): Promise<{ upload: UploadRow; sizeBytes: number }> {
  const invalid = (message: string) => new DomainError("invalid", message, { issues: [{ field: "fileUrl", message }] });
  let path: string;
  try {
    path = new URL(fileUrl).pathname;
  } catch {
    throw invalid("fileUrl must be the fileUrl returned by POST /v1/imports/upload.");
  }
  const uploadId = FILE_URL_PATH.exec(path)?.[1];
  const found = uploadId ? await findUploadWithSize(shopId, uploadId) : null;
  // Another shop's upload is answered exactly like one that does not exist.
  if (!found) throw invalid("fileUrl does not name an upload of this shop (use POST /v1/imports/upload).");
  if (found.upload.fileDeletedAt) throw uploadExpired(found.upload);
  if (found.sizeBytes === null) {
    throw invalid("Nothing has been uploaded to this fileUrl yet: PUT the file to its uploadUrl first.");
  }
  if (found.sizeBytes > IMPORT_MAX_BYTES) {
    throw new DomainError(
      "too_large",
      `The uploaded file has ${found.sizeBytes} bytes; imports take at most ${IMPORT_MAX_BYTES}.`,
      { details: { maxBytes: IMPORT_MAX_BYTES } },
    );
  }
  return { upload: found.upload, sizeBytes: found.sizeBytes };
}

/**
 * A `running` row not updated for this long belongs to a worker that died (each batch of a running job
 * updates its row): it no longer counts against its shop's limits, and the sweep looks at its BullMQ job.
 */
const RUNNING_HEARD_WITHIN_MS = 10 * 60_000;

/** The most a request waits for the queue (Redis) to take a new job before answering without it. */
const ENQUEUE_WAIT_MS = 3_000;

/**
 * Creates the job's row (with what `unit` adds, in one transaction), then queues it, best effort: the row
 * is the job's outbox record (docs/decisions/014-imports-exports.md). A job whose row committed is
 * accepted and runs: when Redis does not take it within ENQUEUE_WAIT_MS (down, refusing writes, or not
 * answering), or the process dies first, the worker's sweep (`queueStrandedTransferJobs`) queues it.
 */
async function startJob(
  job: { shopId: string; kind: TransferKind; format?: string; source?: Source; dryRun?: boolean; uploadId?: string },
  unit: UnitOfWork<TransferJobRow> | undefined,
  before?: (tx: Tx, at: Date) => Promise<void>,
): Promise<TransferJobRow> {
  const id = newId("job");
  const row = await transaction(async (tx) => {
    const at = new Date();
    // Checked, counted and inserted under the shop's lock, so parallel requests cannot pass a check or the
    // limit together.
    await lockShopTransferJobs(tx, job.shopId);
    await before?.(tx, at);
    const maxOpenJobs = getEnv().TRANSFER_OPEN_JOBS_PER_SHOP;
    const runningSince = new Date(at.getTime() - RUNNING_HEARD_WITHIN_MS);
    if ((await countOpenTransferJobs(tx, job.shopId, runningSince)) >= maxOpenJobs) {
      throw new DomainError(
        "conflict",
        `A shop may have at most ${maxOpenJobs} imports and exports queued or running at once: start this one when one of them has finished.`,
        { details: { maxOpenJobs } },
      );
    }
    const created = await insertTransferJob(tx, { id, ...job }, at);
    await unit?.within?.(tx, created);
    return created;
  });
  try {
    await withinMs(ENQUEUE_WAIT_MS, enqueueTransferJob({ id: row.id, shopId: row.shopId, kind: job.kind }));
  } catch (error) {
    logger.warn({ err: error, jobId: row.id }, "transfer job not queued yet; the worker's sweep will queue it");
  }
  return row;
}

/**
 * The sweep of the job outbox (the worker's maintenance queue runs it every few seconds): each `queued`
 * job created before `createdBefore` that BullMQ does not hold is queued, with the row's id as BullMQ's
 * job id, so a request's late add or another sweep adds nothing twice. A job BullMQ holds in any state
 * is left to BullMQ (and, once given up, to `abandonTransferJob`). Returns the ids it queued.
 */
export async function queueStrandedTransferJobs({
  createdBefore,
  connection,
  limit = 500,
}: {
  createdBefore: Date;
  connection?: Redis;
  limit?: number;
}): Promise<string[]> {
  const rows = await findQueuedTransferJobs(database(), { createdBefore, limit });
  const queued: string[] = [];
  for (const row of rows) {
    if (await holdsTransferJob(row.id, connection)) continue;
    await enqueueTransferJob({ id: row.id, shopId: row.shopId, kind: row.kind as TransferKind }, connection);
    queued.push(row.id);
  }
  // A job left `running` that BullMQ no longer holds (its worker died and Redis then lost the job) is
  // queued again and resumes after its last committed batch; one BullMQ failed for good without the row
  // hearing of it (the database was down then) is marked failed. Either way it stops counting as open.
  const updatedBefore = new Date(Date.now() - RUNNING_HEARD_WITHIN_MS);
  for (const row of await findSilentRunningTransferJobs(database(), { updatedBefore, limit })) {
    const state = await transferJobState(row.id, connection);
    if (state === "failed") await abandonTransferJob(row.id, UNEXPECTED_FAILURE);
    if (state !== "unknown") continue;
    await enqueueTransferJob({ id: row.id, shopId: row.shopId, kind: row.kind as TransferKind }, connection);
    queued.push(row.id);
  }
  return queued;
}

/** A dry run's confirmation found under the shop's lock: another request confirmed it first. */
class AlreadyConfirmed extends Error {
  constructor(readonly job: TransferJobRow) {
    super("already confirmed");
  }
}

/**
 * Starts an import of the upload `fileUrl` names (docs/imports.md); `confirming` is the dry run it
 * confirms, whose confirmation is then looked for again under the shop's lock.
 */
export async function startImport(
  {
    shopId,
    fileUrl,
    source,
    dryRun,
    confirming,
  }: { shopId: string; fileUrl: string; source: Source; dryRun: boolean; confirming?: TransferJobRow },
  unit?: UnitOfWork<TransferJobRow>,
): Promise<TransferJobRow> {
  const { upload, sizeBytes } = await resolveFileUrl(shopId, fileUrl);
  // Marked used in the job's own transaction: the retention job either deleted the file before (and the
  // import is refused) or sees it used now and keeps it.
  return startJob({ shopId, kind: "import", source, dryRun, uploadId: upload.id }, unit, async (tx, at) => {
    if (confirming) {
      const confirmed = await findImportOfUpload(tx, { shopId, uploadId: upload.id, since: confirming.createdAt });
      if (confirmed) throw new AlreadyConfirmed(confirmed);
    }
    if (!(await markUploaded(tx, shopId, upload.id, sizeBytes, at))) {
      throw uploadExpired((await findUpload(tx, shopId, upload.id)) ?? upload);
    }
  });
}

/**
 * Starts the real import of what a dry run checked: the same upload, read as the same source (the admin's
 * confirmation of a dry run's report). `conflict` unless the dry run succeeded and its upload still exists.
 */
export async function confirmDryRun(
  { shopId, jobId, baseUrl }: { shopId: string; jobId: string; baseUrl: string },
  unit?: UnitOfWork<TransferJobRow>,
): Promise<TransferJobRow> {
  const dryRun = await getJob({ shopId, jobId, kind: "import" });
  if (!dryRun.dryRun || dryRun.status !== "succeeded") {
    throw new DomainError("conflict", "Only a dry run that succeeded can be confirmed: start a new import.");
  }
  // Confirmed once: a second confirmation (the browser's back button, a double submit) is the same import.
  const confirmed = await confirmationOf({ shopId, dryRun });
  if (confirmed) return confirmed;
  const fileUrl = importFileUrl({ job: dryRun, baseUrl });
  if (!fileUrl) throw new DomainError("conflict", "The dry run's file is no longer stored: upload it again.");
  try {
    return await startImport(
      { shopId, fileUrl, source: dryRun.source as Source, dryRun: false, confirming: dryRun },
      unit,
    );
  } catch (error) {
    if (error instanceof AlreadyConfirmed) return error.job; // a confirmation sent at the same time won
    throw error;
  }
}

/** The real import that confirmed a dry run, if it was confirmed. */
export async function confirmationOf({ shopId, dryRun }: { shopId: string; dryRun: TransferJobRow }) {
  if (!dryRun.dryRun || !dryRun.uploadId) return undefined;
  return findImportOfUpload(database(), { shopId, uploadId: dryRun.uploadId, since: dryRun.createdAt });
}

/** Starts an export of the shop's saved items. */
export async function startExport(
  { shopId, format }: { shopId: string; format: ExportFormat },
  unit?: UnitOfWork<TransferJobRow>,
): Promise<TransferJobRow> {
  return startJob({ shopId, kind: "export", format }, unit);
}

export async function getJob({ shopId, jobId, kind }: { shopId: string; jobId: string; kind: TransferKind }) {
  const job = await findTransferJob(database(), shopId, jobId, kind);
  if (!job) throw new DomainError("not_found", `No ${kind} job with this id.`);
  return job;
}

/** A page of the shop's jobs, newest first, and one more row to tell whether there is a next page. */
export async function listJobs({
  shopId,
  kind,
  after,
  limit,
}: {
  shopId: string;
  kind: TransferKind;
  after?: string;
  limit: number;
}) {
  return listTransferJobs(database(), shopId, { kind, before: after, limit: limit + 1 });
}

/** The name of the file each import read, as it was uploaded, by job id (imports without an upload have none). */
export async function importFilenames({ shopId, jobs }: { shopId: string; jobs: TransferJobRow[] }) {
  const names = await findUploadFilenames(
    database(),
    shopId,
    jobs.flatMap((job) => (job.kind === "import" && job.uploadId ? [job.uploadId] : [])),
  );
  return new Map(jobs.map((job) => [job.id, (job.uploadId && names.get(job.uploadId)) ?? null]));
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A link shorter than this is not handed out: the file is about to be deleted. */
const SHORTEST_LINK_SECONDS = 60;

/**
 * A fresh signed download link for a finished job's file or report: valid 24 hours, or until the file is
 * due for deletion (FILE_RETENTION_DAYS after the job finished) if that comes first, so no link outlives
 * its file; none once the file is due or deleted.
 */
export async function resultLink(job: TransferJobRow, now = new Date()) {
  if (!job.resultKey || job.resultDeletedAt || (job.status !== "succeeded" && job.status !== "failed")) return null;
  const deletedFrom = job.finishedAt ? job.finishedAt.getTime() + getEnv().FILE_RETENTION_DAYS * DAY_MS : Infinity;
  const seconds = Math.min(DOWNLOAD_URL_SECONDS, Math.floor((deletedFrom - now.getTime()) / 1000));
  if (seconds < SHORTEST_LINK_SECONDS) return null;
  const isExport = job.kind === "export";
  return getStorage().presignDownload({
    key: job.resultKey,
    filename: isExport ? exportFilename(job) : `import-report-${job.id}.json`,
    contentType: isExport ? "text/csv; charset=utf-8" : "application/json",
    expiresInSeconds: seconds,
  });
}

/** The name an export's file downloads as: the marketing export's says what it holds. */
export function exportFilename(job: Pick<TransferJobRow, "id" | "format">) {
  return job.format === "marketing_csv" ? `wishlist-marketing-${job.id}.csv` : `wishlist-export-${job.id}.csv`;
}

/**
 * When the retention job deleted the file stored under `key` (an export file, an import report or an
 * upload, named `<area>/<shop id>/<job or upload id>.<ext>` by this module), or null when it did not: the
 * file routes then answer that the file expired rather than that it never existed.
 */
export async function fileDeletedAt(key: string): Promise<Date | null> {
  const [area, shopId, name] = key.split("/");
  const id = name?.replace(/\.[a-z0-9]+$/, "");
  if (!shopId || !id) return null;
  if (area === "imports") {
    const upload = await findUpload(database(), shopId, id);
    return upload?.storageKey === key ? upload.fileDeletedAt : null;
  }
  if (area === "exports" || area === "reports") {
    const job = await findTransferJob(database(), shopId, id, area === "exports" ? "export" : "import");
    return job?.resultKey === key ? job.resultDeletedAt : null;
  }
  return null;
}

/**
 * The stored report of one of the shop's finished imports (docs/imports.md, "Totals and the report"), read
 * from storage rather than through its signed link; null while the job runs, when it failed before
 * leaving one, and once the report is deleted.
 */
export async function getImportReport({ shopId, jobId }: { shopId: string; jobId: string }) {
  const job = await getJob({ shopId, jobId, kind: "import" });
  // Gone once the retention job (or a customer's redaction) deleted it: the page says so instead of failing.
  if (!job.resultKey || job.resultDeletedAt || !(await getStorage().stat(job.resultKey))) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of await getStorage().read(job.resultKey)) chunks.push(Buffer.from(chunk as Buffer));
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as ImportReport;
}

/** Whether the file an import read is still stored, so the same file can be imported again. */
export async function isImportFileKept({ shopId, job }: { shopId: string; job: TransferJobRow }): Promise<boolean> {
  if (job.kind !== "import" || !job.uploadId) return false;
  const upload = await findUpload(database(), shopId, job.uploadId);
  return upload !== undefined && upload.fileDeletedAt === null;
}

/** The `fileUrl` of the upload an import read, to import the same file again (null once the upload is gone). */
function importFileUrl({ job, baseUrl }: { job: TransferJobRow; baseUrl: string }) {
  return job.kind === "import" && job.uploadId ? fileUrlOf(baseUrl, job.uploadId) : null;
}

async function storeReport(job: RunnableJobRow, report: unknown) {
  const key = reportKey(job.shopId, job.id);
  await getStorage().write(key, Readable.from([JSON.stringify(report, null, 2)]), "application/json");
  return key;
}

/** What a job that failed for no reason of its own says (its error is logged, not shown). */
export const UNEXPECTED_FAILURE = "The job failed unexpectedly; it was retried.";

/**
 * Marks a job failed that BullMQ gave up on without our handler finishing it: its worker died more often
 * than the stall limit allows, or the handler threw on its final attempt before updating the row. A job
 * already finished is left as it is.
 */
export async function abandonTransferJob(jobId: string, message: string) {
  await abandonTransferJobRow(database(), jobId, message, new Date());
}

/** How an attempt at a job ended: `done` (succeeded or failed for good) or `retry` (run it again). */
export type TransferOutcome = { outcome: "done" } | { outcome: "retry"; error: unknown } | { outcome: "wait" };

const DONE: TransferOutcome = { outcome: "done" };

/**
 * Runs one attempt at a job in the worker. A final JobFailure (the file or its columns, the shop's
 * refused access) or a domain error that is not transient fails the job for good, with its report; any
 * other error asks for another attempt, and fails the job on the last one, with the message and report
 * of a JobFailure when the import left one. `wait`: the shop runs as many jobs as it may; nothing was done.
 */
export async function runTransferJob({
  shopId,
  jobId,
  finalAttempt,
}: {
  shopId: string;
  jobId: string;
  finalAttempt: boolean;
}): Promise<TransferOutcome> {
  const job = await findRunnableJob(database(), shopId, jobId);
  if (!job) {
    logger.warn({ jobId }, "transfer job row is gone; nothing to run");
    return DONE;
  }
  if (job.status === "succeeded" || job.status === "failed") return DONE;
  if (job.shopUninstalledAt !== null) {
    // Queued jobs stop with the app's uninstall; the merchant starts them again after a reinstall.
    await markTransferJobFailed(
      database(),
      shopId,
      jobId,
      { error: "The app was uninstalled from the shop before the job ran.", resultKey: null },
      new Date(),
    );
    return DONE;
  }
  // At most TRANSFER_SHOP_CONCURRENCY jobs of a shop run at once, whichever workers took them
  // (docs/decisions/026-fairness-between-shops.md): a shop's burst of imports leaves the other slots to
  // other shops. Checked and marked under the shop's lock; a job over the limit waits (the caller delays it).
  const started = await transaction(async (tx) => {
    await lockShopTransferJobs(tx, shopId);
    const since = new Date(Date.now() - RUNNING_HEARD_WITHIN_MS);
    if ((await countRunningTransferJobs(tx, { shopId, jobId, since })) >= getEnv().TRANSFER_SHOP_CONCURRENCY) {
      return "shop busy";
    }
    // Timed once the count has seen the shop's other jobs end, so the recorded spans never overlap.
    const startedAt = new Date();
    return (await markTransferJobRunning(tx, shopId, jobId, job.startedAt ?? startedAt, startedAt))
      ? "started"
      : "finished"; // by another attempt since it was read above
  });
  if (started === "finished") return DONE;
  if (started === "shop busy") return { outcome: "wait" };
  const fail = async (message: string, report?: unknown) => {
    // The job is marked failed even when its report cannot be stored, rather than left `running`.
    const resultKey = report
      ? await storeReport(job, report).catch((error: unknown) => {
          logger.error({ err: error, jobId }, "import report could not be stored");
          return null;
        })
      : null;
    await markTransferJobFailed(database(), shopId, jobId, { error: message, resultKey }, new Date());
  };

  try {
    if (job.kind === "export") await runExport(job);
    else await runImportJob(job);
    return DONE;
  } catch (error) {
    if (error instanceof ImportSuperseded) {
      // The other attempt goes on; this job is looked at again shortly, and is then done, or resumed from
      // the other's last batch if that attempt has died meanwhile.
      logger.warn({ jobId }, "another attempt at this import wrote first; this one steps aside");
      return { outcome: "wait" };
    }
    if (error instanceof JobFailure && error.final) {
      await fail(error.message, error.report);
      return DONE;
    }
    if (isDomainError(error) && !error.transient) {
      await fail(error.message);
      return DONE;
    }
    if (finalAttempt) {
      if (error instanceof JobFailure) await fail(error.message, error.report);
      else await fail(isDomainError(error) ? error.message : UNEXPECTED_FAILURE);
    } else {
      logger.warn({ err: error, jobId }, "transfer job attempt failed; BullMQ runs it again");
    }
    return { outcome: "retry", error };
  }
}

/** Progress through the shared handle (one statement, outside any transaction). */
const progress = (job: RunnableJobRow, rowsRead: number) =>
  updateTransferJobProgress(database(), job.shopId, job.id, rowsRead);

async function runExport(job: RunnableJobRow) {
  const key = exportKey(job.shopId, job.id);
  let rows = 0;
  let reported = Date.now();
  const onRows = (total: number) => {
    rows = total;
    if (Date.now() - reported > 1_000) {
      reported = Date.now();
      void progress(job, total).catch(() => {});
    }
  };
  await getStorage().write(
    key,
    job.format === "marketing_csv"
      ? exportMarketingCsv({ shopId: job.shopId, shopDomain: job.shopDomain }, onRows)
      : exportCsv(job.shopId, onRows),
    "text/csv; charset=utf-8",
  );
  await markTransferJobSucceeded(database(), job.shopId, job.id, { rowsRead: rows, resultKey: key }, new Date());
}

async function runImportJob(job: RunnableJobRow) {
  if (!job.storageKey) throw new JobFailure("The job's upload no longer exists.", undefined, true);
  let reported = 0;
  const report: ImportReport = await runImport({
    jobId: job.id,
    shopId: job.shopId,
    shopDomain: job.shopDomain,
    source: job.source as Source,
    dryRun: job.dryRun,
    storageKey: job.storageKey,
    resumeFrom: job.checkpoint,
    onProgress: async (rows) => {
      if (rows - reported >= 5_000) {
        reported = rows;
        await progress(job, rows);
      }
    },
  });
  if (!job.dryRun && report.totals.imported >= ANALYZE_AFTER_ROWS && engine() === "postgres") {
    // Fresh planner statistics after a bulk load: with the stale ones PostgreSQL may read a whole shop's
    // items for each page of the next export or list browse, until autovacuum gets round to it.
    await analyzeAfterBulkLoad(database());
  }
  const resultKey = await storeReport(job, report);
  await markTransferJobSucceeded(
    database(),
    job.shopId,
    job.id,
    {
      rowsRead: report.totals.rows,
      imported: report.totals.imported,
      skipped: report.totals.skipped,
      resultKey,
    },
    new Date(),
  );
}
