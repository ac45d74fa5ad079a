import { describe, expect, it } from "vitest";
import { database, engine, isUniqueViolation, transaction } from "~/data/database.server";
import { insertTransferJob } from "~/data/transfer-job-rows.server";
import {
  claimExpiredUploadFile,
  findUpload,
  findUploadsWithExpiredFiles,
  insertUpload,
  markUploaded,
} from "~/data/upload-rows.server";
import { newId } from "~/lib/ids";
import { sql } from "kysely";
import { createShop } from "../factories";
import { until } from "../support/poll";

/** Statements on Upload, on both engines: values, the unique storage key, shop scoping. */
const newUpload = (shopId: string, id = newId("upload"), storageKey = `imports/${shopId}/${id}.csv`) =>
  insertUpload(
    database(),
    {
      id,
      shopId,
      storageKey,
      filename: "wishlists.csv",
      contentType: "text/csv",
      maxBytes: 50,
      expiresAt: new Date("2026-05-06T07:08:09.012Z"),
    },
    new Date("2026-05-06T06:53:09.012Z"),
  );

describe(`Upload rows (${engine()})`, () => {
  it("inserts and reads an upload with its timestamps to the millisecond", async () => {
    const shop = await createShop();
    const upload = await newUpload(shop.id);
    expect(upload).toMatchObject({ sizeBytes: null, uploadedAt: null, maxBytes: 50 });
    expect(upload.expiresAt.toISOString()).toBe("2026-05-06T07:08:09.012Z");
    expect(upload.createdAt.toISOString()).toBe("2026-05-06T06:53:09.012Z");
    expect(await findUpload(database(), shop.id, upload.id)).toEqual(upload);
  });

  it("records what was uploaded", async () => {
    const shop = await createShop();
    const upload = await newUpload(shop.id);
    const at = new Date("2026-05-06T07:00:00.345Z");
    expect(await markUploaded(database(), shop.id, upload.id, 42, at)).toBe(true);
    expect(await findUpload(database(), shop.id, upload.id)).toMatchObject({ sizeBytes: 42, uploadedAt: at });
  });

  it("finds and changes nothing of another shop's upload", async () => {
    const [shop, other] = [await createShop(), await createShop()];
    const upload = await newUpload(shop.id);
    expect(await findUpload(database(), other.id, upload.id)).toBeUndefined();
    expect(await markUploaded(database(), other.id, upload.id, 42, new Date())).toBe(false);
    expect(await claimExpiredUploadFile(database(), other.id, upload.id, new Date(), new Date())).toBeUndefined();
    expect(await findUpload(database(), shop.id, upload.id)).toEqual(upload);
  });

  it("refuses a second upload with the same storage key", async () => {
    const shop = await createShop();
    const upload = await newUpload(shop.id);
    const error = await newUpload(shop.id, newId("upload"), upload.storageKey).catch((thrown: unknown) => thrown);
    expect(isUniqueViolation(error)).toBe(true);
  });

  // Created 2026-05-06T06:53:09.012Z by newUpload.
  const after = (iso: string) => new Date(iso);

  it("finds uploads of every shop not used since a time, by their last import or else their creation", async () => {
    const [shop, other] = [await createShop(), await createShop()];
    const idle = await newUpload(shop.id);
    const imported = await newUpload(shop.id);
    const foreign = await newUpload(other.id);
    await markUploaded(database(), shop.id, imported.id, 1, after("2026-05-20T00:00:00.000Z"));
    const found = async (usedBefore: string) =>
      (await findUploadsWithExpiredFiles(database(), { usedBefore: after(usedBefore), limit: 1_000 }))
        .map((row) => row.id)
        .filter((id) => [idle.id, imported.id, foreign.id].includes(id));
    expect(await found("2026-05-06T06:53:09.012Z")).toEqual([]);
    expect(await found("2026-05-10T00:00:00.000Z")).toEqual([idle.id, foreign.id].sort());
    expect(await found("2026-05-21T00:00:00.000Z")).toEqual([idle.id, imported.id, foreign.id].sort());
    const [first] = await findUploadsWithExpiredFiles(database(), {
      usedBefore: after("2026-05-21T00:00:00.000Z"),
      limit: 1,
    });
    const rest = await findUploadsWithExpiredFiles(database(), {
      usedBefore: after("2026-05-21T00:00:00.000Z"),
      after: first!.id,
      limit: 1_000,
    });
    expect(rest.map((row) => row.id)).not.toContain(first!.id);
  });

  it("claims an expired upload once, never while an import that reads it is queued or running", async () => {
    const shop = await createShop();
    const cutoff = after("2026-06-01T00:00:00.000Z");
    const at = after("2026-06-02T00:00:00.000Z");
    const uploads = await Promise.all(["queued", "running", "succeeded", "failed"].map(() => newUpload(shop.id)));
    for (const [index, status] of ["queued", "running", "succeeded", "failed"].entries()) {
      await insertTransferJob(
        database(),
        { id: newId("job"), shopId: shop.id, kind: "import", source: "csv", status, uploadId: uploads[index]!.id },
        new Date(),
      );
    }
    const claimed = [];
    for (const upload of uploads)
      claimed.push(await claimExpiredUploadFile(database(), shop.id, upload.id, cutoff, at));
    expect(claimed).toEqual([undefined, undefined, uploads[2]!.storageKey, uploads[3]!.storageKey]);
    expect(await claimExpiredUploadFile(database(), shop.id, uploads[2]!.id, cutoff, at)).toBeUndefined();
    expect((await findUpload(database(), shop.id, uploads[2]!.id))?.fileDeletedAt).toEqual(at);
    // Not yet due: kept.
    const recent = await newUpload(shop.id);
    expect(
      await claimExpiredUploadFile(database(), shop.id, recent.id, after("2026-05-06T06:53:09.012Z"), at),
    ).toBeUndefined();
    // A deleted upload cannot be used again.
    expect(await markUploaded(database(), shop.id, uploads[2]!.id, 1, new Date())).toBe(false);
  });

  it("an import that marks the upload used in its transaction keeps it from a claim running at the same time", async () => {
    const shop = await createShop();
    const upload = await newUpload(shop.id);
    const cutoff = after("2026-06-01T00:00:00.000Z");
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let marked!: () => void;
    const markedYet = new Promise<void>((resolve) => (marked = resolve));
    // The import's transaction marks the upload used (today), then holds until the claim has been sent.
    const importing = transaction(async (tx) => {
      expect(await markUploaded(tx, shop.id, upload.id, 1, new Date())).toBe(true);
      marked();
      await held;
    });
    await markedYet;
    const claiming = claimExpiredUploadFile(database(), shop.id, upload.id, cutoff, new Date());
    // PostgreSQL: the import is released once the claim waits for the upload's row, so the two really
    // overlap. SQLite: the process's writes are serialised, so the claim runs after the import's commit
    // whenever it is sent. Either way it must see the new use.
    if (engine() === "postgres") {
      await until(
        async () =>
          Number(
            (
              await sql<{ n: string }>`select count(*) as n from pg_stat_activity
                where datname = current_database() and wait_event_type = 'Lock'`.execute(database())
            ).rows[0]!.n,
          ),
        (waiting) => waiting > 0,
        "the claim waits for the upload's row",
      );
    }
    release();
    await importing;
    expect(await claiming).toBeUndefined();
    expect((await findUpload(database(), shop.id, upload.id))?.fileDeletedAt).toBeNull();
  });
});
