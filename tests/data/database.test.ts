import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database, engine, isUniqueViolation, transaction } from "~/data/database.server";
import { findShopById, upsertShop } from "~/data/shop-rows.server";
import { DomainError } from "~/lib/domain-error";
import { newId } from "~/lib/ids";

/** The data layer's handle on both engines: values as the app uses them, transactions, conflicts. */
const domain = () => `data-${randomBytes(4).toString("hex")}.myshopify.com`;
const shopValues = () => ({
  id: newId("shop"),
  domain: domain(),
  publicKey: `svc_pk_${randomBytes(12).toString("hex")}`,
  settings: "{}",
});

describe(`data layer (${engine()})`, () => {
  it("round-trips timestamps with their milliseconds, as Dates, and nulls as null", async () => {
    const at = new Date("2026-03-04T05:06:07.089Z");
    const shop = await upsertShop(database(), shopValues(), at);
    expect(shop.createdAt).toBeInstanceOf(Date);
    expect(shop.createdAt.toISOString()).toBe(at.toISOString());
    expect(shop.uninstalledAt).toBeNull();
    const read = await findShopById(database(), shop.id);
    expect(read?.installedAt.toISOString()).toBe("2026-03-04T05:06:07.089Z");
    expect(read?.updatedAt).toEqual(at);
  });

  it("reads booleans as booleans and compares timestamps in order", async () => {
    const shop = await upsertShop(database(), shopValues(), new Date());
    const id = newId("list");
    await database()
      .insertInto("List")
      .values({ id, shopId: shop.id, anonymousId: "a", shareEnabled: true, updatedAt: new Date() })
      .execute();
    const list = await database().selectFrom("List").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(list.shareEnabled).toBe(true);
    expect(list.isDefault).toBe(true);
    const later = await database()
      .selectFrom("List")
      .select("id")
      .where("id", "=", id)
      .where("updatedAt", "<", new Date(Date.now() + 1_000))
      .where("updatedAt", ">", new Date(Date.now() - 60_000))
      .execute();
    expect(later).toHaveLength(1);
  });

  it("reports a unique violation the same way on both engines", async () => {
    const values = shopValues();
    await database()
      .insertInto("Shop")
      .values({ ...values, updatedAt: new Date() })
      .execute();
    const duplicate = database()
      .insertInto("Shop")
      .values({ ...values, id: newId("shop"), updatedAt: new Date() })
      .execute();
    const error = await duplicate.catch((thrown: unknown) => thrown);
    expect(isUniqueViolation(error)).toBe(true);
  });

  it("commits a transaction's statements together or not at all", async () => {
    const first = shopValues();
    const second = { ...shopValues(), domain: first.domain };
    const failed = transaction(async (tx) => {
      await tx
        .insertInto("Shop")
        .values({ ...first, updatedAt: new Date() })
        .execute();
      await tx
        .insertInto("Shop")
        .values({ ...second, updatedAt: new Date() })
        .execute();
    });
    await expect(failed).rejects.toSatisfy(isUniqueViolation);
    expect(await findShopById(database(), first.id)).toBeUndefined();
  });

  it("upserts one row from concurrent first writes of one key", async () => {
    const values = shopValues();
    const rows = await Promise.all(
      Array.from({ length: 8 }, () => upsertShop(database(), { ...values, id: newId("shop") }, new Date())),
    );
    expect(new Set(rows.map((row) => row.id)).size).toBe(1);
    const count = await database()
      .selectFrom("Shop")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("domain", "=", values.domain)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  if (engine() === "sqlite") {
    it("refuses a write through the shared handle inside a transaction at once", async () => {
      const attempt = transaction(async () => {
        await database()
          .insertInto("Shop")
          .values({ ...shopValues(), updatedAt: new Date() })
          .execute();
      });
      await expect(attempt).rejects.toThrow(/inside a transaction/);
    });
  }

  it("serialises concurrent transactions that read and write one row", async () => {
    const shop = await upsertShop(database(), shopValues(), new Date());
    await Promise.all(
      Array.from({ length: 20 }, () =>
        transaction(async (tx) => {
          const row = await tx
            .selectFrom("Shop")
            .select("settings")
            .where("id", "=", shop.id)
            .$if(engine() === "postgres", (query) => query.forUpdate())
            .executeTakeFirstOrThrow();
          const next = String(Number(row.settings === "{}" ? 0 : row.settings) + 1);
          await tx.updateTable("Shop").set({ settings: next }).where("id", "=", shop.id).execute();
        }),
      ),
    );
    expect((await findShopById(database(), shop.id))?.settings).toBe("20");
  });

  it("domain errors carry a code and issues, not a status", () => {
    const error = new DomainError("invalid", "bad", { issues: [{ field: "items.0.productId", message: "x" }] });
    expect(error.code).toBe("invalid");
    expect(error).not.toHaveProperty("status");
  });
});
