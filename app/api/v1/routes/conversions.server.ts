import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { decodeCursor, encodeCursor, invalidCursor } from "~/lib/cursor.server";
import { isDomainError } from "~/lib/domain-error";
import {
  conversionReport,
  demandReport,
  listConversions,
  MAX_RANGE_DAYS,
  resolveRange,
  type DayRange,
} from "~/services/attribution/revenue-reports.server";
import type { V1Env } from "../context";
import { apiRoute } from "../route.server";
import { jsonResponse } from "../route-shapes";
import { AnonymousOwnerSchema, CustomerOwnerSchema, PageQuery, pageOf, PlatformId, Timestamp } from "../schemas";
import { parameterProblem } from "../validation-problems.server";

/**
 * What wishlists sold (issue 30, docs/decisions/052-attribution.md), for the merchant's server: the conversions
 * and demand reports of app/services/attribution/revenue-reports.server.ts (the figures the admin's Insights page shows),
 * and the conversions themselves with the platform's order ids, for reconciliation. Private key only.
 */

const PRIVATE = ["private"] as const;
const PRESETS = ["7d", "30d", "90d"] as const;

const Day = z.string().openapi({ format: "date", example: "2026-11-22" });

/** A query day: a real calendar day (2026-02-30 is refused as zod's ISO date is), documented as `format: date`. */
const queryDay = (description: string, example: string) =>
  z.iso.date({ error: "must be a calendar day, YYYY-MM-DD" }).optional().openapi({ description, example });

const RangeQuery = z.object({
  range: z
    .enum(PRESETS)
    .optional()
    .openapi({
      description:
        "The last 7, 30 or 90 UTC days, today included. 30d when neither `range` nor `from` and `to` is given; " +
        "never with `from` or `to` (400 `invalid-parameter`).",
    }),
  from: queryDay(
    `A custom range's first UTC day, included. With \`to\` (both or neither): \`from\` not after \`to\`, at most ` +
      `${MAX_RANGE_DAYS} days in all, \`to\` not after today (UTC). Otherwise 400 \`invalid-parameter\` naming the ` +
      "parameter.",
    "2026-10-01",
  ),
  to: queryDay("A custom range's last UTC day, included; not after today (UTC).", "2026-10-31"),
});

/**
 * `restockLimit`: 1-500, default 50, in decimal digits only (as `limit` is: `1e2` or `0x10` are refused rather than
 * read as numbers).
 */
const restockLimit = z
  .union([z.string().regex(/^[0-9]{1,3}$/, "must be an integer from 1 to 500 in decimal digits"), z.number()])
  .transform((value) => Number(value))
  .pipe(z.number().int().min(1).max(500))
  .default(50)
  .meta({
    type: "integer",
    minimum: 1,
    maximum: 500,
    default: 50,
    description: "The most restock rows to give (the variants most waited for first), 1-500.",
  });

const DemandQuery = RangeQuery.extend({ restockLimit });
const ConversionsQuery = PageQuery.extend(RangeQuery.shape);

const rangeEcho = z
  .enum(PRESETS)
  .nullable()
  .openapi({ description: "The preset the range is (`range`, or 30d by default); null for a custom range." });

const Currency = z
  .string()
  .regex(/^[A-Z]{3}$/)
  .openapi({ description: "An ISO 4217 currency code.", example: "USD" });

const MINOR =
  "An integer of minor units of `currency`: as many as the currency has decimals (1299 is 12.99 USD, 1299 JPY " +
  "is 1299 yen, 1299 KWD is 1.299 dinars). Sums are exact: no amount is ever a float.";

/** Gross, refunded and net, in one currency. */
const moneyFields = {
  currency: Currency.openapi({ description: "The shop's currency the amounts are in (ISO 4217)." }),
  grossMinor: z
    .number()
    .int()
    .openapi({
      description: `What the matched order lines came to, after their discounts, in the shop's currency. ${MINOR}`,
      example: 15800,
    }),
  refundedMinor: z
    .number()
    .int()
    .openapi({
      description:
        "What refunds took back of those lines (never more than a line), and all of a cancelled order's lines. " +
        "Credited to the day the order was placed, not the day of the refund.",
      example: 1250,
    }),
  netMinor: z.number().int().openapi({ description: "grossMinor - refundedMinor: the revenue kept.", example: 14550 }),
};

const SOURCE =
  "What brought the buyer back: the kind of alert or reminder whose link they followed within the 7 days before " +
  "the order. An open set of strings (more kinds may be added; show an unknown one as it is): `back_in_stock`, " +
  "`price_dropped`, `low_stock`, `reminder`";

