import { Readable } from "node:stream";
import { prisma, sql } from "~/db.server";
import type { TransferJob, Upload } from "~/generated/prisma-sqlite/client";
import { newId } from "~/lib/ids";
import { AppError } from "~/lib/problems";
import { logger } from "~/logger.server";
import { getStorage } from "~/services/storage/index.server";
import type { Source } from "./columns";
import { exportCsv } from "./export.server";
import { runImport, type ImportCheckpoint, type ImportReport } from "./import.server";
import { DOWNLOAD_URL_SECONDS, IMPORT_MAX_BYTES, JobFailure, RetryableJobFailure, UPLOAD_URL_SECONDS } from "./limits";

/**
 * Imports and exports as jobs (spec 2 Transfer job, 3, 4): the API creates the row and queues it; the
 * worker runs it through queued -> running -> succeeded | failed, counting rows as it goes. Every query
 * is scoped by the shop id.
 */
export type JobStatus = "queued" | "running" | "succeeded" | "failed";

/** Content types a browser or a script sends for a CSV file (Windows reports Excel's). */
export const UPLOAD_CONTENT_TYPES = ["text/csv", "application/csv", "text/plain", "application/vnd.ms-excel"] as const;

const ANALYZE_AFTER_ROWS = 10_000;

export const uploadKey = (shopId: string, uploadId: string) => `imports/${shopId}/${uploadId}.csv`;
export const reportKey = (shopId: string, jobId: string) => `reports/${shopId}/${jobId}.json`;
export const exportKey = (shopId: string, jobId: string) => `exports/${shopId}/${jobId}.csv`;

export function fileUrlOf(baseUrl: string, uploadId: string) {
  return `${baseUrl}/v1/imports/uploads/${uploadId}`;
}

export async function createUpload({
  shopId,
  baseUrl,
  filename,
  contentType,
}: {
  shopId: string;
  baseUrl: string;
  filename: string;
  contentType: string;
}) {
  const id = newId("upload");
  const storageKey = uploadKey(shopId, id);
  const target = await getStorage().presignUpload({
    key: storageKey,
    contentType,
    maxBytes: IMPORT_MAX_BYTES,
    expiresInSeconds: UPLOAD_URL_SECONDS,
  });
  const upload = await prisma.upload.create({
    data: { id, shopId, storageKey, filename, contentType, maxBytes: IMPORT_MAX_BYTES, expiresAt: target.expiresAt },
  });
  return { upload, target, fileUrl: fileUrlOf(baseUrl, id) };
}

/** The shop's upload with what is stored for it now (null size: nothing uploaded yet). */
export async function getUpload({ shopId, uploadId }: { shopId: string; uploadId: string }) {
  const upload = await prisma.upload.findFirst({ where: { id: uploadId, shopId } });
  if (!upload) return null;
  const stored = await getStorage().stat(upload.storageKey);
  return { upload, sizeBytes: stored?.size ?? null };
}

const FILE_URL_PATH = /\/v1\/imports\/uploads\/(upl_[A-Za-z0-9]+)$/;

/** The upload a `fileUrl` names, if it is one of this shop's; refuses it otherwise (422, or 413 if too large). */
export async function resolveFileUrl({ shopId, fileUrl }: { shopId: string; fileUrl: string }): Promise<Upload> {
  const invalid = (detail: string) =>
    new AppError("validation-error", { detail, errors: [{ pointer: "#/fileUrl", detail }] });
  let path: string;
  try {
    path = new URL(fileUrl).pathname;
  } catch {
    throw invalid("fileUrl must be the fileUrl returned by POST /v1/imports/upload.");
  }
  const uploadId = FILE_URL_PATH.exec(path)?.[1];
  const found = uploadId ? await getUpload({ shopId, uploadId }) : null;
  // Another shop's upload is answered exactly like one that does not exist.
  if (!found) throw invalid("fileUrl does not name an upload of this shop (use POST /v1/imports/upload).");
  if (found.sizeBytes === null) {
    throw invalid("Nothing has been uploaded to this fileUrl yet: PUT the file to its uploadUrl first.");
  }
  if (found.sizeBytes > IMPORT_MAX_BYTES) {
    throw new AppError("payload-too-large", {
      detail: `The uploaded file has ${found.sizeBytes} bytes; imports take at most ${IMPORT_MAX_BYTES}.`,
      extensions: { maxBytes: IMPORT_MAX_BYTES },
    });
  }
  await prisma.upload.update({
    where: { id: found.upload.id },
    data: { sizeBytes: found.sizeBytes, uploadedAt: new Date() },
  });
  return found.upload;
}

export async function createImportJob({
  shopId,
  upload,
  source,
  dryRun,
}: {
  shopId: string;
  upload: Upload;
  source: Source;
  dryRun: boolean;
}) {
  return prisma.transferJob.create({
    data: { id: newId("job"), shopId, kind: "import", source, dryRun, uploadId: upload.id },
  });
}

export async function createExportJob({ shopId, format }: { shopId: string; format: "csv" }) {
  return prisma.transferJob.create({ data: { id: newId("job"), shopId, kind: "export", format } });
}

/** Undoes a job row whose queueing failed, so no job is left `queued` forever. */
export async function discardJob({ shopId, jobId }: { shopId: string; jobId: string }) {
  await prisma.transferJob.deleteMany({ where: { id: jobId, shopId, status: "queued" } });
}

export async function getJob({ shopId, jobId, kind }: { shopId: string; jobId: string; kind: "import" | "export" }) {
  const job = await prisma.transferJob.findFirst({ where: { id: jobId, shopId, kind } });
  if (!job) throw new AppError("not-found", { detail: `No ${kind} job with this id.` });
  return job;
}

