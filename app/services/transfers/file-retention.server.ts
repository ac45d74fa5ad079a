/**
 * Retention of the files imports and exports leave in storage (docs/decisions/021-retention-and-share-off.md):
 * export files and import reports are deleted FILE_RETENTION_DAYS after their job finished, uploaded import
 * files that many days after an import last started from them (or after they were created). The rows stay,
 * marked (`TransferJob.resultDeletedAt`, `Upload.fileDeletedAt`), so the API can say the file expired
 * rather than that it never existed. The worker runs this hourly (`files.purge`).
 *
 * Data-request files of compliance requests (`compliance/...`) are not touched: they are the merchant's
 * record of having answered the request, and go with the customer's or the shop's redaction.
 */
import { database, transaction, type Tx } from "~/data/database.server";
import { claimExpiredResultFile, findJobsWithExpiredResults } from "~/data/transfer-job-rows.server";
import { claimExpiredUploadFile, findUploadsWithExpiredFiles } from "~/data/upload-rows.server";
import { getEnv } from "~/env.server";
import { logger } from "~/logger.server";
import { getStorage } from "~/services/storage/index.server";

const DAY_MS = 24 * 60 * 60 * 1000;
const PAGE = 200;

export interface FilePurgeSummary {
  /** Export files and import reports deleted. */
  results: number;
  /** Uploaded import files deleted. */
  uploads: number;
  /** Files whose deletion failed this time (logged; the next run tries again). */
  failed: number;
}

/** When files of this age (finished, or last used, before it) are due at `now`. */
export function retentionCutoff(now: Date, days = getEnv().FILE_RETENTION_DAYS): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

/**
 * Deletes every file past its retention at `now` (the job's clock; tests pass one days ahead instead of
 * waiting). Each file is claimed and deleted in one transaction: the row is marked only if it still
 * qualifies when locked (an import that starts from an upload meanwhile keeps it), and a deletion that
 * fails, or a process that dies before the commit, leaves the row unmarked for the next run. Deleting a
 * file that is already gone succeeds, so a run cut short is simply run again.
 */
export async function purgeExpiredFiles({ now = new Date() }: { now?: Date } = {}): Promise<FilePurgeSummary> {
  const cutoff = retentionCutoff(now);
  const storage = getStorage();
  const summary: FilePurgeSummary = { results: 0, uploads: 0, failed: 0 };

  const purge = async (
    kind: "results" | "uploads",
    find: (after: string | undefined) => Promise<Array<{ id: string; shopId: string }>>,
    claim: (tx: Tx, row: { id: string; shopId: string }) => Promise<string | undefined>,
  ) => {
    let after: string | undefined;
    for (;;) {
      const rows = await find(after);
      for (const row of rows) {
        try {
          const deleted = await transaction(async (tx) => {
            const key = await claim(tx, row);
            if (key) await storage.remove(key);
            return key !== undefined;
          });
          if (deleted) summary[kind] += 1;
        } catch (error) {
          summary.failed += 1;
          logger.warn(
            { err: error, id: row.id, shopId: row.shopId },
            "expired file not deleted; the next run tries again",
          );
        }
      }
      if (rows.length < PAGE) return;
      after = rows.at(-1)!.id;
    }
  };

  await purge(
    "results",
    (after) => findJobsWithExpiredResults(database(), { finishedBefore: cutoff, after, limit: PAGE }),
    (tx, row) => claimExpiredResultFile(tx, row.shopId, row.id, cutoff, now),
  );
  await purge(
    "uploads",
    (after) => findUploadsWithExpiredFiles(database(), { usedBefore: cutoff, after, limit: PAGE }),
    (tx, row) => claimExpiredUploadFile(tx, row.shopId, row.id, cutoff, now),
  );
  return summary;
}
