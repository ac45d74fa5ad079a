import { Readable } from "node:stream";
import { Worker, type Job } from "bullmq";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { insertTransferJob } from "~/data/transfer-job-rows.server";
import { JOBS } from "~/jobs/definitions";
import { createQueue, enqueueTransferJob, queuePrefix } from "~/jobs/queues.server";
import { createRedis } from "~/redis.server";
import { newId } from "~/lib/ids";
import { getStorage } from "~/services/storage/index.server";
import {
  confirmDryRun,
  importFilenames,
  queueStrandedTransferJobs,
  startExport,
} from "~/services/transfers/jobs.server";
import { abandonTransferJob } from "~/services/transfers/transfer-run.server";
import { createUpload } from "~/services/transfers/uploads.server";
import { createShop } from "../../factories";

describe("transfer jobs BullMQ gave up on", () => {
  it("are marked failed when still queued or running, and a finished job keeps its outcome", async () => {
    const shop = await createShop();
    const job = (status: string) =>
      insertTransferJob(
        database(),
        { id: newId("job"), shopId: shop.id, kind: "export", format: "csv", status },
        new Date(),
      );
    const [queued, running, succeeded, failed] = await Promise.all(
      ["queued", "running", "succeeded", "failed"].map(job),
    );
    for (const row of [queued, running, succeeded, failed]) await abandonTransferJob(row!.id, "stopped");

    const after = await database().selectFrom("TransferJob").selectAll().where("shopId", "=", shop.id).execute();
    const byId = new Map(after.map((row) => [row.id, row]));
    expect(byId.get(queued!.id)).toMatchObject({ status: "failed", error: "stopped" });
    expect(byId.get(running!.id)).toMatchObject({ status: "failed", error: "stopped" });
    expect(byId.get(running!.id)!.finishedAt).toBeInstanceOf(Date);
    expect(byId.get(succeeded!.id)).toMatchObject({ status: "succeeded", error: null });
    expect(byId.get(failed!.id)).toMatchObject({ status: "failed", error: null });
  });
});

describe("the sweep of jobs BullMQ does not hold (the transfer outbox)", () => {
  it("queues each queued job older than the cut-off that BullMQ lacks, once, and leaves the rest", async () => {
    const shop = await createShop();
    const now = Date.now();
    const job = (status: string, ageMs: number) =>
      insertTransferJob(
        database(),
        { id: newId("job"), shopId: shop.id, kind: "export", format: "csv", status },
        new Date(now - ageMs),
      );
    const stranded = await job("queued", 60_000);
    const held = await job("queued", 60_000);
    const fresh = await job("queued", 0);
    const running = await job("running", 60_000);
    const done = await job("succeeded", 60_000);
    const transfers = createQueue(JOBS.transfer.queue);
    try {
      await enqueueTransferJob({ id: held.id, shopId: shop.id, kind: "export" });
      const cutOff = new Date(now - 5_000);

      expect(await queueStrandedTransferJobs({ createdBefore: cutOff })).toEqual([stranded.id]);
      const ids = (await transfers.getJobs(["waiting"])).map((bull) => bull.id).sort();
      expect(ids).toEqual([stranded.id, held.id].sort());
      expect((await transfers.getJob(stranded.id))?.data).toEqual({ shopId: shop.id, jobId: stranded.id });
      for (const other of [fresh, running, done]) expect(await transfers.getJob(other.id)).toBeUndefined();

      // A second sweep (or a request's late enqueue) adds nothing: BullMQ holds both under the row's id.
      expect(await queueStrandedTransferJobs({ createdBefore: cutOff })).toEqual([]);
      await enqueueTransferJob({ id: stranded.id, shopId: shop.id, kind: "export" });
      expect(await transfers.getJobCounts("waiting")).toEqual({ waiting: 2 });
    } finally {
      await transfers.obliterate({ force: true });
      await transfers.close();
    }
  });
});

describe("jobs left running by a worker that is gone", () => {
  it("are queued again (or marked failed) by the sweep, and stop counting against the open-jobs limit", async () => {
    const shop = await createShop();
    const hourAgo = new Date(Date.now() - 60 * 60_000);
    const running = (updatedAt: Date) =>
      insertTransferJob(
        database(),
        { id: newId("job"), shopId: shop.id, kind: "export", format: "csv", status: "running" },
        updatedAt,
      );
    const lost = await running(hourAgo); // its worker died and Redis lost its job
    const alive = await running(new Date()); // a job at work now
    const moreLost = await Promise.all([1, 2, 3].map(() => running(hourAgo)));
    const transfers = createQueue(JOBS.transfer.queue);
    try {
      // The limit (5) counts the queued and the running heard of lately: the four silent ones do not count.
      const fresh = await startExport({ shopId: shop.id, format: "csv" });
      expect(fresh).toMatchObject({ status: "queued" });
      await transfers.obliterate({ force: true }); // the new job's own add: not what this test is about

      const queued = await queueStrandedTransferJobs({ createdBefore: new Date(0) });
      expect(queued.sort()).toEqual([lost.id, ...moreLost.map((row) => row.id)].sort());
      expect(queued).not.toContain(alive.id);
      const ids = (await transfers.getJobs(["waiting"])).map((bull) => bull.id).sort();
      expect(ids).toEqual(queued);
      // Held by BullMQ now: the next sweep leaves them (and the live one) alone.
      expect(await queueStrandedTransferJobs({ createdBefore: new Date(0) })).toEqual([]);
    } finally {
      await transfers.obliterate({ force: true });
      await transfers.close();
    }
  });
});

