import deTranslations from "@shopify/polaris/locales/de.json";
import enTranslations from "@shopify/polaris/locales/en.json";
import esTranslations from "@shopify/polaris/locales/es.json";
import frTranslations from "@shopify/polaris/locales/fr.json";
import type { AppProviderProps } from "@shopify/polaris";
import { negotiateLocale } from "~/lib/negotiate-locale";
import { ADMIN_LOCALES, DEFAULT_ADMIN_LOCALE, isAdminLocale, type AdminLocale } from "./locales";

/**
 * The admin's language for a document request: the platform admin's own (`locale`, a query parameter on every
 * embedded load), else the browser's Accept-Language, else English. A region variant takes its language
 * (de-CH is de), and a language we do not have is English, not the browser's: the merchant chose it in the
 * admin. Client-side navigations keep the document's language (the layout's loader data, app.tsx).
 */
export function resolveAdminLocale(request: Request): AdminLocale {
  const fromAdmin = new URL(request.url).searchParams.get("locale");
  const header = fromAdmin ?? request.headers.get("accept-language");
  if (!header) return DEFAULT_ADMIN_LOCALE;
  const locale = negotiateLocale(header, [...ADMIN_LOCALES]);
  return isAdminLocale(locale) ? locale : DEFAULT_ADMIN_LOCALE;
}

const POLARIS_TRANSLATIONS: Record<AdminLocale, AppProviderProps["i18n"]> = {
  en: enTranslations,
  de: deTranslations,
  fr: frTranslations,
  es: esTranslations,
};

/** Polaris's own strings (its buttons, labels and announcements) in the admin's language, for AppProvider. */
export function polarisTranslations(locale: AdminLocale): AppProviderProps["i18n"] {
  return POLARIS_TRANSLATIONS[locale];
}
