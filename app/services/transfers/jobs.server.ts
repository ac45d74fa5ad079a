/**
 * Imports and exports as jobs (docs/imports.md, "Job states"; the TransferJob schema of docs/openapi.json):
 * starting one creates its row and queues it (the row is the job's outbox record, and the worker's sweep
 * queues what Redis did not take); the jobs' pages and links read them. The worker's run of a job is in
 * ./transfer-run.server.ts, the uploads an import reads in ./uploads.server.ts. Every statement is scoped
 * by the shop id.
 */
import type { Redis } from "ioredis";
import { database, transaction, type Tx, type UnitOfWork } from "~/data/database.server";
import {
  countOpenTransferJobs,
  findQueuedTransferJobs,
  findSilentRunningTransferJobs,
  findImportOfUpload,
  findTransferJob,
  insertTransferJob,
  listTransferJobs,
  lockShopTransferJobs,
  type TransferJobRow,
  type TransferKind,
} from "~/data/transfer-job-rows.server";
import { findUpload, findUploadFilenames, markUploaded } from "~/data/upload-rows.server";
import { enqueueTransferJob, holdsTransferJob, transferJobState, withinMs } from "~/jobs/queues.server";
import { getEnv } from "~/env.server";
import { DomainError } from "~/lib/domain-error";
import { newId } from "~/lib/ids";
import { logger } from "~/logger.server";
import { getStorage } from "~/services/storage/index.server";
import type { Source } from "./columns";
import type { ImportReport } from "./import.server";
import { DOWNLOAD_URL_SECONDS, RUNNING_HEARD_WITHIN_MS } from "./limits";
import type { ExportFormat } from "./transfer-requests";
import { abandonTransferJob, UNEXPECTED_FAILURE } from "./transfer-run.server";
import { fileUrlOf, resolveFileUrl, uploadExpired } from "./uploads.server";

export type { TransferJobRow, TransferKind } from "~/data/transfer-job-rows.server";
export type { ImportIssue, ImportReport } from "./import.server";

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
 * upload, named `<area>/<shop id>/<job or upload id>.<ext>` by ./uploads.server.ts and ./transfer-run.server.ts), or null when it did not: the
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
