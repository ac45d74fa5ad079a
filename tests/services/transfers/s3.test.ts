import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { customerSearch, startFakeAdminApi } from "../../../scripts/lib/fake-admin-api";
import { startS3 } from "../../support/s3";

// The S3 driver against a local S3-compatible server; set before app modules read the environment. Imports
// check each row's customer with the platform: a stand-in for its Admin API knows customers 1001-1003.
const s3 = await startS3();
Object.assign(process.env, s3.env);
const platform = await startFakeAdminApi();
platform.answer(customerSearch({}, undefined, { ids: ["1001", "1002", "1003"] }));
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;

const { addItem } = await import("~/services/wishlists/wishlists.server");
const { getStorage } = await import("~/services/storage/index.server");
const { createShopWithKey } = await import("../../factories");
const { useWorker } = await import("../../support/worker");
const { apiHarness } = await import("../../support/harness");
const { connectToPlatform, countItems, download, finished, RISKY_HANDLES, runImport, upload } =
  await import("./helpers");

const { app, clientFor } = await apiHarness();
const network = (url: string, init?: RequestInit) => fetch(url, init);

useWorker();
afterAll(async () => {
  await platform.close();
  await s3.close();
});

describe("imports and exports on the S3 storage driver", () => {
  it("uploads to a presigned URL with Content-Type signed in, imports, exports and re-imports to 0", async () => {
    const { shop, secret } = await createShopWithKey();
    await connectToPlatform(shop.domain);
    const api = clientFor(secret);
    const file = readFileSync(path.join(import.meta.dirname, "../../fixtures/imports/generic.csv"));

    const target = await upload(api, network, file);
    const uploadUrl = new URL(target.uploadUrl);
    expect(uploadUrl.origin).toBe(s3.endpoint);
    expect(uploadUrl.pathname).toBe(`/${s3.bucket}/tenant/imports/${shop.id}/${target.uploadId}.csv`);
    expect(uploadUrl.searchParams.get("X-Amz-SignedHeaders")).toBe("content-type;host");
    expect(Number(uploadUrl.searchParams.get("X-Amz-Expires"))).toBe(900);

    const imported = await runImport(api, { source: "csv", fileUrl: target.fileUrl });
    expect(imported).toMatchObject({ status: "succeeded", imported: 3, skipped: 2 });
    const report = await (await download(network, imported.resultUrl!)).json();
    expect(report.issues.map((issue: { line: number }) => issue.line)).toEqual([5, 6]);

    for (const [index, handle] of RISKY_HANDLES.entries()) {
      await addItem({
        shopId: shop.id,
        owner: { kind: "customer", customerId: "1003" },
        item: { productId: String(50 + index), handle },
      });
    }
    const started = await api.POST("/exports", { body: { format: "csv" } });
    const exported = await finished(api, "exports", started.data!.jobId);
    expect(exported).toMatchObject({ status: "succeeded", rowsProcessed: 3 + RISKY_HANDLES.length });
    expect(new URL(exported.resultUrl!).searchParams.get("X-Amz-Expires")).toBe("86400");
    const response = await download(network, exported.resultUrl!);
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="wishlist-export-${exported.jobId}.csv"`,
    );
    const text = await response.text();
    expect(text).toContain(`,"'=HYPERLINK(""http://evil.example""`);

    const before = await countItems(shop.id);
    const again = await runImport(api, { source: "csv", fileUrl: (await upload(api, network, text)).fileUrl });
    expect(again).toMatchObject({ status: "succeeded", imported: 0, skipped: 0 });
    expect(await countItems(shop.id)).toBe(before);
  });

  it("refuses a stored file over 50 MB at import time (a presigned PUT cannot cap it), and expired links", async () => {
    const { secret } = await createShopWithKey();
    const api = clientFor(secret);
    const target = await upload(api, network, Buffer.alloc(50 * 1024 * 1024 + 1, 0x61));
    const started = await api.POST("/imports", { body: { source: "csv", fileUrl: target.fileUrl } });
    expect(started.response.status).toBe(413);
    expect(started.error).toMatchObject({ type: expect.stringMatching(/payload-too-large$/) });
    expect(
      (await api.GET("/imports/uploads/{uploadId}", { params: { path: { uploadId: target.uploadId } } })).data,
    ).toMatchObject({
      uploaded: true,
      sizeBytes: 50 * 1024 * 1024 + 1,
    });

    const expired = await getStorage().presignDownload({
      key: `imports/shop_x/upl_gone.csv`,
      filename: "x.csv",
      contentType: "text/csv",
      expiresInSeconds: 1,
    });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect((await fetch(expired.url)).status).toBe(403);
    // The local driver's routes are not served with the S3 driver.
    expect((await app.request("http://localhost:3000/files/imports/a/b.csv")).status).toBe(404);
  });
});