const ConversionReportSchema = z
  .object({
    range: rangeEcho,
    from: Day,
    to: Day,
    currency: Currency.nullable().openapi({
      description:
        "The currency with the most net revenue in the range (the shop's, unless it changed currency): `days` " +
        "and `topProducts` are in it. null when the range has no conversion.",
    }),
    revenue: z.array(z.object(moneyFields)).openapi({
      description:
        "Wishlist-influenced revenue per currency of the shop (one entry per currency its orders were in), the " +
        "most net revenue first. A conversion is an order line of a product the buyer had saved before ordering; " +
        "it counts on the UTC day the order was placed.",
    }),
    orders: z
      .object({
        placed: z.number().int().openapi({ description: "Orders placed in the range with at least one conversion." }),
        cancelled: z.number().int().openapi({ description: "Of those, the orders cancelled since." }),
        net: z.number().int().openapi({ description: "placed - cancelled." }),
      })
      .openapi({ description: "Wishlist-influenced orders." }),
    lines: z.number().int().openapi({
      description: "Conversions (order lines) in the range, those of cancelled orders included.",
    }),
    quantity: z.number().int().openapi({ description: "Units those lines bought, cancelled orders' included." }),
    buyers: z.number().int().openapi({
      description:
        "Distinct buyers (customers, and guests matched by their list) with a conversion in the range not cancelled.",
    }),
    savers: z
      .number()
      .int()
      .openapi({
        description:
          "Distinct shoppers who saved, removed or bought a saved product in the range (GET /analytics/activity's " +
          "`totals.activeShoppers`): every buyer is one.",
      }),
    conversionRate: z.number().nullable().openapi({
      description: "buyers / savers, rounded to 4 decimals, at most 1; null when there is no saver.",
      example: 0.0825,
    }),
    medianDaysToPurchase: z
      .number()
      .nullable()
      .openapi({
        description:
          "The median of whole days from a buyer's first save of the product to the order, over the range's " +
          "conversions not cancelled (partly refunded ones included); with an even count, the mean of the two " +
          "middle values (so it may end in .5). null without any.",
        example: 6.5,
      }),
    bySource: z
      .array(
        z.object({
          source: z.string().openapi({ description: `${SOURCE}; or \`none\` (no link followed).` }),
          ...moneyFields,
          lines: z.number().int().openapi({ description: "Conversions of this source in this currency." }),
        }),
      )
      .openapi({
        description:
          "Revenue after alerts and reminders, by source and currency: one entry for each of `none`, " +
          "`back_in_stock`, `price_dropped`, `low_stock` and `reminder` in each currency of `revenue` (zeros " +
          "included).",
      }),
    days: z
      .array(
        z.object({
          date: Day,
          netMinor: z
            .number()
            .int()
            .openapi({ description: "Net revenue in `currency` of the orders placed that day." }),
          orders: z
            .number()
            .int()
            .openapi({ description: "Orders placed that day with a conversion, less those cancelled." }),
        }),
      )
      .openapi({ description: "One entry per UTC day of the range, oldest first, zero-filled." }),
    topProducts: z
      .array(
        z.object({
          productId: PlatformId,
          handle: z.string().nullable().openapi({
            description:
              "As the shop's catalogue last gave it to a saved item; null until it has (as in top-products).",
          }),
          title: z.string().nullable().openapi({
            description: "As the shop's catalogue last gave it to a saved item; null until it has.",
          }),
          lines: z.number().int(),
          quantity: z.number().int(),
          ...moneyFields,
        }),
      )
      .openapi({ description: "Up to 10 products by net revenue in `currency`, most first (ties by product id)." }),
  })
  .openapi("ConversionReport", {
    description:
      "What wishlists sold in the range: revenue, orders, buyers over savers, time to purchase, sources and top " +
      "products. The same figures as the admin's Insights page, from daily rollups kept with every order webhook.",
    example: {
      range: "30d",
      from: "2026-10-31",
      to: "2026-11-29",
      currency: "USD",
      revenue: [{ currency: "USD", grossMinor: 15800, refundedMinor: 1250, netMinor: 14550 }],
      orders: { placed: 4, cancelled: 1, net: 3 },
      lines: 5,
      quantity: 7,
      buyers: 3,
      savers: 40,
      conversionRate: 0.075,
      medianDaysToPurchase: 6,
      bySource: [
        { source: "none", currency: "USD", grossMinor: 9800, refundedMinor: 1250, netMinor: 8550, lines: 3 },
        { source: "back_in_stock", currency: "USD", grossMinor: 6000, refundedMinor: 0, netMinor: 6000, lines: 2 },
        { source: "price_dropped", currency: "USD", grossMinor: 0, refundedMinor: 0, netMinor: 0, lines: 0 },
        { source: "low_stock", currency: "USD", grossMinor: 0, refundedMinor: 0, netMinor: 0, lines: 0 },
        { source: "reminder", currency: "USD", grossMinor: 0, refundedMinor: 0, netMinor: 0, lines: 0 },
      ],
      days: [{ date: "2026-10-31", netMinor: 0, orders: 0 }],
      topProducts: [
        {
          productId: "7234567890123",
          handle: "aurora-linen-shirt",
          title: "Aurora linen shirt",
          lines: 2,
          quantity: 3,
          currency: "USD",
          grossMinor: 8700,
          refundedMinor: 0,
          netMinor: 8700,
        },
      ],
    },
  });

