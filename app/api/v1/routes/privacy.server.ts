import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { parseId } from "~/lib/ids";
import { readCursor, toPage } from "~/lib/pagination.server";
import { toTimestamp } from "~/lib/time";
import type { ComplianceRequestRow } from "~/data/compliance-rows.server";
import { dataRequestLink, getDataRequest, listComplianceRequests } from "~/services/compliance/compliance.server";
import type { V1Env } from "../context";
import { apiRoute } from "../route.server";
import { idParameter, jsonResponse } from "../route-shapes";
import { PageQuery, pageOf, Timestamp } from "../schemas";

const PRIVATE = ["private"] as const;
const TAGS = ["Privacy"];

const DataRequestSchema = z
  .object({
    id: z.string().regex(/^cpl_[A-Za-z0-9]+$/),
    customerId: z.string().nullable().openapi({
      description: "The customer the platform asked about; null once a later redaction of that customer has run.",
    }),
    platformRequestId: z.string().nullable().openapi({ description: "The platform's id of the data request." }),
    status: z.enum(["queued", "running", "succeeded", "failed"]),
    receivedAt: Timestamp,
    finishedAt: Timestamp.nullable(),
    resultUrl: z
      .string()
      .nullable()
      .openapi({
        description:
          "Once `succeeded`: a signed link to the JSON file (lists, items with their dates, share links), valid 24 " +
          "hours; a new one on every read. Null before, and after the customer's redaction deleted the file.",
      }),
    resultUrlExpiresAt: Timestamp.nullable(),
  })
  .openapi("DataRequest");

const RequestParams = z.object({ requestId: idParameter("requestId", "complianceRequest") });

const list = apiRoute({
  method: "get",
  path: "/compliance/data-requests",
  tags: TAGS,
  summary: "List customer data requests",
  description:
    "The platform's `customers/data_request` webhooks this shop received, newest first. Each is answered by a " +
    "file of the customer's wishlist data, written by the worker shortly after the request arrives; the " +
    "merchant hands it to the customer.",
  modes: PRIVATE,
  request: { query: PageQuery },
  responses: {
    200: jsonResponse("A page of data requests", pageOf(DataRequestSchema, "DataRequestPage")),
  },
});

const get = apiRoute({
  method: "get",
  path: "/compliance/data-requests/{requestId}",
  tags: TAGS,
  summary: "Get a customer data request",
  description: "One data request, with a fresh signed link to its file once it has succeeded.",
  modes: PRIVATE,
  request: { params: RequestParams },
  responses: {
    200: jsonResponse("The data request", DataRequestSchema),
  },
});

async function serialize(row: ComplianceRequestRow) {
  const link = await dataRequestLink(row);
  return {
    id: row.id,
    customerId: row.customerId,
    platformRequestId: row.platformRequestId,
    status: row.status as "queued" | "running" | "succeeded" | "failed",
    receivedAt: toTimestamp(row.receivedAt),
    finishedAt: toTimestamp(row.finishedAt),
    resultUrl: link?.url ?? null,
    resultUrlExpiresAt: toTimestamp(link?.expiresAt),
  };
}

export function registerComplianceRoutes(app: OpenAPIHono<V1Env>) {
  app.openapi(list, async (c) => {
    const { shopId } = c.get("caller");
    const query = c.req.valid("query");
    const scope = `data-requests:${shopId}`;
    const rows = await listComplianceRequests({
      shopId,
      topics: ["customers/data_request"],
      after: readCursor(scope, query),
      limit: query.limit + 1,
    });
    const serialized = new Map(await Promise.all(rows.map(async (row) => [row.id, await serialize(row)] as const)));
    return c.json(
      toPage(scope, rows, query.limit, (row) => serialized.get(row.id)!),
      200,
    );
  });
  app.openapi(get, async (c) => {
    const requestId = parseId("complianceRequest", c.req.valid("param").requestId, "requestId");
    return c.json(await serialize(await getDataRequest({ shopId: c.get("caller").shopId, requestId })), 200);
  });
}
