import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { activity, topProducts } from "~/services/analytics/reports.server";
import type { V1Env } from "../context";
import { apiRoute } from "../route.server";
import { jsonResponse } from "../route-shapes";
import { PlatformId } from "../schemas";

const PRIVATE = ["private"] as const;
const RangeQuery = z.object({
  range: z
    .enum(["7d", "30d", "90d"])
    .default("30d")
    .openapi({ description: "The last 7, 30 or 90 UTC days, today included." }),
});
const Day = z.string().openapi({ format: "date", example: "2026-11-22" });

const TopProductsSchema = z
  .object({
    range: z.enum(["7d", "30d", "90d"]),
    from: Day,
    to: Day,
    products: z.array(
      z.object({
        productId: PlatformId,
        handle: z
          .string()
          .nullable()
          .openapi({
            description:
              "The product's handle as the shop's catalogue last gave it to a saved item; null when no list holds " +
              "it now or until the catalogue has answered for the product (a handle a shopper sent with a save is " +
              "never shown here).",
          }),
        title: z
          .string()
          .nullable()
          .openapi({
            description:
              "The product's title as the shop's catalogue last gave it to a saved item; null until the " +
              "catalogue has answered for the product (a title a shopper sent with a save is never shown here).",
          }),
        saves: z.number().int().openapi({ description: "Times saved in the range." }),
        removes: z.number().int().openapi({ description: "Times removed in the range." }),
        savers: z.number().int().openapi({
          description:
            "Shoppers holding the product now, on any of their lists (one shopper with it on two lists counts once).",
        }),
      }),
    ),
  })
  .openapi("TopProducts", { description: "Up to 10 products, most saved in the range first." });

const ActivitySchema = z
  .object({
    range: z.enum(["7d", "30d", "90d"]),
    from: Day,
    to: Day,
    days: z.array(
      z.object({
        date: Day,
        adds: z.number().int(),
        removes: z.number().int(),
        activeShoppers: z
          .number()
          .int()
          .openapi({ description: "Distinct shoppers who saved, removed or bought a saved product that day." }),
      }),
    ),
    totals: z.object({
      adds: z.number().int(),
      removes: z.number().int(),
      activeShoppers: z.number().int().openapi({ description: "Distinct shoppers active in the whole range." }),
    }),
  })
  .openapi("Activity", { description: "One entry per UTC day of the range, oldest first, zero-filled." });

const topRoute = apiRoute({
  method: "get",
  path: "/analytics/top-products",
  tags: ["Analytics"],
  summary: "Most wishlisted products",
  description: "From daily rollups kept in step with every change, so it answers in milliseconds at any volume.",
  modes: PRIVATE,
  request: { query: RangeQuery },
  responses: { 200: jsonResponse("Top products", TopProductsSchema) },
});

const activityRoute = apiRoute({
  method: "get",
  path: "/analytics/activity",
  tags: ["Analytics"],
  summary: "Daily activity",
  description: "Saves, removals and active shoppers per UTC day, from the daily rollups.",
  modes: PRIVATE,
  request: { query: RangeQuery },
  responses: { 200: jsonResponse("Activity series", ActivitySchema) },
});

export function registerAnalyticsRoutes(app: OpenAPIHono<V1Env>) {
  app.openapi(topRoute, async (c) => {
    const { range } = c.req.valid("query");
    return c.json({ range, ...(await topProducts({ shopId: c.get("caller").shopId, range })) }, 200);
  });

  app.openapi(activityRoute, async (c) => {
    const { range } = c.req.valid("query");
    return c.json({ range, ...(await activity({ shopId: c.get("caller").shopId, range })) }, 200);
  });
}