const DemandReportSchema = z
  .object({
    range: rangeEcho,
    from: Day,
    to: Day,
    rarelyBought: z
      .array(
        z.object({
          productId: PlatformId,
          handle: z.string().nullable(),
          title: z.string().nullable(),
          saves: z.number().int().openapi({ description: "Times saved in the range." }),
          purchases: z.number().int().openapi({
            description: "Conversions of the product (order lines matched to a save) in the range, cancelled included.",
          }),
          purchaseRate: z.number().openapi({ description: "purchases / saves, rounded to 4 decimals; below 0.1." }),
          savers: z.number().int().openapi({ description: "Shoppers holding the product now, on any of their lists." }),
        }),
      )
      .openapi({
        description:
          "Products saved often but rarely bought: of the range's 200 most saved products, those whose purchases " +
          "are under a tenth of their saves, most saved first (ties by product id), up to 20.",
      }),
    restock: z
      .array(
        z.object({
          productId: PlatformId,
          variantId: PlatformId.openapi({ description: "The variant out of stock." }),
          handle: z.string().nullable(),
          title: z.string().nullable(),
          variantTitle: z.string().openapi({ description: "The variant's title (`Default Title` without options)." }),
          inventoryQuantity: z
            .number()
            .int()
            .nullable()
            .openapi({ description: "Units the platform last gave for it (0 or below); null where not tracked." }),
          waiting: z
            .number()
            .int()
            .openapi({
              description:
                "Shoppers waiting for it: who saved this variant, or the product without a variant when none of its " +
                "variants can be bought; each once, on live lists, not bought since.",
            }),
        }),
      )
      .openapi({
        description:
          "The restock list: saved variants out of stock now (as the platform last told the app), the most " +
          "waited for first (ties by product and variant id), up to `restockLimit`. Not limited to the range.",
      }),
  })
  .openapi("DemandReport", {
    description: "What shoppers want and do not buy: products saved often but rarely bought, and what to restock.",
    example: {
      range: "30d",
      from: "2026-10-31",
      to: "2026-11-29",
      rarelyBought: [
        {
          productId: "7234567890123",
          handle: "aurora-linen-shirt",
          title: "Aurora linen shirt",
          saves: 42,
          purchases: 1,
          purchaseRate: 0.0238,
          savers: 39,
        },
      ],
      restock: [
        {
          productId: "7234567890124",
          variantId: "44012345678901",
          handle: "merino-scarf",
          title: "Merino scarf",
          variantTitle: "Charcoal",
          inventoryQuantity: 0,
          waiting: 17,
        },
      ],
    },
  });

const BuyerSchema = z.discriminatedUnion("type", [CustomerOwnerSchema, AnonymousOwnerSchema]).openapi("Buyer", {
  description:
    "Who bought: the order's customer (`customerId`), or a guest whose order was matched by the list its cart named " +
    "(`customerId` null; a guest's anonymous id is never shown).",
});

const ConversionSchema = z
  .object({
    id: z
      .string()
      .regex(/^cnv_[A-Za-z0-9]+$/)
      .openapi({ example: "cnv_01jd2x6c5ef0q8w3d0s8b2n7k4" }),
    orderId: PlatformId.openapi({
      description: "The platform's order id: the key to match this against the shop's own orders.",
    }),
    lineItemId: PlatformId.openapi({ description: "The platform's id of the order's line." }),
    productId: PlatformId,
    variantId: PlatformId.nullable().openapi({ description: "The variant bought; null when the line names none." }),
    buyer: BuyerSchema,
    quantity: z.number().int().openapi({ description: "Units the line bought." }),
    amount: z
      .object({ currency: Currency, minor: z.number().int().openapi({ description: MINOR }) })
      .openapi({ description: "The line after its discounts, in the shop's currency." }),
    presentmentAmount: z
      .object({ currency: Currency, minor: z.number().int().openapi({ description: MINOR }) })
      .openapi({ description: "The same in the currency the buyer paid in." }),
    refunded: z
      .object({
        quantity: z.number().int(),
        minor: z.number().int().openapi({ description: "Taken back, in minor units of `amount.currency`." }),
        presentmentMinor: z
          .number()
          .int()
          .openapi({ description: "Taken back, in minor units of `presentmentAmount.currency`." }),
      })
      .openapi({
        description: "What refunds took back of the line (never more than it); all of it once the order is cancelled.",
      }),
    savedAt: Timestamp.openapi({ description: "When the buyer first saved the product (before the order)." }),
    orderedAt: Timestamp.openapi({ description: "When the order was placed." }),
    daysToPurchase: z.number().int().openapi({ description: "Whole days from savedAt to orderedAt." }),
    source: z
      .string()
      .nullable()
      .openapi({ description: `${SOURCE}. null when no link was followed.`, example: "back_in_stock" }),
    cancelledAt: Timestamp.nullable().openapi({ description: "When the order was cancelled; null while it is not." }),
  })
  .openapi("Conversion", {
    description: "An order line of a product its buyer had saved before ordering.",
  });

