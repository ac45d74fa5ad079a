import { isValid } from "date-fns/isValid";
import { parse } from "date-fns/parse";
import { parsePlatformId as parsePlatformIdOf, type PlatformResource } from "~/lib/ids";
import type { DateOrder } from "./columns";

/**
 * Cell values of import files. Platform ids come as digits or as GIDs (`gid://shopify/Product/123`);
 * dates in the formats rival apps and spreadsheets write. Every parser returns null for what it cannot
 * read, and the import decides what that means (import rule 6).
 */

/**
 * A platform id of `type` (Product, ProductVariant, Customer) from a cell holding digits or a GID, in the
 * canonical form the API uses too (`~/lib/ids`: no leading zeros, at most 2^64-1); null if neither.
 */
export function parsePlatformId(raw: string, type: PlatformResource): string | null {
  return parsePlatformIdOf(raw.trim(), type);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function parseEmail(raw: string): string | null {
  const value = raw.trim().toLowerCase();
  return value.length <= 254 && EMAIL.test(value) ? value : null;
}

const ISO = /^\d{4}-\d{2}-\d{2}(T|\s+)\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?\s*(Z|[+-]\d{2}:?\d{2})$/i;

/** Formats without a zone are read as UTC. Slash dates follow the source's `order`. */
const COMMON_FORMATS = [
  "yyyy-MM-dd'T'HH:mm:ss.SSS",
  "yyyy-MM-dd'T'HH:mm:ss",
  "yyyy-MM-dd'T'HH:mm",
  "yyyy-MM-dd HH:mm:ss.SSS",
  "yyyy-MM-dd HH:mm:ss",
  "yyyy-MM-dd HH:mm",
  "yyyy-MM-dd",
  "yyyy/MM/dd HH:mm:ss",
  "yyyy/MM/dd",
  "d MMM yyyy HH:mm",
  "d MMM yyyy",
  "MMM d, yyyy h:mm a",
  "MMM d, yyyy",
  "MMMM d, yyyy",
  "dd.MM.yyyy HH:mm",
  "dd.MM.yyyy",
];
const MONTH_FIRST = ["MM/dd/yyyy HH:mm:ss", "MM/dd/yyyy HH:mm", "MM/dd/yyyy h:mm a", "MM/dd/yyyy"];
const DAY_FIRST = ["dd/MM/yyyy HH:mm:ss", "dd/MM/yyyy HH:mm", "dd/MM/yyyy"];
const REFERENCE = new Date(Date.UTC(2000, 0, 1));
const EARLIEST = Date.UTC(2000, 0, 1);

function asUtc(local: Date): Date {
  return new Date(local.getTime() - local.getTimezoneOffset() * 60_000);
}

/**
 * A timestamp from an import cell, or null when it is unreadable or not plausible (before 2000 or
 * more than a day in the future); the import then uses the current time (rule 6).
 */
export function parseImportDate(raw: string, order: DateOrder, now = Date.now()): Date | null {
  const value = raw.trim();
  if (value === "") return null;
  let result: Date | null = null;
  if (/^\d{10}$/.test(value)) result = new Date(Number(value) * 1000);
  else if (/^\d{13}$/.test(value)) result = new Date(Number(value));
  else if (ISO.test(value)) result = new Date(value.replace(/\s+/, "T").replace(/([+-]\d{2})(\d{2})$/, "$1:$2"));
  else if (/^[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} /.test(value))
    result = new Date(value); // RFC 2822
  else {
    const formats = [...COMMON_FORMATS, ...(order === "day-first" ? DAY_FIRST : MONTH_FIRST)];
    for (const format of formats) {
      const parsed = parse(value, format, REFERENCE);
      if (isValid(parsed)) {
        result = asUtc(parsed);
        break;
      }
    }
  }
  if (!result || Number.isNaN(result.getTime())) return null;
  const time = result.getTime();
  return time < EARLIEST || time > now + 86_400_000 ? null : result;
}
