import { afterAll, expect } from "vitest";
import { customerSearch, startFakeAdminApi } from "../../../scripts/lib/fake-admin-api";

// Files are kept 3 days here (not the default 7), so the worker is seen reading the setting. Imports check
// each row's customer with the platform: a stand-in for its Admin API knows customer 1001.
const DAYS = 3;
process.env.FILE_RETENTION_DAYS = String(DAYS);
const platform = await startFakeAdminApi();
platform.answer(customerSearch({}, undefined, { ids: ["1001"] }));
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
afterAll(() => platform.close());

const { apiHarness } = await import("../../support/harness");
const { viaApp } = await import("./helpers");
const { describeFileRetention } = await import("./retention-suite");

const { app, clientFor } = await apiHarness();

describeFileRetention({
  driver: "local",
  clientFor,
  fetcher: viaApp(app),
  days: DAYS,
  // The app serves the local driver's links: a deleted file is a 410 problem, not a 404.
  expiredLink: async (response) => {
    expect(response.status).toBe(410);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await response.json()).toMatchObject({
      type: "http://localhost:3000/problems/file-expired",
      status: 410,
      deletedAt: expect.any(String),
    });
  },
});
