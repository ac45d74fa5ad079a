import { Readable } from "node:stream";
import { QueueEvents } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { insertTransferJob, markTransferJobFailed } from "~/data/transfer-job-rows.server";
import { JOBS, MAINTENANCE_QUEUE } from "~/jobs/definitions";
import { createQueue, queuePrefix } from "~/jobs/queues.server";
import { newId } from "~/lib/ids";
import { createRedis } from "~/redis.server";
import { getStorage } from "~/services/storage/index.server";
import { addItem } from "~/services/wishlists/wishlists.server";
import { createShopWithKey } from "../../factories";
import type { ApiHarness } from "../../support/harness";
import { useWorker } from "../../support/worker";
import { connectToPlatform, finished, runImport, upload, type Fetcher } from "./helpers";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const PROBLEMS = "http://localhost:3000/problems";
const CSV =
  "customer_id,anonymous_id,product_id,variant_id,handle,added_at\r\n1001,,11,,shirt,2026-01-01T00:00:00.000Z\r\n";

/**
 * File retention (FILE_RETENTION_DAYS, the worker's `files.purge`) on one storage driver, through the real
 * worker: the purge is run as the scheduler runs it, with its clock (`now`) set days ahead instead of
 * waiting. The test file sets FILE_RETENTION_DAYS (to `days`) before the app's modules load, so the worker
 * inherits it. `expiredLink` is what a download link handed out before the deletion answers afterwards.
 */
