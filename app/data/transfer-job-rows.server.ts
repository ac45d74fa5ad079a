/**
 * Statements on `TransferJob`, the rows of imports and exports (docs/imports.md, "Job states";
 * docs/decisions/017-data-layer.md). Every function takes the handle to run on and is scoped by the
 * shop's id, except the worker's bookkeeping by job id (BullMQ knows a job by the row's id only).
 */
import { sql, type Insertable, type Selectable } from "kysely";
import { engine, type DB, type Queryable } from "./database.server";

export type TransferJobRow = Selectable<DB["TransferJob"]>;
export type TransferKind = "import" | "export";

/** A job to run: its row, its upload's storage key (if any is left) and its shop's domain. */
export type RunnableJobRow = TransferJobRow & {
  storageKey: string | null;
  shopDomain: string;
  shopUninstalledAt: Date | null;
};

export function insertTransferJob(
  q: Queryable,
  job: Omit<Insertable<DB["TransferJob"]>, "createdAt" | "updatedAt">,
  at: Date,
): Promise<TransferJobRow> {
  return q
    .insertInto("TransferJob")
    .values({ ...job, createdAt: at, updatedAt: at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Queued jobs of every shop created before `createdBefore`, oldest first: the worker's sweep checks that
 * BullMQ holds each (by job id, as the worker's bookkeeping does).
 */
export function findQueuedTransferJobs(
  q: Queryable,
  { createdBefore, limit }: { createdBefore: Date; limit: number },
): Promise<Array<Pick<TransferJobRow, "id" | "shopId" | "kind">>> {
  return q
    .selectFrom("TransferJob")
    .select(["id", "shopId", "kind"])
    .where("status", "=", "queued")
    .where("createdAt", "<", createdBefore)
    .orderBy("createdAt")
    .orderBy("id")
    .limit(limit)
    .execute();
}

export function findTransferJob(
  q: Queryable,
  shopId: string,
  jobId: string,
  kind: TransferKind,
): Promise<TransferJobRow | undefined> {
  return q
    .selectFrom("TransferJob")
    .selectAll()
    .where("id", "=", jobId)
    .where("shopId", "=", shopId)
    .where("kind", "=", kind)
    .executeTakeFirst();
}

/** A page of the shop's jobs of one kind, newest first (ids sort by creation time), after the id `before`. */
/**
 * The newest real import of an upload created at or after `since`: the import that confirmed a dry run
 * of that upload (a dry run is confirmed once; docs/imports.md).
 */
export function findImportOfUpload(
  q: Queryable,
  { shopId, uploadId, since }: { shopId: string; uploadId: string; since: Date },
): Promise<TransferJobRow | undefined> {
  return q
    .selectFrom("TransferJob")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("kind", "=", "import")
    .where("uploadId", "=", uploadId)
    .where("dryRun", "=", false)
    .where("createdAt", ">=", since)
    .orderBy("createdAt", "desc")
    .orderBy("id", "desc")
    .executeTakeFirst();
}

export function listTransferJobs(
  q: Queryable,
  shopId: string,
  { kind, before, limit }: { kind: TransferKind; before?: string; limit: number },
): Promise<TransferJobRow[]> {
  return q
    .selectFrom("TransferJob")
    .selectAll()
    .where("shopId", "=", shopId)
    .where("kind", "=", kind)
    .$if(before !== undefined, (query) => query.where("id", "<", before!))
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

/**
 * PostgreSQL: holds, until the transaction ends, a lock on the shop's set of transfer jobs, so that
 * concurrent creations (or starts) count and write one after another. SQLite: nothing (a transaction
 * holds the write lock).
 */
export async function lockShopTransferJobs(q: Queryable, shopId: string): Promise<void> {
  if (engine() !== "postgres") return;
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`transfer-jobs:${shopId}`}, 0))`.execute(q);
}

/** The shop's jobs that are queued, or running and heard of since `runningSince`. */
export async function countOpenTransferJobs(q: Queryable, shopId: string, runningSince: Date): Promise<number> {
  const row = await q
    .selectFrom("TransferJob")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("shopId", "=", shopId)
    .where((eb) =>
      eb.or([eb("status", "=", "queued"), eb.and([eb("status", "=", "running"), eb("updatedAt", ">=", runningSince)])]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Jobs of every shop left `running` and not heard of since `updatedBefore`: their worker may be gone. */
export function findSilentRunningTransferJobs(
  q: Queryable,
  { updatedBefore, limit }: { updatedBefore: Date; limit: number },
): Promise<Array<Pick<TransferJobRow, "id" | "shopId" | "kind">>> {
  return q
    .selectFrom("TransferJob")
    .select(["id", "shopId", "kind"])
    .where("status", "=", "running")
    .where("updatedAt", "<", updatedBefore)
    .orderBy("updatedAt")
    .limit(limit)
    .execute();
}

/**
 * The shop's jobs other than `jobId` that are running and were heard of since `since` (each batch of a
 * running job updates its row): a row left `running` by a worker that died long ago does not count.
 */
export async function countRunningTransferJobs(
  q: Queryable,
  { shopId, jobId, since }: { shopId: string; jobId: string; since: Date },
): Promise<number> {
  const row = await q
    .selectFrom("TransferJob")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("shopId", "=", shopId)
    .where("status", "=", "running")
    .where("id", "!=", jobId)
    .where("updatedAt", ">=", since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The job with what running it needs, in one statement. */
export function findRunnableJob(q: Queryable, shopId: string, jobId: string): Promise<RunnableJobRow | undefined> {
  return q
    .selectFrom("TransferJob as j")
    .innerJoin("Shop as s", "s.id", "j.shopId")
    .leftJoin("Upload as u", "u.id", "j.uploadId")
    .selectAll("j")
    .select(["u.storageKey as storageKey", "s.domain as shopDomain", "s.uninstalledAt as shopUninstalledAt"])
    .where("j.id", "=", jobId)
    .where("j.shopId", "=", shopId)
    .executeTakeFirst();
}

/**
 * An attempt starts: running, counting from zero; `startedAt` is the first attempt's time. False when the
 * job has finished meanwhile (another attempt, running at the same time, finished it): nothing to run.
 */
export async function markTransferJobRunning(
  q: Queryable,
  shopId: string,
  jobId: string,
  startedAt: Date,
  at: Date,
): Promise<boolean> {
  const result = await q
    .updateTable("TransferJob")
    .set({ status: "running", startedAt, rowsRead: 0, error: null, updatedAt: at })
    .where("id", "=", jobId)
    .where("shopId", "=", shopId)
    .where("status", "in", ["queued", "running"])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function updateTransferJobProgress(q: Queryable, shopId: string, jobId: string, rowsRead: number) {
  await q
    .updateTable("TransferJob")
    .set({ rowsRead, updatedAt: new Date() })
    .where("id", "=", jobId)
    .where("shopId", "=", shopId)
    // Not once finished: an attempt that read the job before another finished it reports nothing more.
    .where("status", "=", "running")
    .execute();
}

/**
 * An import's position and totals after a batch (JSON), written in the batch's transaction, in place of
 * `previous`, the one this attempt resumed from or last wrote. False when the row holds another: a second
 * attempt at the job runs at the same time and wrote first (docs/imports.md); the caller rolls back.
 */
export async function saveTransferJobCheckpoint(
  q: Queryable,
  shopId: string,
  jobId: string,
  checkpoint: string,
  previous: string | null,
): Promise<boolean> {
  const result = await q
    .updateTable("TransferJob")
    .set({ checkpoint })
    .where("id", "=", jobId)
    .where("shopId", "=", shopId)
    .where((eb) => (previous === null ? eb("checkpoint", "is", null) : eb("checkpoint", "=", previous)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The shop's imports whose checkpoint holds one of `values` (a customer's id or email in an issue), with the
 * checkpoint as stored, for a customers/redact. A LIKE on the shop's jobs: callers check each parsed checkpoint.
 */
export async function findImportCheckpointsMentioning(
  q: Queryable,
  shopId: string,
  values: readonly string[],
): Promise<Array<{ id: string; checkpoint: string }>> {
  if (values.length === 0) return [];
  // Case-insensitive on both engines (an email may be written in any case); `_` and `%` in a value only widen
  // the match, and the caller decides on the parsed checkpoint.
  const rows = await q
    .selectFrom("TransferJob")
    .select(["id", "checkpoint"])
    .where("shopId", "=", shopId)
    .where("kind", "=", "import")
    .where((eb) => eb.or(values.map((value) => eb(eb.fn("lower", ["checkpoint"]), "like", `%${value.toLowerCase()}%`))))
    .execute();
  return rows.flatMap((row) => (row.checkpoint === null ? [] : [{ id: row.id, checkpoint: row.checkpoint }]));
}

export async function markTransferJobSucceeded(
  q: Queryable,
  shopId: string,
  jobId: string,
  outcome: { rowsRead: number; resultKey: string; imported?: number; skipped?: number },
  at: Date,
): Promise<void> {
  await q
    .updateTable("TransferJob")
    .set({ ...outcome, status: "succeeded", finishedAt: at, updatedAt: at })
    .where("id", "=", jobId)
    .where("shopId", "=", shopId)
    .execute();
}

export async function markTransferJobFailed(
  q: Queryable,
  shopId: string,
  jobId: string,
  { error, resultKey }: { error: string; resultKey: string | null },
  at: Date,
): Promise<void> {
  await q
    .updateTable("TransferJob")
    .set({ status: "failed", error, finishedAt: at, updatedAt: at, ...(resultKey ? { resultKey } : {}) })
    .where("id", "=", jobId)
    .where("shopId", "=", shopId)
    // A job another attempt finished stays as that attempt left it.
    .where("status", "in", ["queued", "running"])
    .execute();
}

/**
 * Fails a job BullMQ gave up on without our handler finishing it, unless it is finished already; by job
 * id alone (BullMQ's id for it). Returns whether it changed the row.
 */
export async function abandonTransferJobRow(q: Queryable, jobId: string, error: string, at: Date): Promise<boolean> {
  const result = await q
    .updateTable("TransferJob")
    .set({ status: "failed", error, finishedAt: at, updatedAt: at })
    .where("id", "=", jobId)
    .where("status", "in", ["queued", "running"])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A finished job never runs again: the retention job may delete its file. */
const FINISHED = ["succeeded", "failed"];

/**
 * Jobs of every shop whose export file or import report is still stored although they finished before
 * `finishedBefore`, in id order after `after`: the retention job's candidates (it claims each with
 * `claimExpiredResultFile`, scoped by the shop).
 */
export function findJobsWithExpiredResults(
  q: Queryable,
  { finishedBefore, after, limit }: { finishedBefore: Date; after?: string; limit: number },
): Promise<Array<Pick<TransferJobRow, "id" | "shopId">>> {
  return q
    .selectFrom("TransferJob")
    .select(["id", "shopId"])
    .where("resultDeletedAt", "is", null)
    .where("finishedAt", "<", finishedBefore)
    .where("resultKey", "is not", null)
    .where("status", "in", FINISHED)
    .$if(after !== undefined, (query) => query.where("id", ">", after!))
    .orderBy("id")
    .limit(limit)
    .execute();
}

/**
 * Records that the job's file is deleted, if it still qualifies (finished before `finishedBefore`, kept so
 * far), and returns its storage key for the caller to delete in the same transaction; undefined otherwise.
 */
export async function claimExpiredResultFile(
  q: Queryable,
  shopId: string,
  jobId: string,
  finishedBefore: Date,
  at: Date,
): Promise<string | undefined> {
  const row = await q
    .updateTable("TransferJob")
    .set({ resultDeletedAt: at })
    .where("id", "=", jobId)
    .where("shopId", "=", shopId)
    .where("resultDeletedAt", "is", null)
    .where("finishedAt", "<", finishedBefore)
    .where("resultKey", "is not", null)
    .where("status", "in", FINISHED)
    .returning("resultKey")
    .executeTakeFirst();
  return row?.resultKey ?? undefined;
}
