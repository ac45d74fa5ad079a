import { createElement, Fragment, type ReactNode } from "react";
import { de } from "./messages/de";
import { en, type Messages } from "./messages/en";
import { es } from "./messages/es";
import { fr } from "./messages/fr";
import type { AdminLocale } from "./locales";

/** Every language's catalogue has English's keys, no more and no fewer (TypeScript, and tests/i18n/catalogues.test.ts). */
export const CATALOGUES: Record<AdminLocale, Messages> = { en, de, fr, es };

export type MessageKey = { [K in keyof Messages]: Messages[K] extends string ? K : never }[keyof Messages];
export type PluralKey = Exclude<keyof Messages, MessageKey>;
type Values = Record<string, string | number>;

const PLACEHOLDER = /\{(\w+)\}/g;

export interface Translator {
  locale: AdminLocale;
  /** The message in the admin's language, `{name}` replaced by values[name] (numbers formatted for the language). */
  t(key: MessageKey, values?: Values): string;
  /** The message's plural form for `count` (the language's rules, Intl.PluralRules), `{count}` formatted. */
  plural(key: PluralKey, count: number, values?: Values): string;
  /** A message with elements in it (a bold URL, a link): `{name}` replaced by values[name]. */
  rich(key: MessageKey, values: Record<string, ReactNode>): ReactNode;
  number(value: number): string;
  /**
   * An admin time: medium date and short time (seconds where events fall within one minute), in UTC, so
   * every merchant of a shop reads the same moment; in the admin's language.
   */
  dateTime(iso: string, options?: { seconds?: boolean }): string;
}

export function createTranslator(locale: AdminLocale): Translator {
  const messages = CATALOGUES[locale];
  const numbers = new Intl.NumberFormat(locale);
  const plurals = new Intl.PluralRules(locale);
  const fill = (template: string, values: Values = {}) =>
    template.replace(PLACEHOLDER, (whole, name: string) => {
      const value = values[name];
      if (value === undefined) return whole;
      return typeof value === "number" ? numbers.format(value) : value;
    });
  return {
    locale,
    t: (key, values) => fill(messages[key], values),
    plural: (key, count, values) => {
      const forms = messages[key];
      // French and Spanish say "many" for round millions; the catalogues keep one and other.
      const form = plurals.select(count) === "one" ? forms.one : forms.other;
      return fill(form, { ...values, count });
    },
    rich: (key, values) =>
      createElement(
        Fragment,
        null,
        ...messages[key]
          .split(PLACEHOLDER)
          .map((part, index) =>
            createElement(Fragment, { key: index }, index % 2 === 1 ? (values[part] ?? `{${part}}`) : part),
          ),
      ),
    number: (value) => numbers.format(value),
    dateTime: (iso, { seconds = false } = {}) =>
      `${new Date(iso).toLocaleString(locale, { dateStyle: "medium", timeStyle: seconds ? "medium" : "short", timeZone: "UTC" })} UTC`,
  };
}
