/** The admin's languages: the storefront's four (docs/decisions/034-admin-languages.md). English is the fallback. */
export const ADMIN_LOCALES = ["en", "de", "fr", "es"] as const;
export type AdminLocale = (typeof ADMIN_LOCALES)[number];
export const DEFAULT_ADMIN_LOCALE: AdminLocale = "en";

export function isAdminLocale(value: unknown): value is AdminLocale {
  return typeof value === "string" && (ADMIN_LOCALES as readonly string[]).includes(value);
}
