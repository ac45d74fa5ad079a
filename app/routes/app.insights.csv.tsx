import type { LoaderFunctionArgs } from "@remix-run/node";
import {
  dailyRevenueCsv,
  rarelyBoughtCsv,
  restockCsv,
  revenueBySourceCsv,
  topConvertingProductsCsv,
} from "~/admin/insights-csv.server";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { readInsightsRange } from "~/admin/insights-range.server";
import { createTranslator } from "~/i18n/translate";
import { withProductTitles } from "~/services/analytics/product-titles.server";
import { utcDay } from "~/services/analytics/rollups.server";
import { conversionReport, demandReport } from "~/services/attribution/revenue-reports.server";
import { hasFeature } from "~/services/plans/entitlements.server";

const REPORTS = ["revenue", "sources", "products", "rarely-bought", "restock"] as const;
type Report = (typeof REPORTS)[number];

const english = createTranslator("en");

/**
 * The Insights page's downloads (the page fetches them: App Bridge adds the session token to fetches): its
 * tables for the range the address names, as the page reads it; the restock list as it is now.
 */
export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId, shopDomain } = await authenticateShop(request);
  const params = new URL(request.url).searchParams;
  const report = params.get("report") as Report | null;
  if (report === null || !REPORTS.includes(report)) {
    return text(`report must be one of ${REPORTS.join(", ")}.`);
  }
  const asked = readInsightsRange(params);
  const errors = Object.entries(asked.errors).map(
    ([field, error]) => `${field}: ${english.t(error.key, error.values)}`,
  );
  if (asked.unknownRange !== null) errors.push("range must be 7d, 30d, 90d or custom (with from and to).");
  if (errors.length > 0) return text(errors.join(" "));
  const { from, to } = asked.range;
  if ((report === "restock" || report === "rarely-bought") && !(await hasFeature(shopId, "demandInsights"))) {
    return new Response(
      `The ${report} report is part of the demand insights, on the Growth plan or higher: see the Plan page.`,
      {
        status: 403,
        headers: { "content-type": "text/plain; charset=utf-8" },
      },
    );
  }

  let csv: string;
  let name: string;
  if (report === "restock") {
    const { restock } = await demandReport(shopId, asked.range);
    csv = restockCsv(await withProductTitles({ shopDomain, rows: restock }));
    name = `wishlist-restock-${utcDay(new Date())}.csv`;
  } else if (report === "rarely-bought") {
    const { rarelyBought } = await demandReport(shopId, asked.range);
    csv = rarelyBoughtCsv(await withProductTitles({ shopDomain, rows: rarelyBought }));
    name = `wishlist-rarely-bought-${from}-to-${to}.csv`;
  } else {
    const conversions = await conversionReport(shopId, asked.range);
    if (report === "revenue") {
      csv = dailyRevenueCsv(conversions);
      name = `wishlist-revenue-${from}-to-${to}.csv`;
    } else if (report === "sources") {
      csv = revenueBySourceCsv(conversions);
      name = `wishlist-revenue-by-source-${from}-to-${to}.csv`;
    } else {
      csv = topConvertingProductsCsv(await withProductTitles({ shopDomain, rows: conversions.topProducts }));
      name = `wishlist-top-converting-products-${from}-to-${to}.csv`;
    }
  }
  return new Response(`${csv}\r\n`, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
      "Cache-Control": "no-store",
    },
  });
};

const text = (message: string) => new Response(message, { status: 400 });
