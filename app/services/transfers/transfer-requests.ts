import { z } from "zod";
import { SOURCES } from "./columns";
import { UPLOAD_CONTENT_TYPES } from "./limits";

/**
 * What a caller sends to start each step of an import or an export (docs/imports.md): the /v1 API's request
 * bodies and the admin pages' forms are parsed with these same schemas.
 */

export const uploadRequestSchema = z
  .object({
    filename: z
      .string()
      .min(1)
      .max(255)
      .refine(
        (name) => ![...name].some((char) => char.charCodeAt(0) < 32 || char === "/" || char === "\\"),
        "no control characters or slashes",
      ),
    contentType: z.enum(UPLOAD_CONTENT_TYPES),
  })
  .strict();

export const importRequestSchema = z
  .object({
    source: z.enum(SOURCES),
    fileUrl: z.string().min(1).max(2_048),
    dryRun: z.boolean().default(false),
  })
  .strict();

/**
 * `csv`: the contract's six generic columns, re-importable. `marketing_csv` (additive): customers' emails and
 * names, product and variant titles and prices, for campaigns (docs/decisions/036-marketing-export.md).
 */
export const EXPORT_FORMATS = ["csv", "marketing_csv", "csv_six_columns"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const exportRequestSchema = z
  .object({
    format: z.enum(EXPORT_FORMATS).meta({
      description:
        "`csv`: the generic columns, which re-import cleanly, followed (additive) by `list_name` (empty for the " +
        "shopper's default list), `note` and `quantity`. `csv_six_columns` (additive): the six generic columns " +
        "alone, for readers that want exactly those. `marketing_csv` (additive): one row per item a " +
        "customer saved with `customer_id, email, first_name, last_name, product_id, product_title, variant_id, " +
        "variant_title, price, currency, added_at`, read from the platform when the export runs; guest rows are " +
        "left out. Personal data: the file is deleted with the other export files, and at once when one of its " +
        "customers is erased (customers/redact).",
    }),
  })
  .strict();
