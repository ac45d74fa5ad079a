/** Spec 8: import files up to 50 MB, upload URLs for 15 minutes, download links for 24 hours. */
export const IMPORT_MAX_BYTES = 50 * 1024 * 1024;
export const UPLOAD_URL_SECONDS = 15 * 60;
export const DOWNLOAD_URL_SECONDS = 24 * 60 * 60;

/** A job that cannot succeed whatever the retries (a malformed file, missing columns): failed, with its report. */
export class JobFailure extends Error {
  constructor(
    message: string,
    readonly report?: unknown,
  ) {
    super(message);
    this.name = "JobFailure";
  }
}

/**
 * A job stopped by something that may pass (the platform or the database unreachable): BullMQ runs it
 * again; on the last attempt the job fails with this message, which tells the merchant what to do, and
 * this report.
 */
export class RetryableJobFailure extends Error {
  constructor(
    message: string,
    readonly report: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "RetryableJobFailure";
  }
}
