import { afterAll, expect } from "vitest";
import { customerSearch, startFakeAdminApi } from "../../../scripts/lib/fake-admin-api";
import { startS3 } from "../../support/s3";

// The S3 driver against a local S3-compatible server, files kept 3 days; set before app modules read the
// environment (the worker inherits it). Imports check customers with a stand-in of the platform's Admin API.
const DAYS = 3;
process.env.FILE_RETENTION_DAYS = String(DAYS);
const s3 = await startS3();
Object.assign(process.env, s3.env);
const platform = await startFakeAdminApi();
platform.answer(customerSearch({}, undefined, { ids: ["1001"] }));
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
afterAll(async () => {
  await platform.close();
  await s3.close();
});

const { apiHarness } = await import("../../support/harness");
const { describeFileRetention } = await import("./retention-suite");

const { clientFor } = await apiHarness();

describeFileRetention({
  driver: "s3",
  clientFor,
  fetcher: (url, init) => fetch(url, init),
  days: DAYS,
  // The store serves presigned links itself: the object is gone (S3's own 404), and no new link is handed out.
  expiredLink: async (response) => {
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("NoSuchKey");
  },
});
