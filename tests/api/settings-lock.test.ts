import pg from "pg";
import { describe, expect, it } from "vitest";
import { newId } from "~/lib/ids";
import { createShopWithKey } from "../factories";
import { until } from "../support/poll";
import { apiHarness } from "../support/harness";

const { clientFor } = await apiHarness();

/**
 * PostgreSQL only (SQLite serialises every writer): a settings change locks the shop's row against other
 * settings changes (FOR NO KEY UPDATE), not against transactions writing rows that reference the shop, whose
 * foreign-key checks hold FOR KEY SHARE on it (an import's batch, a relay's transaction).
 */
describe("a settings change while another transaction writes the shop's rows", { timeout: 120_000 }, () => {
  it("does not wait for that transaction to end", async () => {
    const { shop, secret } = await createShopWithKey();
    const api = clientFor(secret);
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query("BEGIN");
      const at = new Date();
      await other.query(
        `INSERT INTO "List" (id, "shopId", "customerId", "createdAt", "updatedAt") VALUES ($1, $2, $3, $4, $4)`,
        [newId("list"), shop.id, "42", at],
      );
      // The insert's transaction stays open while the merchant saves a setting: the answer comes while it
      // is open (waiting for it would take until it ends, never here), within the poll's generous bound.
      let status: number | undefined;
      void api.PATCH("/shop/settings", { body: { guestEnabled: false } }).then(({ response }) => {
        status = response.status;
      });
      expect(
        await until(
          () => status,
          (answered) => answered !== undefined,
          "the settings change answered",
        ),
      ).toBe(200);
    } finally {
      await other.query("ROLLBACK");
      await other.end();
    }
  });
});