export function describeFileRetention({
  driver,
  clientFor,
  fetcher,
  days,
  expiredLink,
}: {
  driver: "local" | "s3";
  clientFor: ApiHarness["clientFor"];
  fetcher: Fetcher;
  days: number;
  expiredLink: (response: Response) => Promise<void>;
}) {
  useWorker();
  const connection = createRedis("worker");
  const maintenance = createQueue(MAINTENANCE_QUEUE, connection);
  const events = new QueueEvents(MAINTENANCE_QUEUE, { connection: createRedis("worker"), prefix: queuePrefix() });
  beforeAll(() => events.waitUntilReady());
  afterAll(async () => {
    await events.close();
    await maintenance.close();
    await connection.quit();
  });

  /** Runs `files.purge` in the worker with its clock at `now`; its summary. */
  async function purgeAt(now: Date) {
    const job = await maintenance.add(JOBS.filesPurge.name, { now: now.toISOString() }, JOBS.filesPurge.options);
    return (await job.waitUntilFinished(events, 60_000)) as { results: number; uploads: number; failed: number };
  }

  const stored = async (key: string) => (await getStorage().stat(key)) !== null;

  async function newShop() {
    const { shop, secret } = await createShopWithKey();
    await connectToPlatform(shop.domain);
    await addItem({
      shopId: shop.id,
      owner: { kind: "customer", customerId: "1001" },
      item: { productId: "7", handle: "hat" },
    });
    return { shop, api: clientFor(secret) };
  }

  const rowOf = (jobId: string) =>
    database().selectFrom("TransferJob").selectAll().where("id", "=", jobId).executeTakeFirstOrThrow();
  const uploadRow = (uploadId: string) =>
    database().selectFrom("Upload").selectAll().where("id", "=", uploadId).executeTakeFirstOrThrow();

  describe(`file retention on the ${driver} driver (${days} days, the worker's files.purge)`, () => {
    it("deletes the export file, the import report and the upload once due; the API says the files expired", async () => {
      // GIVEN a finished export, and a finished import of an uploaded file
      const { shop, api } = await newShop();
      const exportStart = await api.POST("/exports", { body: { format: "csv" } });
      const exported = await finished(api, "exports", exportStart.data!.jobId);
      expect(exported).toMatchObject({ status: "succeeded", resultDeletedAt: null });
      const target = await upload(api, fetcher, CSV);
      const imported = await runImport(api, { source: "csv", fileUrl: target.fileUrl });
      expect(imported).toMatchObject({ status: "succeeded", imported: 1, resultDeletedAt: null });
      const keys = {
        export: (await rowOf(exported.jobId)).resultKey!,
        report: (await rowOf(imported.jobId)).resultKey!,
        upload: (await uploadRow(target.uploadId)).storageKey,
      };
      const finishedAt = new Date((await rowOf(imported.jobId)).finishedAt!);

      // WHEN the purge runs an hour before they are due THEN every file stays, and the links work
      await purgeAt(new Date(Date.now() + days * DAY_MS - HOUR_MS));
      for (const key of Object.values(keys)) expect(await stored(key), key).toBe(true);
      expect((await fetcher(exported.resultUrl!)).status).toBe(200);

      // WHEN it runs once they are due
      const at = new Date(finishedAt.getTime() + days * DAY_MS + HOUR_MS);
      const summary = await purgeAt(at);

      // THEN the files are gone from storage, and each job records when
      expect(summary.results).toBeGreaterThanOrEqual(2);
      expect(summary.uploads).toBeGreaterThanOrEqual(1);
      expect(summary.failed).toBe(0);
      for (const key of Object.values(keys)) expect(await stored(key), key).toBe(false);
      for (const [kind, jobId] of [
        ["exports", exported.jobId],
        ["imports", imported.jobId],
      ] as const) {
        const { data } = await api.GET(`/${kind}/{jobId}` as "/exports/{jobId}", { params: { path: { jobId } } });
        expect(data, kind).toMatchObject({
          status: "succeeded",
          resultUrl: null,
          resultExpiresAt: null,
          resultDeletedAt: at.toISOString(),
        });
      }
      // A link handed out before answers as the driver does for a deleted file.
      await expiredLink(await fetcher(exported.resultUrl!));
      await expiredLink(await fetcher(imported.resultUrl!));
      // The upload's fileUrl answers 410 file-expired, to a check and to a new import.
      const check = await api.GET("/imports/uploads/{uploadId}", { params: { path: { uploadId: target.uploadId } } });
      expect(check.response.status).toBe(410);
      expect(check.error).toMatchObject({ type: `${PROBLEMS}/file-expired`, status: 410 });
      const again = await api.POST("/imports", { body: { source: "csv", fileUrl: target.fileUrl, dryRun: true } });
      expect(again.response.status).toBe(410);
      expect(again.error).toMatchObject({
        type: `${PROBLEMS}/file-expired`,
        detail: expect.stringContaining("upload it again"),
      });
      // Nothing else of the shop went: its lists and the jobs stay listed.
      expect((await api.GET("/exports")).data!.data.map((job) => job.jobId)).toEqual([exported.jobId]);
      expect((await api.GET("/lists")).data!.data.map((list) => list.count)).toEqual([2]);

      // AND a second run changes nothing (the rows keep their dates)
      await purgeAt(new Date(at.getTime() + DAY_MS));
      expect((await rowOf(exported.jobId)).resultDeletedAt).toEqual(at);
      expect((await uploadRow(target.uploadId)).fileDeletedAt).toEqual(at);
      expect(shop.domain).toContain("myshopify.com");
    });

    it("keeps the upload of an import still running, and one imported from recently however old", async () => {
      const { shop, api } = await newShop();
      // Three uploads made long ago: one never imported, one a running import reads (a row the worker is
      // working on), one an import started from today.
      const made = async () => {
        const target = await upload(api, fetcher, CSV);
        await database()
          .updateTable("Upload")
          .set({ createdAt: new Date(Date.now() - 30 * DAY_MS) })
          .where("id", "=", target.uploadId)
          .execute();
        return target;
      };
      const idle = await made();
      const read = await made();
      const reused = await made();
      // The import runs first: while the shop has a job running, its next one waits (one at a time per shop).
      await runImport(api, { source: "csv", fileUrl: reused.fileUrl });
      const running = await insertTransferJob(
        database(),
        {
          id: newId("job"),
          shopId: shop.id,
          kind: "import",
          source: "csv",
          status: "running",
          uploadId: read.uploadId,
        },
        new Date(),
      );
      // A customer data request's file: the merchant's record, kept whatever its age.
      const complianceKey = `compliance/${shop.id}/${newId("complianceRequest")}.json`;
      await getStorage().write(complianceKey, Readable.from(["{}"]), "application/json");
      const keyOf = async (target: { uploadId: string }) => (await uploadRow(target.uploadId)).storageKey;

      // WHEN the purge runs a day from now
      await purgeAt(new Date(Date.now() + DAY_MS));

      // THEN only the idle upload went
      expect((await uploadRow(idle.uploadId)).fileDeletedAt).not.toBeNull();
      expect(await stored(await keyOf(idle))).toBe(false);
      for (const kept of [read, reused]) {
        expect((await uploadRow(kept.uploadId)).fileDeletedAt, kept.uploadId).toBeNull();
        expect(await stored(await keyOf(kept)), kept.uploadId).toBe(true);
      }
      expect(await stored(complianceKey)).toBe(true);

      // Once the running import has finished, its upload goes with the next run.
      await markTransferJobFailed(database(), shop.id, running.id, { error: "stopped", resultKey: null }, new Date());
      await purgeAt(new Date(Date.now() + DAY_MS));
      expect(await stored(await keyOf(read))).toBe(false);
      expect(await stored(await keyOf(reused))).toBe(true);
      // The reused upload stays until `days` after its import; the data-request file for good.
      await purgeAt(new Date(Date.now() + 100 * DAY_MS));
      expect(await stored(await keyOf(reused))).toBe(false);
      expect(await stored(complianceKey)).toBe(true);
    });

    it("never hands out a link that outlives the file: links end when the file is due, and none in its last minute", async () => {
      const { api } = await newShop();
      const started = await api.POST("/exports", { body: { format: "csv" } });
      const job = await finished(api, "exports", started.data!.jobId);
      const due = (finishedAt: Date) => new Date(finishedAt.getTime() + days * DAY_MS);

      const nearlyDue = new Date(Date.now() - days * DAY_MS + 2 * HOUR_MS);
      await database().updateTable("TransferJob").set({ finishedAt: nearlyDue }).where("id", "=", job.jobId).execute();
      const { data } = await api.GET("/exports/{jobId}", { params: { path: { jobId: job.jobId } } });
      const expiresAt = new Date(data!.resultExpiresAt!).getTime();
      expect(Math.abs(expiresAt - due(nearlyDue).getTime())).toBeLessThan(60_000);
      expect((await fetcher(data!.resultUrl!)).status).toBe(200);

      const lastMinute = new Date(Date.now() - days * DAY_MS + 30_000);
      await database().updateTable("TransferJob").set({ finishedAt: lastMinute }).where("id", "=", job.jobId).execute();
      const late = await api.GET("/exports/{jobId}", { params: { path: { jobId: job.jobId } } });
      expect(late.data).toMatchObject({ status: "succeeded", resultUrl: null, resultDeletedAt: null });
    });
  });
}
