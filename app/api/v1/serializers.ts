import type { ApiKeyRow } from "~/data/api-key-rows.server";
import type { TransferJobRow as TransferJob } from "~/data/transfer-job-rows.server";
import type { UploadRow as Upload } from "~/data/upload-rows.server";
import type { WebhookDeliveryRow } from "~/data/webhook-delivery-rows.server";
import type { WebhookEndpointRow } from "~/data/webhook-endpoint-rows.server";
import { toTimestamp } from "~/lib/time";
import { EXPORT_FORMATS, type ExportFormat } from "~/services/transfers/transfer-requests";
import type { SubscribableEvent } from "~/services/webhooks/endpoints.server";

/** Database rows to the API shapes of docs/openapi.json (wishlists, lists and items: services/wishlists/views.ts). */

export function serializeApiKey(key: ApiKeyRow) {
  return {
    id: key.id,
    label: key.label,
    kind: key.kind,
    hint: key.hint,
    lastUsedAt: toTimestamp(key.lastUsedAt),
    revokedAt: toTimestamp(key.revokedAt),
    createdAt: toTimestamp(key.createdAt),
  };
}

export function serializeWebhookEndpoint(endpoint: WebhookEndpointRow) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: JSON.parse(endpoint.events) as SubscribableEvent[],
    disabledAt: toTimestamp(endpoint.disabledAt),
    failCount: endpoint.failCount,
    createdAt: toTimestamp(endpoint.createdAt),
  };
}

export function serializeWebhookDelivery(delivery: WebhookDeliveryRow & { eventType: string }) {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    attempt: delivery.attempt,
    status: delivery.status as "succeeded" | "failed",
    statusCode: delivery.statusCode,
    durationMs: delivery.durationMs,
    error: delivery.error,
    responseSnippet: delivery.responseSnippet,
    nextRetryAt: toTimestamp(delivery.nextRetryAt),
    createdAt: toTimestamp(delivery.createdAt),
  };
}

export function serializeTransferJob(job: TransferJob, result: { url: string; expiresAt: Date } | null) {
  return {
    jobId: job.id,
    kind: job.kind as "import" | "export",
    status: job.status as "queued" | "running" | "succeeded" | "failed",
    source: job.kind === "import" ? (job.source as "csv" | "vendor_a" | "vendor_b") : null,
    format:
      job.kind === "export"
        ? (EXPORT_FORMATS as readonly string[]).includes(job.format ?? "")
          ? (job.format as ExportFormat)
          : ("csv" as const)
        : null,
    dryRun: job.kind === "import" ? job.dryRun : null,
    rowsProcessed: job.rowsRead,
    imported: job.kind === "import" && job.status === "succeeded" ? (job.imported ?? 0) : null,
    skipped: job.kind === "import" && job.status === "succeeded" ? (job.skipped ?? 0) : null,
    resultUrl: result?.url ?? null,
    resultExpiresAt: toTimestamp(result?.expiresAt ?? null),
    resultDeletedAt: toTimestamp(job.resultDeletedAt),
    error: job.error,
    createdAt: toTimestamp(job.createdAt)!,
    updatedAt: toTimestamp(job.updatedAt)!,
    startedAt: toTimestamp(job.startedAt),
    finishedAt: toTimestamp(job.finishedAt),
  };
}

export function serializeUpload(upload: Upload, sizeBytes: number | null) {
  return {
    uploadId: upload.id,
    filename: upload.filename,
    contentType: upload.contentType,
    maxBytes: upload.maxBytes,
    expiresAt: toTimestamp(upload.expiresAt)!,
    uploaded: sizeBytes !== null,
    sizeBytes,
    createdAt: toTimestamp(upload.createdAt)!,
  };
}
