import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { parseId } from "~/lib/ids";
import { readCursor, toPage } from "~/lib/pagination.server";
import { platformIdSchema } from "~/lib/validation";
import { browseLists, getListWithItems } from "~/services/wishlists/browse.server";
import { listSummaryView, listView } from "~/services/wishlists/views";
import type { V1Env } from "../context";
import { apiRoute } from "../route.server";
import { idParameter, jsonResponse } from "../route-shapes";
import { ListSchema, ListSummarySchema, PageQuery, pageOf } from "../schemas";

const PRIVATE = ["private"] as const;

const BrowseQuery = PageQuery.extend({
  // Query values are text: only decimal digits are taken ("", "1e3", "0x10" are 400), in canonical form.
  customerId: platformIdSchema.optional().openapi({
    description:
      "Only this customer's lists: decimal digits (at most 2^64-1; leading zeros are ignored), or an integer " +
      "0 to 2^53-1.",
  }),
});

const browse = apiRoute({
  method: "get",
  path: "/lists",
  tags: ["Lists"],
  summary: "Browse lists",
  description:
    "Summaries (no items) in a stable order (creation), cursor-paged. Guest lists merged at login are not shown.",
  modes: PRIVATE,
  request: { query: BrowseQuery },
  responses: {
    200: jsonResponse("A page of lists", pageOf(ListSummarySchema, "ListSummaryPage")),
  },
});

const getOne = apiRoute({
  method: "get",
  path: "/lists/{id}",
  tags: ["Lists"],
  summary: "Get a list with its items",
  modes: PRIVATE,
  request: {
    params: z.object({ id: idParameter("id", "list") }),
  },
  responses: { 200: jsonResponse("The list", ListSchema) },
});

export function registerListRoutes(app: OpenAPIHono<V1Env>) {
  app.openapi(browse, async (c) => {
    const { shopId } = c.get("caller");
    const query = c.req.valid("query");
    const scope = `lists:${shopId}:${query.customerId ?? ""}`;
    const lists = await browseLists({
      shopId,
      customerId: query.customerId,
      after: readCursor(scope, query),
      limit: query.limit,
    });
    return c.json(toPage(scope, lists, query.limit, listSummaryView), 200);
  });

  app.openapi(getOne, async (c) => {
    const listId = parseId("list", c.req.valid("param").id);
    return c.json(listView(await getListWithItems({ shopId: c.get("caller").shopId, listId })), 200);
  });
}
