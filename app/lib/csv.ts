/**
 * CSV as this app writes it (the exports, the analytics downloads): CRLF lines, and the formula guard
 * (docs/imports.md, "Formula guard") on every cell, so a spreadsheet never runs a cell as a formula.
 */
import Papa from "papaparse";

/**
 * The formula guard (OWASP, CSV injection): a cell gets a leading `'` when it starts with `=`, `+`,
 * `-` or `@` (after any whitespace), or with a tab, CR or LF, or holds a line break anywhere, or is such a
 * cell behind leading `'`s (so the import can always tell the guard's `'` from the cell's own).
 */
export const FORMULA_GUARD = /^'*(?:\s*[=+\-@]|[\t\r\n])|[\r\n]/;

/** Undoes the formula guard: exactly the `'` that FORMULA_GUARD added, nothing else. */
export function unguard(value: string): string {
  return value.startsWith("'") && FORMULA_GUARD.test(value.slice(1)) ? value.slice(1) : value;
}

const CSV_OPTIONS = { escapeFormulae: FORMULA_GUARD, newline: "\r\n" } as const;

/** A CSV document: the header line, then the rows. */
export function csvDocument(fields: readonly string[], data: ReadonlyArray<ReadonlyArray<unknown>>): string {
  return Papa.unparse({ fields: [...fields], data: data as unknown[][] }, CSV_OPTIONS);
}

/** CSV lines without a header (a batch of a streamed file), no line break after the last. */
export function csvLines(data: ReadonlyArray<ReadonlyArray<unknown>>): string {
  return Papa.unparse(data as unknown[][], { ...CSV_OPTIONS, header: false });
}
