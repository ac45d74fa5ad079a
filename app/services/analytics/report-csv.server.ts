/**
 * The analytics page's downloads: what the page shows, as CSV. Cells a spreadsheet could run as a formula
 * (a product title starting with `=`, say) get the exports' guard (FORMULA_GUARD in app/lib/csv.ts).
 */
import { csvDocument } from "~/lib/csv";

export function activityCsv(
  days: ReadonlyArray<{ date: string; adds: number; removes: number; activeShoppers: number }>,
) {
  return csvDocument(
    ["date", "saves", "removals", "active_shoppers"],
    days.map((day) => [day.date, day.adds, day.removes, day.activeShoppers]),
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
  return csvDocument(
    ["product_id", "title", "handle", "saves", "removals", "current_savers"],
    products.map((p) => [p.productId, p.title, p.handle ?? "", p.saves, p.removes, p.savers]),
  );
}
