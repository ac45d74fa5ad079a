/**
 * How import files' columns map to what an imported item needs (docs/imports.md, import rules 1-2). The vendor
 * formats are CSV exports of other wishlist apps; their header names changed between versions, so every known
 * variant is listed here, in one table (docs/imports.md shows each with a sample under
 * tests/fixtures/imports/). Headers are compared with case, spaces, underscores and hyphens ignored.
 *
 * No published export of a named app (Wishlist Plus by Swym, Wishlist King, Growave, Hulk, Wishlist Hero) was
 * found to match these header sets, so the labels describe the files by their columns and date order rather
 * than name an app (docs/imports.md, "Formats"). The sources' ids are the API contract's values and stay.
 */

export type Field =
  | "customerId"
  | "email"
  | "anonymousId"
  | "productId"
  | "variantId"
  | "handle"
  | "title"
  | "addedAt"
  | "listName"
  | "note"
  | "quantity";

export const SOURCES = ["csv", "vendor_a", "vendor_b"] as const;
export type Source = (typeof SOURCES)[number];

/** How a slash date such as 03/04/2024 is read: month first (US) or day first. */
export type DateOrder = "month-first" | "day-first";

export interface FormatVariant {
  name: string;
  headers: Partial<Record<Field, string>>;
}

export interface SourceFormat {
  /** What the admin and the import report call the format. */
  label: string;
  dateOrder: DateOrder;
  /** Fields whose columns must all be present (beyond the product and customer rules). */
  required: Field[];
  variants: FormatVariant[];
}

export const FORMATS: Record<Source, SourceFormat> = {
  csv: {
    label: "Generic CSV (this service's export format)",
    dateOrder: "month-first",
    required: ["customerId", "anonymousId", "productId", "variantId", "handle", "addedAt"],
    variants: [
      {
        name: "v1",
        headers: {
          customerId: "customer_id",
          anonymousId: "anonymous_id",
          productId: "product_id",
          variantId: "variant_id",
          handle: "handle",
          addedAt: "added_at",
          // Optional and additive: lets rule 3's email lookup apply to generic files too.
          email: "email",
          // Optional trailing columns (issue 28): the customer's named list (empty: the default one), the
          // shopper's note and quantity.
          listName: "list_name",
          note: "note",
          quantity: "quantity",
        },
      },
    ],
  },
  vendor_a: {
    label: "Wishlist CSV from another app (US dates)",
    dateOrder: "month-first",
    required: [],
    variants: [
      {
        name: "2021 (v1)",
        headers: {
          customerId: "Customer ID",
          email: "Customer Email",
          productId: "Product ID",
          variantId: "Variant ID",
          handle: "Product Handle",
          title: "Product Title",
          addedAt: "Date Added",
          // The list the item was on in the other app ("Default" for its default list; issue 28).
          listName: "Wishlist Name",
        },
      },
      {
        name: "2023 (v2, GIDs)",
        headers: {
          customerId: "customer_gid",
          email: "email",
          productId: "product_gid",
          variantId: "variant_gid",
          handle: "handle",
          title: "title",
          addedAt: "created_at",
        },
      },
      {
        name: "2025 (v3)",
        headers: {
          customerId: "Shopper ID",
          email: "Shopper Email",
          anonymousId: "Visitor ID",
          productId: "Product",
          variantId: "Variant",
          handle: "URL Handle",
          title: "Product Name",
          addedAt: "Saved At",
        },
      },
    ],
  },
  vendor_b: {
    label: "Wishlist CSV from another app (day-first dates)",
    dateOrder: "day-first",
    required: [],
    variants: [
      {
        name: "classic (v1)",
        headers: {
          email: "Email",
          productId: "Product Id",
          variantId: "Variant Id",
          addedAt: "Added On",
        },
      },
      {
        name: "2024 (v2)",
        headers: {
          customerId: "user_id",
          email: "user_email",
          productId: "productid",
          variantId: "variantid",
          handle: "product_handle",
          title: "product_name",
          addedAt: "date_added",
        },
      },
      {
        name: "2025 (v3)",
        headers: {
          customerId: "Customer",
          email: "Customer E-mail",
          anonymousId: "Guest ID",
          productId: "Product ID",
          handle: "Handle",
          title: "Title",
          addedAt: "Added",
        },
      },
    ],
  },
};

export function normalizeHeader(header: string): string {
  return header
    .replace(/^\uFEFF/, "")
    .toLowerCase()
    .replace(/[\s_-]+/g, "");
}

/** Every normalized header of a source with the field it maps to; throws on an ambiguous table. */
export function headerAliases(source: Source): Map<string, Field> {
  const aliases = new Map<string, Field>();
  for (const variant of FORMATS[source].variants) {
    for (const [field, header] of Object.entries(variant.headers) as Array<[Field, string]>) {
      const key = normalizeHeader(header);
      const existing = aliases.get(key);
      if (existing && existing !== field) {
        throw new Error(`${source}: header "${header}" maps to both ${existing} and ${field}`);
      }
      aliases.set(key, field);
    }
  }
  return aliases;
}

export interface ColumnMapping {
  /** Column index of each field found. */
  columns: Partial<Record<Field, number>>;
  /** Header -> field, for the report. */
  mapped: Array<{ header: string; field: Field }>;
  /** Headers that map to nothing: reported, and their values ignored. */
  unmapped: string[];
  /** Columns this source needs that the file lacks (the import cannot run). */
  missing: string[];
  /** The known variant whose headers match best (for the report). */
  variant: string | null;
}

export function mapColumns(source: Source, headerRow: string[]): ColumnMapping {
  const format = FORMATS[source];
  const aliases = headerAliases(source);
  const columns: Partial<Record<Field, number>> = {};
  const mapped: ColumnMapping["mapped"] = [];
  const unmapped: string[] = [];
  headerRow.forEach((header, index) => {
    const field = aliases.get(normalizeHeader(header));
    if (field && columns[field] === undefined) {
      columns[field] = index;
      mapped.push({ header, field });
    } else if (header.trim() !== "" || index < headerRow.length - 1) {
      unmapped.push(header);
    }
  });

  const missing: string[] = [];
  const first = format.variants[0]!.headers;
  for (const field of format.required) {
    if (columns[field] === undefined) missing.push(first[field] ?? field);
  }
  if (format.required.length === 0) {
    if (columns.productId === undefined) missing.push("a product id column");
    if (columns.customerId === undefined && columns.email === undefined) {
      missing.push("a customer id or customer email column");
    }
  }

  const normalized = new Set(headerRow.map(normalizeHeader));
  let variant: string | null = null;
  let best = 0;
  for (const candidate of format.variants) {
    const hits = Object.values(candidate.headers).filter((header) => normalized.has(normalizeHeader(header))).length;
    if (hits > best) [variant, best] = [candidate.name, hits];
  }
  return { columns, mapped, unmapped, missing, variant };
}
