import { describe, expect, it } from "vitest";
import { FORMATS, headerAliases, mapColumns, normalizeHeader, type Source } from "~/services/transfers/columns";
import { FORMULA_GUARD, unguard } from "~/lib/csv";
import { parseEmail, parseImportDate, parsePlatformId } from "~/services/transfers/values";

describe("the vendor header table", () => {
  it.each(Object.keys(FORMATS) as Source[])("maps every header of every %s variant, without ambiguity", (source) => {
    expect(() => headerAliases(source)).not.toThrow();
    for (const variant of FORMATS[source].variants) {
      const headers = Object.values(variant.headers);
      const mapping = mapColumns(source, headers);
      expect(mapping.unmapped).toEqual([]);
      expect(mapping.missing).toEqual([]);
      expect(mapping.variant).toBe(variant.name);
    }
  });

  it("ignores case, spaces, underscores and hyphens, and reports unknown and missing columns", () => {
    expect(normalizeHeader("\uFEFF Customer_E-mail ")).toBe("customeremail");
    const mapping = mapColumns("vendor_a", ["PRODUCT ID", "customer email", "Gift Note"]);
    expect(mapping.mapped).toEqual([
      { header: "PRODUCT ID", field: "productId" },
      { header: "customer email", field: "email" },
    ]);
    expect(mapping.unmapped).toEqual(["Gift Note"]);
    expect(mapping.missing).toEqual([]);
    expect(mapColumns("vendor_b", ["Added On"]).missing).toEqual([
      "a product id column",
      "a customer id or customer email column",
    ]);
    expect(mapColumns("csv", ["customer_id", "product_id"]).missing).toEqual([
      "anonymous_id",
      "variant_id",
      "handle",
      "added_at",
    ]);
  });
});

describe("import cell values", () => {
  it("reads platform ids as digits or GIDs of the right type only", () => {
    expect(parsePlatformId(" 7001 ", "Product")).toBe("7001");
    expect(parsePlatformId("gid://shopify/Product/7001", "Product")).toBe("7001");
    expect(parsePlatformId("gid://shopify/ProductVariant/8001", "ProductVariant")).toBe("8001");
    expect(parsePlatformId("gid://shopify/ProductVariant/8001", "Product")).toBeNull();
    for (const bad of ["", "abc", "12.5", "-3", "gid://shopify/Product/", "1".repeat(21)]) {
      expect(parsePlatformId(bad, "Product"), bad).toBeNull();
    }
  });

  it("reads emails case-insensitively and undoes the export's formula guard only", () => {
    expect(parseEmail(" Alice@Example.COM ")).toBe("alice@example.com");
    expect(parseEmail("not-an-email")).toBeNull();
    expect(unguard("'=SUM(A1)")).toBe("=SUM(A1)");
    expect(unguard("'quoted")).toBe("'quoted");
    expect(unguard("' =1")).toBe(" =1");
    expect(unguard("'\n=1")).toBe("\n=1");
    expect(unguard("'a\r\nb")).toBe("a\r\nb");
    expect(unguard("''=1")).toBe("'=1");
  });

  it("guards every cell OWASP's CSV injection advice names, and unguard undoes exactly the guard", () => {
    const risky = [
      "=1",
      "+1",
      "-1",
      "@a",
      "\tx",
      "\rx",
      "\nx",
      " =1",
      "\t=1",
      " \r\n@a",
      "a\nb",
      "a\rb",
      "'=1",
      "''+1",
    ];
    const harmless = ["", "plain", "a=b", "1-2", "'quoted", "e@mail", " spaced", "'"];
    for (const value of risky) expect(FORMULA_GUARD.test(value), JSON.stringify(value)).toBe(true);
    for (const value of harmless) expect(FORMULA_GUARD.test(value), JSON.stringify(value)).toBe(false);
    for (const value of [...risky, ...harmless]) {
      const exported = FORMULA_GUARD.test(value) ? `'${value}` : value;
      expect(unguard(exported), JSON.stringify(value)).toBe(value);
    }
  });

  const now = Date.parse("2026-11-23T12:00:00Z");
  it.each([
    ["2024-03-05T14:22:01Z", "month-first", "2024-03-05T14:22:01.000Z"],
    ["2024-03-05T14:22:01.5+02:00", "month-first", "2024-03-05T12:22:01.500Z"],
    ["2024-03-05 14:22:01", "month-first", "2024-03-05T14:22:01.000Z"],
    ["2024-03-05", "day-first", "2024-03-05T00:00:00.000Z"],
    ["03/05/2024", "month-first", "2024-03-05T00:00:00.000Z"],
    ["03/05/2024", "day-first", "2024-05-03T00:00:00.000Z"],
    ["03/05/2024 2:30 PM", "month-first", "2024-03-05T14:30:00.000Z"],
    ["05.03.2024", "month-first", "2024-03-05T00:00:00.000Z"],
    ["Mar 5, 2024", "day-first", "2024-03-05T00:00:00.000Z"],
    ["5 Mar 2024", "month-first", "2024-03-05T00:00:00.000Z"],
    ["Tue, 05 Mar 2024 14:22:01 +0000", "month-first", "2024-03-05T14:22:01.000Z"],
    ["1709648521", "month-first", "2024-03-05T14:22:01.000Z"],
    ["1709648521000", "month-first", "2024-03-05T14:22:01.000Z"],
  ] as const)("reads %s (%s) as %s", (raw, order, expected) => {
    expect(parseImportDate(raw, order, now)?.toISOString()).toBe(expected);
  });

  it.each(["", "yesterday", "13/13/2024", "1999-12-31", "2030-01-01", "2024-02-30"])(
    "refuses %j (unreadable or implausible), so the import uses now",
    (raw) => {
      expect(parseImportDate(raw, "month-first", now)).toBeNull();
    },
  );
});
