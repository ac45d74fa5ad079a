import type { LoaderFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { withProductTitles } from "~/services/analytics/product-titles.server";
import { activityCsv, topProductsCsv } from "~/services/analytics/report-csv.server";
import { activity, rangeSchema, topProducts } from "~/services/analytics/reports.server";

const CsvQuery = z.object({ range: rangeSchema.default("30d"), report: z.enum(["activity", "products"]) });

/** The analytics page's downloads (the page fetches them: App Bridge adds the session token to fetches). */
export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId, shopDomain } = await authenticateShop(request);
  const query = CsvQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!query.success)
    return new Response("range must be 7d, 30d or 90d; report activity or products.", { status: 400 });
  const { range, report } = query.data;
  let csv: string;
  let name: string;
  if (report === "activity") {
    const { from, to, days } = await activity({ shopId, range });
    csv = activityCsv(days);
    name = `wishlist-activity-${from}-to-${to}.csv`;
  } else {
    const { from, to, products } = await topProducts({ shopId, range });
    csv = topProductsCsv(await withProductTitles({ shopDomain, rows: products }));
    name = `wishlist-top-products-${from}-to-${to}.csv`;
  }
  return new Response(`${csv}\r\n`, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
      "Cache-Control": "no-store",
    },
  });
};
