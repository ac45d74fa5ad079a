/**
 * The Insights page's downloads: its tables as CSV (app/routes/app.insights.csv.tsx). Amounts are decimals in
 * their currency, written exactly from the minor units; cells a spreadsheet could run as a formula (a product
 * title starting with `=`) get the exports' guard (FORMULA_GUARD in app/lib/csv.ts).
 */
import { csvDocument } from "~/lib/csv";
import { exactDecimal } from "~/lib/money";
import type { ConversionReport, DemandReport } from "~/services/attribution/revenue-reports.server";

type Titled<Row> = Row & { title: string; handle: string | null };

/** Net revenue and orders per day, in the range's main currency (the one the chart shows). */
export function dailyRevenueCsv(report: Pick<ConversionReport, "currency" | "days">) {
  const currency = report.currency ?? "";
  return csvDocument(
    ["date", "currency", "net_revenue", "orders"],
    report.days.map((day) => [day.date, currency, currency ? exactDecimal(day.netMinor, currency) : "0", day.orders]),
  );
}

/** Revenue by the alert or reminder followed before the order ("none": no link followed), per currency. */
export function revenueBySourceCsv(report: Pick<ConversionReport, "bySource">) {
  return csvDocument(
    ["source", "currency", "gross_revenue", "refunded", "net_revenue", "items_bought"],
    report.bySource.map((row) => [
      row.source,
      row.currency,
      exactDecimal(row.grossMinor, row.currency),
      exactDecimal(row.refundedMinor, row.currency),
      exactDecimal(row.netMinor, row.currency),
      row.lines,
    ]),
  );
}

export function topConvertingProductsCsv(products: ReadonlyArray<Titled<ConversionReport["topProducts"][number]>>) {
  return csvDocument(
    [
      "product_id",
      "title",
      "handle",
      "items_bought",
      "quantity",
      "currency",
      "gross_revenue",
      "refunded",
      "net_revenue",
    ],
    products.map((p) => [
      p.productId,
      p.title,
      p.handle ?? "",
      p.lines,
      p.quantity,
      p.currency,
      exactDecimal(p.grossMinor, p.currency),
      exactDecimal(p.refundedMinor, p.currency),
      exactDecimal(p.netMinor, p.currency),
    ]),
  );
}

export function rarelyBoughtCsv(products: ReadonlyArray<Titled<DemandReport["rarelyBought"][number]>>) {
  return csvDocument(
    ["product_id", "title", "handle", "saves", "purchases", "purchase_rate", "current_savers"],
    products.map((p) => [p.productId, p.title, p.handle ?? "", p.saves, p.purchases, p.purchaseRate, p.savers]),
  );
}

/** The restock list: sold-out variants of saved products, and the shoppers waiting for each. */
export function restockCsv(rows: ReadonlyArray<Titled<DemandReport["restock"][number]>>) {
  return csvDocument(
    ["product_id", "variant_id", "title", "handle", "variant_title", "inventory_quantity", "shoppers_waiting"],
    rows.map((row) => [
      row.productId,
      row.variantId,
      row.title,
      row.handle ?? "",
      row.variantTitle ?? "",
      row.inventoryQuantity ?? "",
      row.waiting,
    ]),
  );
}
