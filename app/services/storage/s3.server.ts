import type { S3Client, S3ClientConfig } from "@aws-sdk/client-s3";
import { PassThrough, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { byteLimit } from "./local.server";

/** The AWS SDK is loaded on first use: a process on the local driver never pays for it (~10 MB). */
async function sdk() {
  const [s3, storage, presigner] = await Promise.all([
    import("@aws-sdk/client-s3"),
    import("@aws-sdk/lib-storage"),
    import("@aws-sdk/s3-request-presigner"),
  ]);
  return { ...s3, Upload: storage.Upload, getSignedUrl: presigner.getSignedUrl };
}
import { assertStorageKey, type FileStorage } from "./storage";

export interface S3StorageOptions {
  bucket: string;
  /** Prepended to every key, e.g. "wishlist/" to share a bucket. */
  prefix: string;
  client: S3ClientConfig;
}

/**
 * Any S3-compatible store through the AWS SDK: presigned PUT (Content-Type signed into the URL, so the
 * store refuses another type) and GET (with the download's file name), streaming multipart writes for
 * exports. A presigned PUT cannot cap the size; the import checks the stored size before it reads
 * anything and counts bytes while it reads (docs/decisions/014-imports-exports.md).
 */
export function createS3Storage({ bucket, prefix, client: config }: S3StorageOptions): FileStorage {
  let loaded: Promise<{ aws: Awaited<ReturnType<typeof sdk>>; client: S3Client }> | undefined;
  const connect = () =>
    (loaded ??= sdk().then((aws) => ({
      aws,
      client: new aws.S3Client({
        // Only what S3 requires: the presigned PUT must not demand a checksum header the uploader cannot know.
        requestChecksumCalculation: "WHEN_REQUIRED",
        responseChecksumValidation: "WHEN_REQUIRED",
        ...config,
      }),
    })));
  const objectKey = (key: string) => `${prefix}${assertStorageKey(key)}`;
  const expiresAt = (seconds: number) => new Date(Date.now() + seconds * 1000);

  return {
    driver: "s3",

    async presignUpload({ key, contentType, expiresInSeconds }) {
      const { aws, client } = await connect();
      const { PutObjectCommand, getSignedUrl } = aws;
      const command = new PutObjectCommand({ Bucket: bucket, Key: objectKey(key), ContentType: contentType });
      const url = await getSignedUrl(client, command, {
        expiresIn: expiresInSeconds,
        signableHeaders: new Set(["content-type"]),
      });
      return { url, method: "PUT", headers: { "Content-Type": contentType }, expiresAt: expiresAt(expiresInSeconds) };
    },

    async presignDownload({ key, filename, contentType, expiresInSeconds }) {
      const { aws, client } = await connect();
      const { GetObjectCommand, getSignedUrl } = aws;
      const command = new GetObjectCommand({
        Bucket: bucket,
        Key: objectKey(key),
        ResponseContentDisposition: `attachment; filename="${filename}"`,
        ResponseContentType: contentType,
      });
      return {
        url: await getSignedUrl(client, command, { expiresIn: expiresInSeconds }),
        expiresAt: expiresAt(expiresInSeconds),
      };
    },

    async stat(key) {
      const { aws, client } = await connect();
      const { HeadObjectCommand, NotFound } = aws;
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
        return { size: head.ContentLength ?? 0 };
      } catch (error) {
        if (error instanceof NotFound || (error as { name?: string }).name === "NotFound") return null;
        throw error;
      }
    },

    async read(key) {
      const { aws, client } = await connect();
      const object = await client.send(new aws.GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
      return object.Body as Readable;
    },

    async write(key, body, contentType, options) {
      const { aws, client } = await connect();
      const { Upload } = aws;
      const counted = { bytes: 0 };
      const pass = new PassThrough();
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: objectKey(key), Body: pass, ContentType: contentType },
      });
      // Both sides must settle: a failing source aborts the multipart upload, a failing upload the source.
      const feeding = pipeline(body, byteLimit(options?.maxBytes ?? Infinity, counted), pass);
      const results = await Promise.allSettled([feeding, upload.done()]);
      const failure = results.find((result) => result.status === "rejected");
      if (failure) {
        await upload.abort().catch(() => {});
        throw (failure as PromiseRejectedResult).reason;
      }
      return { size: counted.bytes };
    },

    async remove(key) {
      const { aws, client } = await connect();
      await client.send(new aws.DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    },

    async removeAll(keyPrefix) {
      const { aws, client } = await connect();
      // The trailing slash keeps `exports/shop_1` from matching `exports/shop_10...`.
      const listed = `${objectKey(keyPrefix)}/`;
      let removed = 0;
      let token: string | undefined;
      do {
        const page = await client.send(
          new aws.ListObjectsV2Command({ Bucket: bucket, Prefix: listed, ContinuationToken: token, MaxKeys: 1000 }),
        );
        for (const object of page.Contents ?? []) {
          await client.send(new aws.DeleteObjectCommand({ Bucket: bucket, Key: object.Key! }));
          removed += 1;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return removed;
    },
  };
}
