import { describe, expect, it } from "vitest";
import { database, engine, isUniqueViolation } from "~/data/database.server";
import { findUpload, insertUpload, markUploaded } from "~/data/upload-rows.server";
import { newId } from "~/lib/ids";
import { createShop } from "../factories";

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
    await markUploaded(database(), shop.id, upload.id, 42, at);
    expect(await findUpload(database(), shop.id, upload.id)).toMatchObject({ sizeBytes: 42, uploadedAt: at });
  });

  it("finds and changes nothing of another shop's upload", async () => {
    const [shop, other] = [await createShop(), await createShop()];
    const upload = await newUpload(shop.id);
    expect(await findUpload(database(), other.id, upload.id)).toBeUndefined();
    await markUploaded(database(), other.id, upload.id, 42, new Date());
    expect(await findUpload(database(), shop.id, upload.id)).toEqual(upload);
  });

  it("refuses a second upload with the same storage key", async () => {
    const shop = await createShop();
    const upload = await newUpload(shop.id);
    const error = await newUpload(shop.id, newId("upload"), upload.storageKey).catch((thrown: unknown) => thrown);
    expect(isUniqueViolation(error)).toBe(true);
  });
});