const conversionsRoute = apiRoute({
  method: "get",
  path: "/analytics/conversions",
  tags: ["Analytics"],
  summary: "Conversions report",
  description:
    "What wishlists sold: revenue per currency (gross, refunded, net), orders, buyers over savers, median days " +
    "from save to purchase, revenue by the alert or reminder that brought the buyer back, top products. From daily " +
    "rollups kept in step with every order webhook.",
  modes: PRIVATE,
  request: { query: RangeQuery },
  responses: { 200: jsonResponse("The conversions report", ConversionReportSchema) },
});

const demandRoute = apiRoute({
  method: "get",
  path: "/analytics/demand",
  tags: ["Analytics"],
  summary: "Demand report",
  description:
    "Products saved often but rarely bought in the range, and the restock list of saved variants out of stock. " +
    "Part of the demand insights, on the Growth plan and higher (`x-plan`): on a plan without them the answer is " +
    "403 `plan-required`, whose `plan` member names the plan needed.",
  modes: PRIVATE,
  feature: "demandInsights",
  request: { query: DemandQuery },
  responses: { 200: jsonResponse("The demand report", DemandReportSchema) },
});

const listRoute = apiRoute({
  method: "get",
  path: "/conversions",
  tags: ["Analytics"],
  summary: "List conversions",
  description:
    "The range's conversions with the platform's order and line ids, for the shop's own reconciliation: newest " +
    "order first (ties by id), cursor-paged. Pass the same range parameters with each page's cursor.",
  modes: PRIVATE,
  request: { query: ConversionsQuery },
  responses: { 200: jsonResponse("A page of conversions", pageOf(ConversionSchema, "ConversionPage")) },
});

type RangeParameters = { range?: (typeof PRESETS)[number]; from?: string; to?: string };

/** The range the query names; the service's refusal as the 400 naming the parameter, as zod's are. */
function rangeOf(query: RangeParameters): DayRange {
  try {
    return resolveRange(query);
  } catch (error) {
    if (isDomainError(error, "invalid") && error.issues) {
      throw parameterProblem(error.issues.map((issue) => ({ path: [issue.field], message: issue.message })));
    }
    throw error;
  }
}

const presetOf = (query: RangeParameters) =>
  query.from === undefined && query.to === undefined ? (query.range ?? "30d") : null;

/** Where a page of conversions starts: after the `(orderedAt, id)` its cursor holds. */
function positionOf(scope: string, cursor: string | undefined) {
  if (!cursor) return null;
  const { at, id } = decodeCursor(scope, cursor);
  if (typeof at !== "number" || !Number.isSafeInteger(at) || typeof id !== "string") throw invalidCursor();
  return { orderedAt: new Date(at), id };
}

export function registerConversionRoutes(app: OpenAPIHono<V1Env>) {
  app.openapi(conversionsRoute, async (c) => {
    const query = c.req.valid("query");
    const report = await conversionReport(c.get("caller").shopId, rangeOf(query));
    return c.json({ range: presetOf(query), ...report }, 200);
  });

  app.openapi(demandRoute, async (c) => {
    const query = c.req.valid("query");
    const report = await demandReport(c.get("caller").shopId, rangeOf(query), { restockLimit: query.restockLimit });
    return c.json({ range: presetOf(query), ...report }, 200);
  });

  app.openapi(listRoute, async (c) => {
    const { shopId } = c.get("caller");
    const query = c.req.valid("query");
    const range = rangeOf(query);
    // The cursor holds a position, bound to this shop and to the range as the query names it (a preset moves
    // with the days; its cursor stays good).
    const scope = `conversions:${shopId}:${presetOf(query) ?? `${range.from}:${range.to}`}`;
    const page = await listConversions(shopId, range, { after: positionOf(scope, query.cursor), limit: query.limit });
    const next = page.next ? encodeCursor(scope, { at: page.next.orderedAt.getTime(), id: page.next.id }) : null;
    return c.json({ data: page.data, pageInfo: { nextCursor: next } }, 200);
  });
}
