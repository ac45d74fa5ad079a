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

/** Records the size of what was uploaded, when an import starts from it. */
export async function markUploaded(q: Queryable, shopId: string, uploadId: string, sizeBytes: number, at: Date) {
  await q
    .updateTable("Upload")
    .set({ sizeBytes, uploadedAt: at })
    .where("id", "=", uploadId)
    .where("shopId", "=", shopId)
    .execute();
}
