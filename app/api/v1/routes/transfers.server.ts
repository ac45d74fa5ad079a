import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { getEnv } from "~/env.server";
import { parseId } from "~/lib/ids";
import { readCursor, toPage } from "~/lib/pagination.server";
import {
  getJob,
  listJobs,
  resultLink,
  startExport as startExportJob,
  startImport as startImportJob,
  type TransferJobRow,
} from "~/services/transfers/jobs.server";
import { createUpload, getUpload, type CreatedUpload } from "~/services/transfers/uploads.server";
import { exportRequestSchema, importRequestSchema, uploadRequestSchema } from "~/services/transfers/transfer-requests";
import type { V1Env } from "../context";
import { idempotentReply } from "../idempotency-key.server";
import { apiRoute } from "../route.server";
import { idParameter, jsonBody, jsonResponse, problemAnswer } from "../route-shapes";
import { JobAcceptedSchema, PageQuery, pageOf, TransferJobSchema, UploadSchema, UploadTargetSchema } from "../schemas";
import { serializeTransferJob, serializeUpload } from "../serializers";

const PRIVATE = ["private"] as const;
const TAGS = ["Export and import"];
const JobParams = z.object({ jobId: idParameter("jobId", "job") });
const jobResponse = (description: string) => ({
  200: jsonResponse(description, TransferJobSchema),
});
const accepted = {
  202: jsonResponse(
    "Accepted: the job is queued and will run. While the job queue (Redis) is unreachable it stays `queued` " +
      "and starts once the queue is back.",
    JobAcceptedSchema,
  ),
  409: problemAnswer(
    "Too many open jobs (`conflict`: the shop already has the most imports and exports queued or running at " +
      "once, given in `maxOpenJobs`, 5 unless the service is configured otherwise; start this one when one has " +
      "finished, with a new Idempotency-Key, since the same key replays this answer for 24 hours; nothing was created), " +
      "or Idempotency key in use (`idempotency-key-in-use`)",
  ),
  503: problemAnswer("The database could not take the job (busy or unreachable); nothing was created. Retry later."),
};

const gone = (what: string) => ({
  410: problemAnswer(`${what} was deleted after its retention period (\`file-expired\`): upload the file again`),
});

const startExport = apiRoute({
  method: "post",
  path: "/exports",
  tags: TAGS,
  summary: "Export the shop's saved items",
  description:
    "Queues a CSV export of every saved item (generic columns `customer_id, anonymous_id, product_id, variant_id, " +
    "handle, added_at`, UTF-8, CRLF). Guest rows carry a pseudonym instead of the guest's anonymous id. Cells " +
    "that spreadsheets would run as formulas get a leading `'`. The file re-imports cleanly. Additive: " +
    "`format: marketing_csv` writes, for campaigns, each item a customer saved with the customer's email and " +
    "name (read from the platform when the export runs), the product and variant titles and the price, and " +
    "leaves guests out; it is personal data and is not meant to be imported. Private key only, like every " +
    "non-storefront call.",
  modes: PRIVATE,
  request: {
    body: jsonBody(exportRequestSchema),
  },
  responses: accepted,
});

const jobsList = (kind: "export" | "import", summary: string, schemaName: string) =>
  apiRoute({
    method: "get",
    path: `/${kind}s`,
    tags: TAGS,
    summary,
    description: "Newest first, cursor-paged.",
    modes: PRIVATE,
    request: { query: PageQuery },
    responses: {
      200: jsonResponse(`A page of ${kind} jobs`, pageOf(TransferJobSchema, schemaName)),
    },
  });

const exportsList = jobsList("export", "List export jobs", "TransferJobPage");

const exportGet = apiRoute({
  method: "get",
  path: "/exports/{jobId}",
  tags: TAGS,
  summary: "Get an export job",
  description:
    "Once `succeeded`, `resultUrl` is a signed download link for the CSV file, valid 24 hours. The file is deleted " +
    "a number of days after the export finished (7 unless the service is configured otherwise): the job then " +
    "carries `resultDeletedAt`, no link, and links handed out before answer 410 `file-expired`.",
  modes: PRIVATE,
  request: { params: JobParams },
  responses: jobResponse("The export job"),
});

const upload = apiRoute({
  method: "post",
  path: "/imports/upload",
  tags: TAGS,
  summary: "Get an upload URL for an import file",
  description:
    "Step 1 of an import: PUT the file to `uploadUrl` within 15 minutes with `Content-Type` equal to `contentType` " +
    "(the file never passes through /v1), then start the import with `fileUrl`. Files up to 50 MB.",
  modes: PRIVATE,
  request: {
    body: jsonBody(uploadRequestSchema),
  },
  responses: {
    201: jsonResponse("Where to upload", UploadTargetSchema),
  },
});

