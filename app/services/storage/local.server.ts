import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DomainError } from "~/lib/domain-error";
import { deriveKey } from "~/lib/derived-keys.server";
import {
  assertStorageKey,
  isStorageKey,
  type FileStorage,
  type PresignedDownload,
  type PresignedUpload,
} from "./storage";

/**
 * Counts bytes going through and fails as soon as they pass `maxBytes` (never after the fact), with a
 * `too_large` domain error whose `details.maxBytes` is the cap.
 */
export function byteLimit(maxBytes: number, counted: { bytes: number } = { bytes: 0 }) {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      counted.bytes += chunk.length;
      if (counted.bytes > maxBytes)
        callback(new DomainError("too_large", `The body is larger than ${maxBytes} bytes.`, { details: { maxBytes } }));
      else callback(null, chunk);
    },
  });
}

export type SignedOperation = "PUT" | "GET";

/** What a local signed URL grants: one operation on one key until `expires`, with its constraints. */
export interface SignedGrant {
  method: SignedOperation;
  key: string;
  expires: number; // unix seconds
  contentType: string;
  maxBytes?: number;
  filename?: string;
}

function canonical(grant: SignedGrant): string {
  return [grant.method, grant.key, grant.expires, grant.contentType, grant.maxBytes ?? "", grant.filename ?? ""].join(
    "\n",
  );
}

function mac(grant: SignedGrant): Buffer {
  return createHmac("sha256", deriveKey("signed-url")).update(canonical(grant)).digest();
}

export const FILES_PATH = "/files/";

export function signedFileUrl(baseUrl: string, grant: SignedGrant): string {
  const url = new URL(`${FILES_PATH}${grant.key}`, baseUrl);
  url.searchParams.set("expires", String(grant.expires));
  url.searchParams.set("contentType", grant.contentType);
  if (grant.maxBytes !== undefined) url.searchParams.set("maxBytes", String(grant.maxBytes));
  if (grant.filename !== undefined) url.searchParams.set("filename", grant.filename);
  url.searchParams.set("signature", mac(grant).toString("base64url"));
  return url.toString();
}

export type GrantCheck = { ok: true; grant: SignedGrant } | { ok: false; reason: "invalid" | "expired" };

/** Verifies a signed file URL for `method` (constant-time), then its expiry. */
export function verifySignedFileUrl(method: SignedOperation, url: URL, now = Date.now()): GrantCheck {
  const params = url.searchParams;
  let key: string;
  try {
    key = decodeURIComponent(url.pathname.slice(FILES_PATH.length));
  } catch {
    return { ok: false, reason: "invalid" }; // malformed percent-encoding: no URL of ours looks like that
  }
  // Only keys of the shape the services make are ever signed; anything else is refused before the MAC.
  if (!isStorageKey(key)) return { ok: false, reason: "invalid" };
  const expires = Number(params.get("expires"));
  const maxBytesText = params.get("maxBytes");
  const grant: SignedGrant = {
    method,
    key,
    expires,
    contentType: params.get("contentType") ?? "",
    ...(maxBytesText !== null ? { maxBytes: Number(maxBytesText) } : {}),
    ...(params.has("filename") ? { filename: params.get("filename")! } : {}),
  };
  const given = Buffer.from(params.get("signature") ?? "", "base64url");
  const expected = mac(grant);
  if (!Number.isInteger(expires) || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: "invalid" };
  }
  if (expires * 1000 <= now) return { ok: false, reason: "expired" };
  return { ok: true, grant };
}

/** Local disk under `root`; its URLs point at this app's /files/ routes (app/api/files.server.ts). */
export function createLocalStorage({ root, baseUrl }: { root: string; baseUrl: string }): FileStorage {
  const pathOf = (key: string) => path.join(root, assertStorageKey(key));
  const expiry = (seconds: number) => Math.floor(Date.now() / 1000) + seconds;

  return {
    driver: "local",

    async presignUpload({ key, contentType, maxBytes, expiresInSeconds }): Promise<PresignedUpload> {
      const expires = expiry(expiresInSeconds);
      return {
        url: signedFileUrl(baseUrl, { method: "PUT", key: assertStorageKey(key), expires, contentType, maxBytes }),
        method: "PUT",
        headers: { "Content-Type": contentType },
        expiresAt: new Date(expires * 1000),
      };
    },

    async presignDownload({ key, filename, contentType, expiresInSeconds }): Promise<PresignedDownload> {
      const expires = expiry(expiresInSeconds);
      return {
        url: signedFileUrl(baseUrl, { method: "GET", key: assertStorageKey(key), expires, contentType, filename }),
        expiresAt: new Date(expires * 1000),
      };
    },

    async stat(key) {
      try {
        const info = await stat(pathOf(key));
        return info.isFile() ? { size: info.size } : null;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      }
    },

    async read(key) {
      const file = pathOf(key);
      await stat(file); // ENOENT here rather than as a stream error
      return createReadStream(file);
    },

    async write(key, body: Readable, _contentType, options) {
      const file = pathOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      // Written beside the target and renamed into place: a reader never sees half a file.
      const temporary = `${file}.${randomUUID()}.partial`;
      const counted = { bytes: 0 };
      try {
        await pipeline(body, byteLimit(options?.maxBytes ?? Infinity, counted), createWriteStream(temporary));
        await rename(temporary, file);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
      return { size: counted.bytes };
    },

    async remove(key) {
      await rm(pathOf(key), { force: true });
    },

    async removeAll(prefix) {
      const directory = pathOf(prefix);
      const files = await readdir(directory, { recursive: true, withFileTypes: true }).catch((error) => {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw error;
      });
      await rm(directory, { recursive: true, force: true });
      return files.filter((entry) => entry.isFile()).length;
    },
  };
}
