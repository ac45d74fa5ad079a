/**
 * The local storage driver's signed URLs (outside /v1: they carry their own authority, no key). PUT
 * takes an upload: signature, expiry and Content-Type are checked before a byte is read, and the size
 * cap while streaming. GET serves an export or a report as an attachment, or answers 410 file-expired once
 * the retention job deleted it. Both answer 403 shop-uninstalled while the file's shop has uninstalled the app.
 * With STORAGE_DRIVER=s3 the store itself serves these URLs and this answers 404.
 */
import { Readable } from "node:stream";
import type { Context, Env, Hono } from "hono";
import { getEnv } from "~/env.server";
import { isDomainError } from "~/lib/domain-error";
import { AppError } from "~/lib/problems";
import { FILES_PATH, verifySignedFileUrl, type SignedOperation } from "~/services/storage/local.server";
import { uninstalledShopOfFile } from "~/services/shops/shops.server";
import { getStorage } from "~/services/storage/index.server";
import { fileDeletedAt } from "~/services/transfers/jobs.server";

function grantFor(c: Context, method: SignedOperation) {
  if (getEnv().STORAGE_DRIVER !== "local") throw new AppError("not-found", { detail: "Files are not served here." });
  const check = verifySignedFileUrl(method, new URL(c.req.url));
  if (!check.ok && check.reason === "expired") {
    throw new AppError("signed-url-expired", { detail: "This file URL has expired." });
  }
  if (!check.ok) throw new AppError("signed-url-invalid", { detail: "This file URL's signature does not verify." });
  return check.grant;
}

/** A link handed out before the shop uninstalled the app is refused as its keys are, until a reinstall. */
async function assertShopInstalled(key: string) {
  const domain = await uninstalledShopOfFile(key);
  if (domain) {
    throw new AppError("shop-uninstalled", {
      detail: `The app was uninstalled from ${domain}: its file links stay refused until it is installed again.`,
    });
  }
}

function mediaType(header: string | undefined) {
  return (header ?? "").trim().toLowerCase();
}

export function registerFileRoutes<E extends Env>(app: Hono<E>) {
  app.put(`${FILES_PATH}*`, async (c) => {
    const grant = grantFor(c, "PUT");
    await assertShopInstalled(grant.key);
    const type = c.req.header("content-type");
    if (mediaType(type) !== mediaType(grant.contentType)) {
      throw new AppError("content-type-mismatch", {
        detail: `Send Content-Type: ${grant.contentType} (this upload was declared with it), not ${type ?? "none"}.`,
      });
    }
    const maxBytes = grant.maxBytes ?? 0;
    const declared = Number(c.req.header("content-length"));
    const tooLarge = () =>
      new AppError("payload-too-large", {
        detail: `The file is larger than ${maxBytes} bytes.`,
        extensions: { maxBytes },
      });
    if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
    const body = c.req.raw.body ? Readable.fromWeb(c.req.raw.body as never) : Readable.from([]);
    try {
      const stored = await getStorage().write(grant.key, body, grant.contentType, { maxBytes });
      return c.json({ size: stored.size }, 200);
    } catch (error) {
      if (isDomainError(error, "too_large")) throw tooLarge();
      throw error;
    }
  });

  app.get(`${FILES_PATH}*`, async (c) => {
    const grant = grantFor(c, "GET");
    await assertShopInstalled(grant.key);
    const storage = getStorage();
    const found = await storage.stat(grant.key);
    if (!found) {
      const deletedAt = await fileDeletedAt(grant.key);
      if (deletedAt) {
        throw new AppError("file-expired", {
          detail:
            `This file was deleted on ${deletedAt.toISOString()}, ${getEnv().FILE_RETENTION_DAYS} days after its job ` +
            "finished. Start a new export (or import) to get a new one.",
          extensions: { deletedAt: deletedAt.toISOString() },
        });
      }
      throw new AppError("not-found", { detail: "The file no longer exists." });
    }
    const stream = await storage.read(grant.key);
    return new Response(Readable.toWeb(stream) as ReadableStream, {
      status: 200,
      headers: {
        "Content-Type": grant.contentType,
        "Content-Length": String(found.size),
        "Content-Disposition": `attachment; filename="${grant.filename ?? "download"}"`,
        "Cache-Control": "private, no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  });
}
