/**
 * The worker's run of an import or export job (docs/imports.md, "Job states"): queued -> running ->
 * succeeded | failed, counting rows as it goes, at most TRANSFER_SHOP_CONCURRENCY jobs of a shop at once.
 * Every statement is scoped by the shop id.
 */
import { Readable } from "node:stream";
import { database, engine, transaction } from "~/data/database.server";
import { analyzeAfterBulkLoad } from "~/data/item-rows.server";
import {
  abandonTransferJobRow,
  countRunningTransferJobs,
  findRunnableJob,
  lockShopTransferJobs,
  markTransferJobFailed,
  markTransferJobRunning,
  markTransferJobSucceeded,
  updateTransferJobProgress,
  type RunnableJobRow,
} from "~/data/transfer-job-rows.server";
import { getEnv } from "~/env.server";
import { isDomainError } from "~/lib/domain-error";
import { logger } from "~/logger.server";
import { getStorage } from "~/services/storage/index.server";
import type { Source } from "./columns";
import { exportCsv } from "./export.server";
import { ImportSuperseded, runImport, type ImportReport } from "./import.server";
import { JobFailure, RUNNING_HEARD_WITHIN_MS } from "./limits";
import { exportMarketingCsv } from "./marketing-export.server";

const ANALYZE_AFTER_ROWS = 10_000;

const reportKey = (shopId: string, jobId: string) => `reports/${shopId}/${jobId}.json`;
const exportKey = (shopId: string, jobId: string) => `exports/${shopId}/${jobId}.csv`;

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
      : exportCsv(job.shopId, onRows, { sixColumns: job.format === "csv_six_columns" }),
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
