import { describe, expect, it } from "vitest";
import { database, engine, transaction } from "~/data/database.server";
import {
  abandonTransferJobRow,
  claimExpiredResultFile,
  findJobsWithExpiredResults,
  findQueuedTransferJobs,
  findRunnableJob,
  findTransferJob,
  insertTransferJob,
  listTransferJobs,
  markTransferJobFailed,
  markTransferJobRunning,
  markTransferJobSucceeded,
  saveTransferJobCheckpoint,
  updateTransferJobProgress,
} from "~/data/transfer-job-rows.server";
import { insertUpload } from "~/data/upload-rows.server";
import { newId } from "~/lib/ids";
import { createShop } from "../factories";

/** Statements on TransferJob, on both engines: values, shop scoping, the worker's state changes. */
const newJob = (shopId: string, kind: "import" | "export" = "export", extra: { uploadId?: string } = {}) =>
  insertTransferJob(
    database(),
    { id: newId("job"), shopId, kind, ...(kind === "export" ? { format: "csv" } : { source: "csv" }), ...extra },
    new Date("2026-01-02T03:04:05.678Z"),
  );

describe(`TransferJob rows (${engine()})`, () => {
  it("inserts a queued job with its defaults and timestamps to the millisecond", async () => {
    const shop = await createShop();
    const job = await newJob(shop.id);
    expect(job).toMatchObject({ status: "queued", dryRun: false, rowsRead: 0, imported: null, error: null });
    expect(job.createdAt.toISOString()).toBe("2026-01-02T03:04:05.678Z");
    expect(job.updatedAt).toEqual(job.createdAt);
    const read = await findTransferJob(database(), shop.id, job.id, "export");
    expect(read).toEqual(job);
    expect(read?.dryRun).toBe(false);
  });

  it("finds a job only in its shop and of its kind", async () => {
    const [shop, other] = [await createShop(), await createShop()];
    const job = await newJob(shop.id);
    expect(await findTransferJob(database(), other.id, job.id, "export")).toBeUndefined();
    expect(await findTransferJob(database(), shop.id, job.id, "import")).toBeUndefined();
    expect(await findRunnableJob(database(), other.id, job.id)).toBeUndefined();
  });

  it("pages a shop's jobs of one kind newest first", async () => {
    const [shop, other] = [await createShop(), await createShop()];
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push((await newJob(shop.id)).id);
    await newJob(shop.id, "import");
    await newJob(other.id);
    const first = await listTransferJobs(database(), shop.id, { kind: "export", limit: 2 });
    expect(first.map((job) => job.id)).toEqual([ids[2], ids[1]]);
    const rest = await listTransferJobs(database(), shop.id, { kind: "export", before: ids[1], limit: 2 });
    expect(rest.map((job) => job.id)).toEqual([ids[0]]);
  });

  it("reads a runnable job with its upload's storage key and its shop's domain", async () => {
    const shop = await createShop();
    const uploadId = newId("upload");
    await insertUpload(
      database(),
      {
        id: uploadId,
        shopId: shop.id,
        storageKey: `imports/${shop.id}/${uploadId}.csv`,
        filename: "a.csv",
        contentType: "text/csv",
        maxBytes: 10,
        expiresAt: new Date(),
      },
      new Date(),
    );
    const job = await newJob(shop.id, "import", { uploadId });
    expect(await findRunnableJob(database(), shop.id, job.id)).toMatchObject({
      id: job.id,
      storageKey: `imports/${shop.id}/${uploadId}.csv`,
      shopDomain: shop.domain,
    });
    const exportJob = await newJob(shop.id);
    expect(await findRunnableJob(database(), shop.id, exportJob.id)).toMatchObject({ storageKey: null });
  });

  it("runs a job through running, progress, checkpoint and success", async () => {
    const shop = await createShop();
    const job = await newJob(shop.id, "import");
    const started = new Date("2026-02-03T04:05:06.789Z");
    expect(await markTransferJobRunning(database(), shop.id, job.id, started, new Date())).toBe(true);
    await updateTransferJobProgress(database(), shop.id, job.id, 5_000);
    expect(await transaction((tx) => saveTransferJobCheckpoint(tx, shop.id, job.id, '{"line":7}', null))).toBe(true);
    // Only in place of the one the attempt last saw: another attempt wrote since.
    expect(await saveTransferJobCheckpoint(database(), shop.id, job.id, '{"line":9}', null)).toBe(false);
    expect(await saveTransferJobCheckpoint(database(), shop.id, job.id, '{"line":9}', '{"line":8}')).toBe(false);
    let read = await findTransferJob(database(), shop.id, job.id, "import");
    expect(read).toMatchObject({ status: "running", rowsRead: 5_000, checkpoint: '{"line":7}' });
    expect(read?.startedAt?.toISOString()).toBe("2026-02-03T04:05:06.789Z");
    expect(read!.updatedAt.getTime()).toBeGreaterThan(job.updatedAt.getTime());

    const finished = new Date("2026-02-03T04:06:00.001Z");
    await markTransferJobSucceeded(
      database(),
      shop.id,
      job.id,
      { rowsRead: 9, imported: 7, skipped: 2, resultKey: "reports/x.json" },
      finished,
    );
    read = await findTransferJob(database(), shop.id, job.id, "import");
    expect(read).toMatchObject({
      status: "succeeded",
      rowsRead: 9,
      imported: 7,
      skipped: 2,
      resultKey: "reports/x.json",
    });
    expect(read?.finishedAt).toEqual(finished);
    // A second attempt that read the job before it finished does not start it again.
    expect(await markTransferJobRunning(database(), shop.id, job.id, started, new Date())).toBe(false);
    expect(await findTransferJob(database(), shop.id, job.id, "import")).toMatchObject({ status: "succeeded" });
  });

  it("fails a job that is queued or running, never one another attempt finished", async () => {
    const shop = await createShop();
    const job = await newJob(shop.id, "import");
    await markTransferJobFailed(database(), shop.id, job.id, { error: "bad", resultKey: "reports/r.json" }, new Date());
    await markTransferJobFailed(database(), shop.id, job.id, { error: "worse", resultKey: null }, new Date());
    expect(await findTransferJob(database(), shop.id, job.id, "import")).toMatchObject({
      status: "failed",
      error: "bad",
      resultKey: "reports/r.json",
    });

    const succeeded = await newJob(shop.id, "import");
    await markTransferJobRunning(database(), shop.id, succeeded.id, new Date(), new Date());
    await markTransferJobSucceeded(
      database(),
      shop.id,
      succeeded.id,
      { rowsRead: 3, resultKey: "r/s.json" },
      new Date(),
    );
    await markTransferJobFailed(
      database(),
      shop.id,
      succeeded.id,
      { error: "late", resultKey: "r/f.json" },
      new Date(),
    );
    await updateTransferJobProgress(database(), shop.id, succeeded.id, 1);
    expect(await findTransferJob(database(), shop.id, succeeded.id, "import")).toMatchObject({
      status: "succeeded",
      error: null,
      rowsRead: 3,
      resultKey: "r/s.json",
    });
  });

  it("changes nothing of another shop's job", async () => {
    const [shop, other] = [await createShop(), await createShop()];
    const job = await newJob(shop.id);
    await markTransferJobRunning(database(), other.id, job.id, new Date(), new Date());
    await updateTransferJobProgress(database(), other.id, job.id, 9);
    await markTransferJobFailed(database(), other.id, job.id, { error: "x", resultKey: null }, new Date());
    expect(await findTransferJob(database(), shop.id, job.id, "export")).toEqual(job);
  });

  it("finds queued jobs of every shop created before a time, oldest first, up to a limit", async () => {
    const [shop, other] = [await createShop(), await createShop()];
    const at = (iso: string) => new Date(iso);
    const insert = (shopId: string, createdAt: string) =>
      insertTransferJob(database(), { id: newId("job"), shopId, kind: "import", source: "csv" }, at(createdAt));
    const oldest = await insert(other.id, "2030-01-01T00:00:00.000Z");
    const older = await insert(shop.id, "2030-01-01T00:00:01.000Z");
    const running = await insert(shop.id, "2030-01-01T00:00:00.500Z");
    await markTransferJobRunning(database(), shop.id, running.id, new Date(), new Date());
    await insert(shop.id, "2030-01-01T00:00:05.000Z"); // not before the cut-off
    const found = await findQueuedTransferJobs(database(), {
      createdBefore: at("2030-01-01T00:00:05.000Z"),
      limit: 1_000,
    });
    expect(found.filter((job) => [shop.id, other.id].includes(job.shopId))).toEqual([
      { id: oldest.id, shopId: other.id, kind: "import" },
      { id: older.id, shopId: shop.id, kind: "import" },
    ]);
    const first = await findQueuedTransferJobs(database(), { createdBefore: at("2030-01-01T00:00:05.000Z"), limit: 1 });
    expect(first).toHaveLength(1);
  });

  it("abandons only unfinished jobs, once, when concurrent watchers race", async () => {
    const shop = await createShop();
    const [queued, done] = [await newJob(shop.id), await newJob(shop.id)];
    await markTransferJobSucceeded(
      database(),
      shop.id,
      done.id,
      { rowsRead: 1, resultKey: "exports/x.csv" },
      new Date(),
    );
    const changed = await Promise.all(
      Array.from({ length: 4 }, () => abandonTransferJobRow(database(), queued.id, "stopped", new Date())),
    );
    expect(changed.filter(Boolean).length).toBeGreaterThanOrEqual(1);
    expect(await abandonTransferJobRow(database(), done.id, "stopped", new Date())).toBe(false);
    expect(await findTransferJob(database(), shop.id, queued.id, "export")).toMatchObject({ status: "failed" });
    expect(await findTransferJob(database(), shop.id, done.id, "export")).toMatchObject({ status: "succeeded" });
  });

  it("refuses a duplicate job id", async () => {
    const shop = await createShop();
    const job = await newJob(shop.id);
    await expect(
      insertTransferJob(database(), { id: job.id, shopId: shop.id, kind: "export" }, new Date()),
    ).rejects.toThrow();
  });

  it("finds and claims, once, the result files of jobs finished before a time; never of unfinished jobs", async () => {
    const [shop, other] = [await createShop(), await createShop()];
    const finishedAt = new Date("2026-03-01T00:00:00.000Z");
    const cutoff = new Date("2026-03-05T00:00:00.000Z");
    const at = new Date("2026-03-06T00:00:00.000Z");
    const jobs = [];
    for (const status of ["succeeded", "failed", "running", "queued"]) {
      const job = await newJob(shop.id);
      await database()
        .updateTable("TransferJob")
        .set({ status, finishedAt, resultKey: `exports/${shop.id}/${job.id}.csv` })
        .where("id", "=", job.id)
        .execute();
      jobs.push(job);
    }
    const noFile = await newJob(shop.id);
    await markTransferJobFailed(database(), shop.id, noFile.id, { error: "x", resultKey: null }, finishedAt);
    const foreign = await newJob(other.id);
    await markTransferJobSucceeded(
      database(),
      other.id,
      foreign.id,
      { rowsRead: 0, resultKey: "exports/o/f.csv" },
      finishedAt,
    );
    const ours = [...jobs.map((job) => job.id), noFile.id, foreign.id];

    const found = (finishedBefore: Date) =>
      findJobsWithExpiredResults(database(), { finishedBefore, limit: 1_000 }).then((rows) =>
        rows.map((row) => row.id).filter((id) => ours.includes(id)),
      );
    expect(await found(finishedAt)).toEqual([]);
    expect(await found(cutoff)).toEqual([jobs[0]!.id, jobs[1]!.id, foreign.id].sort());

    expect(await claimExpiredResultFile(database(), other.id, jobs[0]!.id, cutoff, at)).toBeUndefined();
    expect(await claimExpiredResultFile(database(), shop.id, jobs[0]!.id, finishedAt, at)).toBeUndefined();
    const claimed = [];
    for (const job of [...jobs, noFile])
      claimed.push(await claimExpiredResultFile(database(), shop.id, job.id, cutoff, at));
    expect(claimed).toEqual([
      `exports/${shop.id}/${jobs[0]!.id}.csv`,
      `exports/${shop.id}/${jobs[1]!.id}.csv`,
      undefined,
      undefined,
      undefined,
    ]);
    expect(await claimExpiredResultFile(database(), shop.id, jobs[0]!.id, cutoff, at)).toBeUndefined();
    expect((await findTransferJob(database(), shop.id, jobs[0]!.id, "export"))?.resultDeletedAt).toEqual(at);
    expect(await found(cutoff)).toEqual([foreign.id]);
  });
});
