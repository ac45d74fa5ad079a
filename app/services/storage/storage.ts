/**
 * Where import uploads, import reports and export files live (issue 6). One interface, two drivers:
 * local disk under .data/ with URLs this app signs and serves (the embedded default), and any
 * S3-compatible store with presigned URLs (STORAGE_DRIVER=s3). Keys are made by the services, never
 * taken from requests: `<area>/<shop id>/<object id>[.ext]`.
 */
import type { Readable } from "node:stream";

export interface PresignedUpload {
  url: string;
  method: "PUT";
  /** Headers the client must send with the PUT (Content-Type, signed into the URL). */
  headers: Record<string, string>;
  expiresAt: Date;
}

export interface PresignedDownload {
  url: string;
  expiresAt: Date;
}

export interface StoredObject {
  size: number;
}

export interface FileStorage {
  readonly driver: "local" | "s3";
  presignUpload(input: {
    key: string;
    contentType: string;
    maxBytes: number;
    expiresInSeconds: number;
  }): Promise<PresignedUpload>;
  presignDownload(input: {
    key: string;
    filename: string;
    contentType: string;
    expiresInSeconds: number;
  }): Promise<PresignedDownload>;
  /** Size of a stored object, or null when there is none. */
  stat(key: string): Promise<StoredObject | null>;
  /** The object's bytes as a stream; throws when there is none. */
  read(key: string): Promise<Readable>;
  /**
   * Streams `body` into the object, replacing it whole only once complete. With `maxBytes`, fails with
   * a `too_large` domain error as soon as the body passes it, and nothing is stored.
   */
  write(key: string, body: Readable, contentType: string, options?: { maxBytes?: number }): Promise<StoredObject>;
  remove(key: string): Promise<void>;
  /**
   * Removes every object under `prefix` (a key's leading segments, such as `exports/<shop id>`), in pages;
   * returns how many objects went (the local driver counts files).
   */
  removeAll(prefix: string): Promise<number>;
}

const KEY = /^[a-z]+(\/[A-Za-z0-9_-]+)+(\.[a-z0-9]+)?$/;

export function isStorageKey(key: string): boolean {
  return KEY.test(key) && key.length <= 512;
}

/** Keys are ours; this refuses anything else (path traversal, odd characters) before it reaches a driver. */
export function assertStorageKey(key: string): string {
  if (!KEY.test(key) || key.length > 512) throw new Error(`Invalid storage key: ${key}`);
  return key;
}