export async function listJobs({
  shopId,
  kind,
  after,
  limit,
}: {
  shopId: string;
  kind: "import" | "export";
  after?: string;
  limit: number;
}) {
  // Newest first: ids sort by creation time.
  return prisma.transferJob.findMany({
    where: { shopId, kind, ...(after ? { id: { lt: after } } : {}) },
    orderBy: { id: "desc" },
    take: limit + 1,
  });
}

/** A fresh signed download link (24 hours) for a finished job's file or report. */
export async function resultLink(job: TransferJob) {
  if (!job.resultKey) return null;
  const isExport = job.kind === "export";
  return getStorage().presignDownload({
    key: job.resultKey,
    filename: isExport ? `wishlist-export-${job.id}.csv` : `import-report-${job.id}.json`,
    contentType: isExport ? "text/csv; charset=utf-8" : "application/json",
    expiresInSeconds: DOWNLOAD_URL_SECONDS,
  });
}

/** Direct SQL on the writing connection, like the import's own batches (no ORM round trip per update). */
async function progress(jobId: string, rowsRead: number) {
  await sql().run(`UPDATE "TransferJob" SET "rowsRead" = ?, "updatedAt" = ? WHERE "id" = ?`, [
    rowsRead,
    new Date(),
    jobId,
  ]);
}

async function storeReport(job: TransferJob, report: unknown) {
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
  await prisma.transferJob.updateMany({
    where: { id: jobId, status: { in: ["queued", "running"] } },
    data: { status: "failed", error: message, finishedAt: new Date() },
  });
}

/**
 * Runs one job in the worker. A JobFailure (the file or its columns, the shop's refused access) fails the
 * job for good, with its report; any other error is thrown for BullMQ to retry, and fails the job on the
 * last attempt, with the report and message of a RetryableJobFailure when the import left one.
 */
export async function runTransferJob({
  shopId,
  jobId,
  finalAttempt,
}: {
  shopId: string;
  jobId: string;
  finalAttempt: boolean;
}) {
  const job = await prisma.transferJob.findFirst({
    where: { id: jobId, shopId },
    include: { upload: true, shop: true },
  });
  if (!job) {
    logger.warn({ jobId }, "transfer job row is gone; nothing to run");
    return;
  }
  if (job.status === "succeeded" || job.status === "failed") return;
  await prisma.transferJob.update({
    where: { id: job.id },
    data: { status: "running", startedAt: job.startedAt ?? new Date(), rowsRead: 0, error: null },
  });
  const fail = async (message: string, report?: unknown) => {
    // The job is marked failed even when its report cannot be stored, rather than left `running`.
    const resultKey = report
      ? await storeReport(job, report).catch((error: unknown) => {
          logger.error({ err: error, jobId: job.id }, "import report could not be stored");
          return null;
        })
      : null;
    await prisma.transferJob.update({
      where: { id: job.id },
      data: { status: "failed", error: message, finishedAt: new Date(), ...(resultKey ? { resultKey } : {}) },
    });
  };

  try {
    if (job.kind === "export") {
      const key = exportKey(job.shopId, job.id);
      let rows = 0;
      let reported = Date.now();
      await getStorage().write(
        key,
        exportCsv(job.shopId, (total) => {
          rows = total;
          if (Date.now() - reported > 1_000) {
            reported = Date.now();
            void progress(job.id, total).catch(() => {});
          }
        }),
        "text/csv; charset=utf-8",
      );
      await prisma.transferJob.update({
        where: { id: job.id },
        data: { status: "succeeded", rowsRead: rows, resultKey: key, finishedAt: new Date() },
      });
      return;
    }

    if (!job.upload) throw new JobFailure("The job's upload no longer exists.");
    let reported = 0;
    const report: ImportReport = await runImport({
      jobId: job.id,
      shopId: job.shopId,
      shopDomain: job.shop.domain,
      source: job.source as Source,
      dryRun: job.dryRun,
      storageKey: job.upload.storageKey,
      resumeFrom: job.checkpoint ? (JSON.parse(job.checkpoint) as ImportCheckpoint) : null,
      onProgress: async (rows) => {
        if (rows - reported >= 5_000) {
          reported = rows;
          await progress(job.id, rows);
        }
      },
    });
    if (!job.dryRun && report.totals.imported >= ANALYZE_AFTER_ROWS && sql().engine === "postgres") {
      // Fresh planner statistics after a bulk load: with the stale ones PostgreSQL may read a whole shop's
      // items for each page of the next export or list browse, until autovacuum gets round to it.
      await sql().run(`ANALYZE "Item"`);
      await sql().run(`ANALYZE "List"`);
    }
    const resultKey = await storeReport(job, report);
    await prisma.transferJob.update({
      where: { id: job.id },
      data: {
        status: "succeeded",
        rowsRead: report.totals.rows,
        imported: report.totals.imported,
        skipped: report.totals.skipped,
        resultKey,
        finishedAt: new Date(),
      },
    });
  } catch (error) {
    if (error instanceof JobFailure) {
      await fail(error.message, error.report);
      return;
    }
    if (finalAttempt) {
      if (error instanceof RetryableJobFailure) await fail(error.message, error.report);
      else await fail(error instanceof AppError ? (error.detail ?? error.message) : UNEXPECTED_FAILURE);
    } else {
      logger.warn({ err: error, jobId: job.id }, "transfer job attempt failed; BullMQ runs it again");
    }
    throw error;
  }
}
