/**
 * Statements on `Upload`, the upload targets handed out by POST /v1/imports/upload (docs/imports.md;
 * docs/decisions/017-data-layer.md). Every function is scoped by the shop's id.
 */
import type { Insertable, Selectable } from "kysely";
import type { DB, Queryable } from "./database.server";

export type UploadRow = Selectable<DB["Upload"]>;

export function insertUpload(
  q: Queryable,
  upload: Omit<Insertable<DB["Upload"]>, "createdAt">,
  at: Date,
): Promise<UploadRow> {
  return q
    .insertInto("Upload")
    .values({ ...upload, createdAt: at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findUpload(q: Queryable, shopId: string, uploadId: string): Promise<UploadRow | undefined> {
  return q.selectFrom("Upload").selectAll().where("id", "=", uploadId).where("shopId", "=", shopId).executeTakeFirst();
}

/** The file names the merchant's uploads were created with, by upload id (only the shop's own). */
export async function findUploadFilenames(q: Queryable, shopId: string, uploadIds: string[]) {
  if (uploadIds.length === 0) return new Map<string, string>();
  const rows = await q
    .selectFrom("Upload")
    .select(["id", "filename"])
    .where("shopId", "=", shopId)
    .where("id", "in", uploadIds)
    .execute();
  return new Map(rows.map((row) => [row.id, row.filename]));
}

/**
 * Records the size of what was uploaded and that an import starts from it now, unless the retention job
 * deleted the file: returns whether the upload is still usable. Run in the transaction that creates the
 * import, it locks the row against `claimExpiredUploadFile` (which then sees the new `uploadedAt`).
 */
export async function markUploaded(
  q: Queryable,
  shopId: string,
  uploadId: string,
  sizeBytes: number,
  at: Date,
): Promise<boolean> {
  const result = await q
    .updateTable("Upload")
    .set({ sizeBytes, uploadedAt: at })
    .where("id", "=", uploadId)
    .where("shopId", "=", shopId)
    .where("fileDeletedAt", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Uploads of every shop whose file is still stored although it was last used (an import started from it,
 * or else created) before `usedBefore`, in id order after `after`: the retention job's candidates.
 */
export function findUploadsWithExpiredFiles(
  q: Queryable,
  { usedBefore, after, limit }: { usedBefore: Date; after?: string; limit: number },
): Promise<Array<Pick<UploadRow, "id" | "shopId">>> {
  return (
    q
      .selectFrom("Upload")
      .select(["id", "shopId"])
      .where("fileDeletedAt", "is", null)
      // An upload is used after it is created: this bound lets the (fileDeletedAt, createdAt) index answer.
      .where("createdAt", "<", usedBefore)
      .where((eb) => eb(eb.fn.coalesce("uploadedAt", "createdAt"), "<", usedBefore))
      .$if(after !== undefined, (query) => query.where("id", ">", after!))
      .orderBy("id")
      .limit(limit)
      .execute()
  );
}

/**
 * Records that the upload's file is deleted, if it still qualifies (last used before `usedBefore`, kept so
 * far) and no import that reads it is queued or running, and returns its storage key for the caller to
 * delete in the same transaction; undefined otherwise. An import starting at the same moment locks the row
 * first (`markUploaded`) or finds it deleted.
 */
export async function claimExpiredUploadFile(
  q: Queryable,
  shopId: string,
  uploadId: string,
  usedBefore: Date,
  at: Date,
): Promise<string | undefined> {
  const row = await q
    .updateTable("Upload")
    .set({ fileDeletedAt: at })
    .where("id", "=", uploadId)
    .where("shopId", "=", shopId)
    .where("fileDeletedAt", "is", null)
    .where((eb) => eb(eb.fn.coalesce("uploadedAt", "createdAt"), "<", usedBefore))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("TransferJob")
            .select("TransferJob.id")
            .whereRef("TransferJob.uploadId", "=", "Upload.id")
            .where("TransferJob.status", "in", ["queued", "running"]),
        ),
      ),
    )
    .returning("storageKey")
    .executeTakeFirst();
  return row?.storageKey;
}
