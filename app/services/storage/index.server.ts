import path from "node:path";
import { getEnv } from "~/env.server";
import { createLocalStorage } from "./local.server";
import { createS3Storage } from "./s3.server";
import type { FileStorage } from "./storage";

let storage: FileStorage | undefined;
let configuredFor: string | undefined;

/** The configured file storage of this process (STORAGE_DRIVER). */
export function getStorage(): FileStorage {
  const env = getEnv();
  const fingerprint = [env.STORAGE_DRIVER, env.STORAGE_DIR, env.S3_BUCKET, env.S3_ENDPOINT, env.SHOPIFY_APP_URL].join(
    "|",
  );
  if (storage && configuredFor === fingerprint) return storage;
  configuredFor = fingerprint;
  storage =
    env.STORAGE_DRIVER === "s3"
      ? createS3Storage({
          bucket: env.S3_BUCKET!,
          prefix: env.S3_PREFIX,
          client: {
            region: env.S3_REGION,
            forcePathStyle: env.S3_FORCE_PATH_STYLE,
            ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
            ...(env.S3_ACCESS_KEY_ID
              ? { credentials: { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY! } }
              : {}),
          },
        })
      : createLocalStorage({ root: path.resolve(env.STORAGE_DIR), baseUrl: env.SHOPIFY_APP_URL });
  return storage;
}

export type { FileStorage } from "./storage";
