/**
 * Fairness between shops for imports and exports (docs/decisions/026-fairness-between-shops.md): a shop
 * may hold only so many jobs open, counted atomically, and runs only so many at once across every worker
 * process, so a burst of one shop's jobs leaves the other slots to the other shops.
 */
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { resetEnvCache } from "~/env.server";
import { addItem } from "~/services/wishlists/wishlists.server";
import { createShopWithKey } from "../../factories";
import { until } from "../../support/poll";
import { upload, viaApp } from "./helpers";
import { startProcess } from "../../support/processes";
import { apiHarness } from "../../support/harness";

Object.assign(process.env, { TRANSFER_OPEN_JOBS_PER_SHOP: "4", TRANSFER_SHOP_CONCURRENCY: "1" });
resetEnvCache();

const { app, clientFor } = await apiHarness();

async function shopApi() {
  const { shop, secret } = await createShopWithKey();
  return { shop, api: clientFor(secret) };
}

const jobsOf = (shopId: string) =>
  database().selectFrom("TransferJob").selectAll().where("shopId", "=", shopId).orderBy("id").execute();

describe("open imports and exports per shop", () => {
  it("are at most TRANSFER_OPEN_JOBS_PER_SHOP, even for requests sent at once; other shops are not counted", async () => {
    const noisy = await shopApi();
    const quiet = await shopApi();
    // No worker runs in this test: every accepted job stays queued, so each one counts as open.
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => noisy.api.POST("/exports", { body: { format: "csv" } })),
    );
    const statuses = answers.map((answer) => answer.response.status).sort();
    expect(statuses).toEqual([202, 202, 202, 202, 409, 409, 409, 409, 409, 409]);
    const refused = answers.find((answer) => answer.response.status === 409)!;
    expect(refused.response.headers.get("content-type")).toBe("application/problem+json");
    expect(refused.error).toMatchObject({ status: 409, maxOpenJobs: 4 });
    expect((refused.error as { type: string }).type).toMatch(/\/problems\/conflict$/);
    expect(await jobsOf(noisy.shop.id)).toHaveLength(4); // the refused requests wrote nothing

    // An import counts with the exports.
    const { fileUrl } = await upload(
      noisy.api,
      viaApp(app),
      "customer_id,anonymous_id,product_id,variant_id,handle,added_at\r\n",
    );
    const importAnswer = await noisy.api.POST("/imports", { body: { source: "csv", fileUrl, dryRun: true } });
    expect(importAnswer.response.status).toBe(409);

    expect((await quiet.api.POST("/exports", { body: { format: "csv" } })).response.status).toBe(202);

    // A job that ends frees its place.
    await database()
      .updateTable("TransferJob")
      .set({ status: "succeeded", finishedAt: new Date() })
      .where("id", "=", (await jobsOf(noisy.shop.id))[0]!.id)
      .execute();
    expect((await noisy.api.POST("/exports", { body: { format: "csv" } })).response.status).toBe(202);
    expect((await noisy.api.POST("/exports", { body: { format: "csv" } })).response.status).toBe(409);
  });
});

describe("running jobs per shop", () => {
  it(
    "one shop runs one job at a time across two workers, and another shop's job runs meanwhile",
    { timeout: 240_000 },
    async () => {
      const noisy = await shopApi();
      const quiet = await shopApi();
      // Enough rows that an export is not over at once.
      const owner = (n: number) => ({ kind: "customer" as const, customerId: String(5000 + n) });
      for (let n = 0; n < 750; n += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, k) =>
            addItem({
              shopId: noisy.shop.id,
              owner: owner(Math.floor((n + k) / 250)),
              item: { productId: String(n + k + 1), handle: `p${n + k + 1}` },
            }),
          ),
        );
      }
      await addItem({ shopId: quiet.shop.id, owner: owner(0), item: { productId: "1", handle: "one" } });

      // The noisy shop's four exports are queued first, the quiet shop's one last: in arrival order, the
      // quiet one would wait for a free slot behind them.
      const noisyIds: string[] = [];
      for (let n = 0; n < 4; n++) {
        const started = await noisy.api.POST("/exports", { body: { format: "csv" } });
        expect(started.response.status).toBe(202);
        noisyIds.push(started.data!.jobId);
      }
      const quietStarted = await quiet.api.POST("/exports", { body: { format: "csv" } });
      expect(quietStarted.response.status).toBe(202);

      const workers = [1, 2].map(() => startProcess("worker/index.ts", { TRANSFER_CONCURRENCY: "2" }));
      try {
        await Promise.all(workers.map((worker) => worker.waitForOutput(/worker ready/, 90_000)));
        const done = (rows: Awaited<ReturnType<typeof jobsOf>>) => rows.every((row) => row.status === "succeeded");
        const noisyRows = await until(() => jobsOf(noisy.shop.id), done, "the noisy shop's exports succeeded", 180_000);
        const [quietRow] = await until(() => jobsOf(quiet.shop.id), done, "the quiet shop's export succeeded");

        // Never two of the noisy shop's jobs at once, though four slots were free for them.
        const spans = noisyRows
          .map((row) => ({ start: row.startedAt!.getTime(), end: row.finishedAt!.getTime() }))
          .sort((a, b) => a.start - b.start);
        for (let n = 1; n < spans.length; n++) expect(spans[n]!.start).toBeGreaterThanOrEqual(spans[n - 1]!.end);
        // The quiet shop's job did not wait for the noisy shop's burst: it started while the noisy shop still
        // had a job waiting. (Its end is not compared: on a loaded machine a 750-row export can finish in less
        // time than the quiet job's own run took, and it once did, by 64 ms.)
        expect(quietRow!.startedAt!.getTime()).toBeLessThan(spans[spans.length - 1]!.start);
        expect(noisyRows.map((row) => row.id).sort()).toEqual([...noisyIds].sort());
      } finally {
        for (const worker of workers) expect(await worker.stop(30_000)).toBe(0);
      }
    },
  );
});
