import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { runForm } from "~/admin/forms.server";
import { database } from "~/data/database.server";
import { getEnv } from "~/env.server";
import { getShopSettings, updateShopSettings } from "~/services/shops/shops.server";
import { createShopWithKey } from "../factories";
import { rawCall } from "../support/openapi-client";
import { BASE_URL } from "../support/http";
import { until } from "../support/poll";
import { apiHarness } from "../support/harness";

const { app, validator } = await apiHarness();

/**
 * PostgreSQL only (the pool is PostgreSQL's): a process whose every database connection stays in use for
 * the pool's whole connect timeout (5 s) answers 503 saying it is busy, not that the database is away.
 */
describe("a web process with every database connection in use", { timeout: 120_000 }, () => {
  it("answers 503 'busy' with Retry-After, then answers again once a connection is free", async () => {
    const { shop, secret } = await createShopWithKey();
    const call = () => rawCall(app, validator, "/v1/shop", { headers: { Authorization: `Bearer ${secret}` } });
    expect((await call()).status).toBe(200);

    // Every connection of the pool held by a transaction that waits for the test to let go.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    const holders = Array.from({ length: getEnv().DATABASE_POOL_SIZE }, () =>
      database()
        .connection()
        .execute(async (connection) => {
          await sql`select 1`.execute(connection);
          held += 1;
          await released;
        }),
    );
    try {
      await until(
        () => held,
        (count) => count === getEnv().DATABASE_POOL_SIZE,
        "every connection held",
      );
      const busy = await call();
      expect(busy.status).toBe(503);
      expect(busy.headers.get("Content-Type")).toMatch(/^application\/problem\+json/);
      expect(busy.headers.get("Retry-After")).toBe("2");
      const problem = (await busy.json()) as { type: string; detail: string };
      expect(problem.type).toMatch(/service-unavailable$/);
      expect(problem.detail).toMatch(/^The service is busy: no database connection became free in time/);
      // An admin form's save says so inline, and the page keeps what the merchant entered.
      expect(await runForm(() => updateShopSettings({ shopId: shop.id, patch: { guestEnabled: false } }))).toEqual({
        ok: false,
        fieldErrors: {},
        formError: "The app is busy and nothing was saved. Save again in a few seconds.",
      });
      // Readiness says busy and stays ready: the connections answer, the process is loaded.
      const ready = await app.request(`${BASE_URL}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: "ready", checks: { database: "busy", redis: "ok" } });
    } finally {
      release();
      await Promise.all(holders);
    }
    expect((await call()).status).toBe(200);
    expect((await getShopSettings({ shopId: shop.id })).guestEnabled).toBe(true);
  });
});
