/**
 * The analytics page's downloads: what the page shows, as CSV. Cells a spreadsheet could run as a formula
 * (a product title starting with `=`, say) get the exports' guard (FORMULA_GUARD, docs/imports.md).
 */
import Papa from "papaparse";
import { FORMULA_GUARD } from "~/services/transfers/values";

const CSV_OPTIONS = { escapeFormulae: FORMULA_GUARD, newline: "\r\n" } as const;

export function activityCsv(
  days: ReadonlyArray<{ date: string; adds: number; removes: number; activeShoppers: number }>,
) {
  return Papa.unparse(
    {
      fields: ["date", "saves", "removals", "active_shoppers"],
      data: days.map((day) => [day.date, day.adds, day.removes, day.activeShoppers]),
    },
    CSV_OPTIONS,
  );
}

export function topProductsCsv(
  products: ReadonlyArray<{
    productId: string;
    title: string;
    handle: string | null;
    saves: number;
    removes: number;
    savers: number;
  }>,
) {
  return Papa.unparse(
    {
      fields: ["product_id", "title", "handle", "saves", "removals", "current_savers"],
      data: products.map((p) => [p.productId, p.title, p.handle ?? "", p.saves, p.removes, p.savers]),
    },
    CSV_OPTIONS,
  );
}
