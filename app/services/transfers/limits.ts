/**
 * The limits of imports and exports (docs/imports.md): files up to 50 MB, upload URLs valid 15 minutes,
 * download links 24 hours; and how a job stops with a message for the merchant.
 */

export const IMPORT_MAX_BYTES = 50 * 1024 * 1024;
export const UPLOAD_URL_SECONDS = 15 * 60;
export const DOWNLOAD_URL_SECONDS = 24 * 60 * 60;

/** Content types a browser or a script sends for a CSV file (Windows reports Excel's). */
export const UPLOAD_CONTENT_TYPES = ["text/csv", "application/csv", "text/plain", "application/vnd.ms-excel"] as const;

/**
 * A transfer job stopped with a message for the merchant and, for an import, its report. `final`: running
 * it again cannot help (a malformed file, missing columns, refused access), so the job fails at once;
 * otherwise (the platform or the database unreachable) BullMQ runs it again, and the job fails with this
 * message and report if its last attempt ends the same way.
 */
export class JobFailure extends Error {
  constructor(
    message: string,
    readonly report: unknown,
    readonly final: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "JobFailure";
  }
}

/**
 * A `running` row not updated for this long belongs to a worker that died (each batch of a running job
 * updates its row): it no longer counts against its shop's limits, and the sweep looks at its BullMQ job.
 */
export const RUNNING_HEARD_WITHIN_MS = 10 * 60_000;
