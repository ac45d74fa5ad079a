import { de } from "./messages/de";
import { en, type Messages } from "./messages/en";
import { es } from "./messages/es";
import { fr } from "./messages/fr";
import { translateCatalogue, type CatalogueTranslator, type StringKeyOf } from "./message-catalogue";
import type { AdminLocale } from "./locales";

/** Every language's catalogue has English's keys, no more and no fewer (TypeScript, and tests/i18n/catalogues.test.ts). */
export const CATALOGUES: Record<AdminLocale, Messages> = { en, de, fr, es };

export type MessageKey = StringKeyOf<Messages>;

export interface Translator extends CatalogueTranslator<Messages> {
  locale: AdminLocale;
  /**
   * An admin time: medium date and short time (seconds where events fall within one minute), in UTC, so
   * every merchant of a shop reads the same moment; in the admin's language.
   */
  dateTime(iso: string, options?: { seconds?: boolean }): string;
}

export function createTranslator(locale: AdminLocale): Translator {
  return {
    ...translateCatalogue(locale, CATALOGUES[locale]),
    locale,
    dateTime: (iso, { seconds = false } = {}) =>
      `${new Date(iso).toLocaleString(locale, { dateStyle: "medium", timeStyle: seconds ? "medium" : "short", timeZone: "UTC" })} UTC`,
  };
}
