/**
 * The export job (docs/imports.md, import rule 8): the shop's saved items in the generic CSV columns,
 * streamed in batches (./item-export-stream.server.ts). Cells
 * that a spreadsheet could run as a formula (FORMULA_GUARD: =, +, -, @ first, after whitespace too, a leading tab,
 * CR or LF, or any line break) get a leading `'`; the import takes it off again, so an export re-imports
 * cleanly (docs/imports.md, "Formula guard").
 *
 * Anonymous ids are capabilities (whoever holds one reads and changes that guest's list), so a guest row
 * carries a pseudonym in `anonymous_id`: a UUID derived from the real id with a keyed hash. It groups a
 * guest's rows and is stable across exports, but opens nothing. Guest rows are skipped on import anyway.
 */
import { createHmac } from "node:crypto";
import type { Readable } from "node:stream";
import { deriveKey } from "~/lib/derived-keys.server";
import { itemExportStream } from "./item-export-stream.server";

/** The contract's six generic columns: `csv_six_columns` exports these alone. */
export const SIX_COLUMNS = ["customer_id", "anonymous_id", "product_id", "variant_id", "handle", "added_at"];
/**
 * `csv`: the six, then the optional trailing columns of issue 28 (readers of the six keep working): the
 * list's name (empty for the owner's default list, so a re-import puts the item back on it), the note and
 * the quantity.
 */
export const EXPORT_COLUMNS = [...SIX_COLUMNS, "list_name", "note", "quantity"];

export function anonymousPseudonym(anonymousId: string): string {
  const hex = createHmac("sha256", deriveKey("export-pseudonym")).update(anonymousId).digest("hex").slice(0, 32);
  // Shaped as a UUID (version 8, "custom"), so it fits the column's format.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The CSV file as a stream of text chunks, one per batch; `onRows` hears the running total. `sixColumns`:
 * the contract's six columns only.
 */
export function exportCsv(
  shopId: string,
  onRows?: (rows: number) => void,
  { sixColumns = false }: { sixColumns?: boolean } = {},
): Readable {
  return itemExportStream(
    shopId,
    sixColumns ? SIX_COLUMNS : EXPORT_COLUMNS,
    (live) =>
      live.map((row) => {
        const six = [
          row.customerId ?? "",
          row.anonymousId ? anonymousPseudonym(row.anonymousId) : "",
          row.productId,
          row.variantId,
          row.handle,
          row.addedAt.toISOString(),
        ];
        return sixColumns ? six : [...six, row.listIsDefault ? "" : row.listName, row.note, row.quantity];
      }),
    onRows,
  );
}