const uploadGet = apiRoute({
  method: "get",
  path: "/imports/uploads/{uploadId}",
  tags: TAGS,
  summary: "Check an upload (additive)",
  description:
    "What `fileUrl` names: whether the file has arrived, and its size. 410 `file-expired` once the file was " +
    "deleted, a number of days (7 unless the service is configured otherwise) after an import last started from it.",
  modes: PRIVATE,
  request: {
    params: z.object({ uploadId: idParameter("uploadId", "upload") }),
  },
  responses: {
    200: jsonResponse("The upload", UploadSchema),
    ...gone("The uploaded file"),
  },
});

const startImport = apiRoute({
  method: "post",
  path: "/imports",
  tags: TAGS,
  summary: "Import saved items from an uploaded file",
  description:
    "`source`: `csv` (this service's generic columns), `vendor_a` or `vendor_b` (rival apps' exports, every known " +
    "header variant; see the imports guide). `fileUrl` must be this shop's, from POST /v1/imports/upload, with " +
    "the file uploaded (422 otherwise; 413 past 50 MB; 410 `file-expired` once the upload's file was deleted after " +
    "its retention period). `dryRun` true writes nothing and reports the same. " +
    "Imports are idempotent, never overwrite an existing item's addedAt, and emit no webhook events.",
  modes: PRIVATE,
  request: {
    body: jsonBody(importRequestSchema),
  },
  responses: {
    ...accepted,
    413: problemAnswer("The uploaded file is larger than 50 MB"),
    ...gone("The file `fileUrl` names"),
  },
});

const importsList = jobsList("import", "List import jobs (additive)", "ImportJobPage");

const importGet = apiRoute({
  method: "get",
  path: "/imports/{jobId}",
  tags: TAGS,
  summary: "Get an import job",
  description:
    "Once finished, `resultUrl` is the JSON report, a signed link valid 24 hours. The report is deleted a number " +
    "of days after the import finished (7 unless the service is configured otherwise): the job then carries " +
    "`resultDeletedAt` and no link.",
  modes: PRIVATE,
  request: { params: JobParams },
  responses: jobResponse("The import job"),
});

async function serialize(job: TransferJobRow) {
  return serializeTransferJob(job, await resultLink(job));
}

export function registerTransferRoutes(app: OpenAPIHono<V1Env>) {
  app.openapi(startExport, async (c) => {
    const { format } = c.req.valid("json");
    const reply = idempotentReply(c, (job: TransferJobRow) => c.json({ jobId: job.id }, 202));
    return reply.send(await startExportJob({ shopId: c.get("caller").shopId, format }, reply.unit));
  });

  const page = (kind: "import" | "export") => async (c: Parameters<Parameters<typeof app.openapi>[1]>[0]) => {
    const { shopId } = c.get("caller");
    const query = c.req.valid("query" as never) as { cursor?: string; limit: number };
    const scope = `${kind}s:${shopId}`;
    const rows = await listJobs({ shopId, kind, after: readCursor(scope, query), limit: query.limit });
    const links = new Map(await Promise.all(rows.map(async (job) => [job.id, await serialize(job)] as const)));
    return c.json(
      toPage(scope, rows, query.limit, (job) => links.get(job.id)!),
      200,
    );
  };
  app.openapi(exportsList, page("export") as never);
  app.openapi(importsList, page("import") as never);

  app.openapi(exportGet, async (c) => {
    const jobId = parseId("job", c.req.valid("param").jobId, "jobId");
    return c.json(await serialize(await getJob({ shopId: c.get("caller").shopId, jobId, kind: "export" })), 200);
  });

  app.openapi(upload, async (c) => {
    const { filename, contentType } = c.req.valid("json");
    const reply = idempotentReply(c, ({ upload, target, fileUrl }: CreatedUpload) =>
      c.json(
        {
          uploadId: upload.id,
          uploadUrl: target.url,
          method: "PUT" as const,
          headers: target.headers,
          fileUrl,
          expiresAt: target.expiresAt.toISOString(),
          maxBytes: upload.maxBytes,
        },
        201,
      ),
    );
    const created = await createUpload(
      { shopId: c.get("caller").shopId, baseUrl: getEnv().SHOPIFY_APP_URL, filename, contentType },
      reply.unit,
    );
    return reply.send(created);
  });

  app.openapi(uploadGet, async (c) => {
    const uploadId = parseId("upload", c.req.valid("param").uploadId, "uploadId");
    const found = await getUpload({ shopId: c.get("caller").shopId, uploadId });
    return c.json(serializeUpload(found.upload, found.sizeBytes), 200);
  });

  app.openapi(startImport, async (c) => {
    const { shopId } = c.get("caller");
    const { source, fileUrl, dryRun } = c.req.valid("json");
    const reply = idempotentReply(c, (job: TransferJobRow) => c.json({ jobId: job.id }, 202));
    return reply.send(await startImportJob({ shopId, fileUrl, source, dryRun }, reply.unit));
  });

  app.openapi(importGet, async (c) => {
    const jobId = parseId("job", c.req.valid("param").jobId, "jobId");
    return c.json(await serialize(await getJob({ shopId: c.get("caller").shopId, jobId, kind: "import" })), 200);
  });
}
