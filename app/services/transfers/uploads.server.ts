/**
 * Step 1 of an import (docs/imports.md): the upload a file is sent to, its presigned target and its row,
 * and the `fileUrl` an import names it by.
 */
import { database, transaction, type UnitOfWork } from "~/data/database.server";
import { findUpload, insertUpload, type UploadRow } from "~/data/upload-rows.server";
import { getEnv } from "~/env.server";
import { DomainError } from "~/lib/domain-error";
import { newId } from "~/lib/ids";
import { getStorage } from "~/services/storage/index.server";
import { IMPORT_MAX_BYTES, UPLOAD_URL_SECONDS } from "./limits";

export type { UploadRow } from "~/data/upload-rows.server";

export const uploadKey = (shopId: string, uploadId: string) => `imports/${shopId}/${uploadId}.csv`;
export function fileUrlOf(baseUrl: string, uploadId: string) {
  return `${baseUrl}/v1/imports/uploads/${uploadId}`;
}

/** Step 1 of an import: a presigned upload target and its row. */
export interface CreatedUpload {
  upload: UploadRow;
  /** Where and how to send the file (a presigned URL or this app's signed upload URL). */
  target: Awaited<ReturnType<ReturnType<typeof getStorage>["presignUpload"]>>;
  fileUrl: string;
}

export async function createUpload(
  {
    shopId,
    baseUrl,
    filename,
    contentType,
  }: {
    shopId: string;
    baseUrl: string;
    filename: string;
    contentType: string;
  },
  unit?: UnitOfWork<CreatedUpload>,
): Promise<CreatedUpload> {
  const id = newId("upload");
  const storageKey = uploadKey(shopId, id);
  const target = await getStorage().presignUpload({
    key: storageKey,
    contentType,
    maxBytes: IMPORT_MAX_BYTES,
    expiresInSeconds: UPLOAD_URL_SECONDS,
  });
  const fileUrl = fileUrlOf(baseUrl, id);
  const upload = await transaction(async (tx) => {
    const row = await insertUpload(
      tx,
      { id, shopId, storageKey, filename, contentType, maxBytes: IMPORT_MAX_BYTES, expiresAt: target.expiresAt },
      new Date(),
    );
    await unit?.within?.(tx, { upload: row, target, fileUrl });
    return row;
  });
  return { upload, target, fileUrl };
}

/** The shop's upload with what is stored for it now (null size: nothing uploaded yet). */
async function findUploadWithSize(shopId: string, uploadId: string) {
  const upload = await findUpload(database(), shopId, uploadId);
  if (!upload) return null;
  const stored = await getStorage().stat(upload.storageKey);
  return { upload, sizeBytes: stored?.size ?? null };
}

/** The shop's upload with what is stored for it now (null size: nothing uploaded yet); `not_found` if none. */
export async function getUpload({ shopId, uploadId }: { shopId: string; uploadId: string }) {
  const found = await findUploadWithSize(shopId, uploadId);
  if (!found) throw new DomainError("not_found", "No upload with this id.");
  if (found.upload.fileDeletedAt) throw uploadExpired(found.upload);
  return found;
}

const FILE_URL_PATH = /\/v1\/imports\/uploads\/(upl_[A-Za-z0-9]+)$/;

/** The error for an upload whose file the retention job deleted. */
export function uploadExpired(upload: UploadRow) {
  return new DomainError(
    "file_expired",
    `The file uploaded to this fileUrl was deleted on ${upload.fileDeletedAt?.toISOString() ?? "its expiry"}, ` +
      `${getEnv().FILE_RETENTION_DAYS} days after an import last started from it (or after it was uploaded): ` +
      "upload it again (POST /v1/imports/upload).",
    { details: { deletedAt: upload.fileDeletedAt?.toISOString() ?? null } },
  );
}

/**
 * The upload a `fileUrl` names, if it is one of this shop's, with the size stored; `invalid` otherwise,
 * `file_expired` once its file was deleted, `too_large` past the cap.
 */
export async function resolveFileUrl(
  shopId: string,
  fileUrl: string,
): Promise<{ upload: UploadRow; sizeBytes: number }> {
  const invalid = (message: string) => new DomainError("invalid", message, { issues: [{ field: "fileUrl", message }] });
  let path: string;
  try {
    path = new URL(fileUrl).pathname;
  } catch {
    throw invalid("fileUrl must be the fileUrl returned by POST /v1/imports/upload.");
  }
  const uploadId = FILE_URL_PATH.exec(path)?.[1];
  const found = uploadId ? await findUploadWithSize(shopId, uploadId) : null;
  // Another shop's upload is answered exactly like one that does not exist.
  if (!found) throw invalid("fileUrl does not name an upload of this shop (use POST /v1/imports/upload).");
  if (found.upload.fileDeletedAt) throw uploadExpired(found.upload);
  if (found.sizeBytes === null) {
    throw invalid("Nothing has been uploaded to this fileUrl yet: PUT the file to its uploadUrl first.");
  }
  if (found.sizeBytes > IMPORT_MAX_BYTES) {
    throw new DomainError(
      "too_large",
      `The uploaded file has ${found.sizeBytes} bytes; imports take at most ${IMPORT_MAX_BYTES}.`,
      { details: { maxBytes: IMPORT_MAX_BYTES } },
    );
  }
  return { upload: found.upload, sizeBytes: found.sizeBytes };
}