describe("a job left running that BullMQ failed for good (the database was down when it gave up)", () => {
  it("is marked failed by the sweep, not queued again, and stops counting as open", async () => {
    const shop = await createShop();
    const hourAgo = new Date(Date.now() - 60 * 60_000);
    const row = await insertTransferJob(
      database(),
      { id: newId("job"), shopId: shop.id, kind: "export", format: "csv", status: "running" },
      hourAgo,
    );
    const transfers = createQueue(JOBS.transfer.queue);
    // BullMQ's own record of the job: taken by a worker and failed on its last attempt.
    const worker = new Worker(JOBS.transfer.queue, null, { connection: createRedis("worker"), prefix: queuePrefix() });
    try {
      await transfers.add("export", { shopId: shop.id, jobId: row.id }, { jobId: row.id, attempts: 1 });
      const token = "test-token";
      const taken = (await worker.getNextJob(token)) as Job;
      expect(taken.id).toBe(row.id);
      await taken.moveToFailed(new Error("database unreachable"), token, false);
      expect(await transfers.getJobState(row.id)).toBe("failed");

      // (Other tests' rows in this file's database may be swept too: only this job matters here.)
      expect(await queueStrandedTransferJobs({ createdBefore: new Date(0) })).not.toContain(row.id);
      const after = await database()
        .selectFrom("TransferJob")
        .selectAll()
        .where("id", "=", row.id)
        .executeTakeFirstOrThrow();
      expect(after).toMatchObject({ status: "failed" });
      expect(after.error).toBeTruthy();
      // BullMQ still holds it failed, and the row is finished: a second sweep changes nothing.
      expect(await queueStrandedTransferJobs({ createdBefore: new Date(0) })).not.toContain(row.id);
      expect(await transfers.getJobState(row.id)).toBe("failed");
    } finally {
      await worker.close();
      await transfers.obliterate({ force: true });
      await transfers.close();
    }
  });
});

describe("confirming a dry run", () => {
  it("starts the real import of the dry run's upload and source, and only for a dry run that succeeded", async () => {
    const shop = await createShop();
    const baseUrl = "http://localhost:3000";
    const { upload } = await createUpload({ shopId: shop.id, baseUrl, filename: "a.csv", contentType: "text/csv" });
    await getStorage().write(upload.storageKey, Readable.from(["Email,Product Id\n"]), "text/csv");
    const job = (fields: { status: string; dryRun: boolean }) =>
      insertTransferJob(
        database(),
        { id: newId("job"), shopId: shop.id, kind: "import", source: "vendor_b", uploadId: upload.id, ...fields },
        new Date(),
      );

    const checked = await job({ status: "succeeded", dryRun: true });
    const started = await confirmDryRun({ shopId: shop.id, jobId: checked.id, baseUrl });
    expect(started).toMatchObject({
      kind: "import",
      source: "vendor_b",
      dryRun: false,
      uploadId: upload.id,
      status: "queued",
    });
    // Confirming again (back button, double submit) is the same import, not a second one.
    expect((await confirmDryRun({ shopId: shop.id, jobId: checked.id, baseUrl })).id).toBe(started.id);

    for (const refused of [
      await job({ status: "failed", dryRun: true }),
      await job({ status: "running", dryRun: true }),
      await job({ status: "succeeded", dryRun: false }),
    ]) {
      await expect(confirmDryRun({ shopId: shop.id, jobId: refused.id, baseUrl })).rejects.toMatchObject({
        code: "conflict",
      });
    }
    const other = await createShop();
    await expect(confirmDryRun({ shopId: other.id, jobId: checked.id, baseUrl })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("starts one import for confirmations sent at the same time", async () => {
    const shop = await createShop();
    const baseUrl = "http://localhost:3000";
    const { upload } = await createUpload({ shopId: shop.id, baseUrl, filename: "a.csv", contentType: "text/csv" });
    await getStorage().write(upload.storageKey, Readable.from(["Email,Product Id\n"]), "text/csv");
    const checked = await insertTransferJob(
      database(),
      {
        id: newId("job"),
        shopId: shop.id,
        kind: "import",
        source: "vendor_b",
        uploadId: upload.id,
        status: "succeeded",
        dryRun: true,
      },
      new Date(),
    );
    const confirmations = await Promise.all(
      Array.from({ length: 4 }, () => confirmDryRun({ shopId: shop.id, jobId: checked.id, baseUrl })),
    );
    expect(new Set(confirmations.map((job) => job.id)).size).toBe(1);
    const imports = await database()
      .selectFrom("TransferJob")
      .select("id")
      .where("shopId", "=", shop.id)
      .where("dryRun", "=", false)
      .execute();
    expect(imports).toHaveLength(1);
  });
});

describe("the file an import read", () => {
  it("is named as the merchant uploaded it, for the shop's own imports only", async () => {
    const [shop, other] = [await createShop(), await createShop()];
    const baseUrl = "http://localhost:3000";
    const { upload } = await createUpload({
      shopId: shop.id,
      baseUrl,
      filename: "Wishlist Plus export (May).csv",
      contentType: "text/csv",
    });
    const insert = (shopId: string, fields: { kind: string; uploadId?: string; source?: string; format?: string }) =>
      insertTransferJob(database(), { id: newId("job"), shopId, status: "queued", ...fields }, new Date());
    const imported = await insert(shop.id, { kind: "import", source: "vendor_a", uploadId: upload.id });
    const exported = await insert(shop.id, { kind: "export", format: "csv" });

    const names = await importFilenames({ shopId: shop.id, jobs: [imported, exported] });
    expect(Object.fromEntries(names)).toEqual({
      [imported.id]: "Wishlist Plus export (May).csv",
      [exported.id]: null,
    });
    // Asked for another shop, the upload is not found: its name is not given away.
    expect((await importFilenames({ shopId: other.id, jobs: [imported] })).get(imported.id)).toBeNull();
  });
});
