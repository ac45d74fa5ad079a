import { createElement, Fragment, type ReactNode } from "react";

/**
 * The message machinery of our typed catalogues (docs/decisions/034-admin-languages.md): `{name}` placeholders,
 * plurals as `{ one, other }` picked by Intl.PluralRules, numbers through Intl. The admin's catalogue
 * (translate.ts) and the alert emails' (app/services/alerts/email-messages.ts) both use it; it imports no
 * catalogue itself, so a process that sends emails does not load the admin's.
 */
export type Catalogue = Record<string, string | { one: string; other: string }>;

export type StringKeyOf<C> = { [K in keyof C]: C[K] extends string ? K : never }[keyof C];
type PluralKeyOf<C> = Exclude<keyof C, StringKeyOf<C>>;
type Values = Record<string, string | number>;

const PLACEHOLDER = /\{(\w+)\}/g;

export interface CatalogueTranslator<C> {
  /** The message, `{name}` replaced by values[name] (numbers formatted for the locale). */
  t(key: StringKeyOf<C>, values?: Values): string;
  /** The message's plural form for `count` (the language's rules, Intl.PluralRules), `{count}` formatted. */
  plural(key: PluralKeyOf<C>, count: number, values?: Values): string;
  /** A message with elements in it (a bold URL, a link, a struck-through price): `{name}` replaced by values[name]. */
  rich(key: StringKeyOf<C>, values: Record<string, ReactNode>): ReactNode;
  number(value: number): string;
}

export function translateCatalogue<C extends Catalogue>(locale: string, messages: C): CatalogueTranslator<C> {
  const numbers = new Intl.NumberFormat(locale);
  const plurals = new Intl.PluralRules(locale);
  const text = (key: StringKeyOf<C>) => messages[key] as string;
  const fill = (template: string, values: Values = {}) =>
    template.replace(PLACEHOLDER, (whole, name: string) => {
      const value = values[name];
      if (value === undefined) return whole;
      return typeof value === "number" ? numbers.format(value) : value;
    });
  return {
    t: (key, values) => fill(text(key), values),
    plural: (key, count, values) => {
      const forms = messages[key] as { one: string; other: string };
      // French and Spanish say "many" for round millions; the catalogues keep one and other.
      const form = plurals.select(count) === "one" ? forms.one : forms.other;
      return fill(form, { ...values, count });
    },
    rich: (key, values) =>
      createElement(
        Fragment,
        null,
        ...text(key)
          .split(PLACEHOLDER)
          .map((part, index) =>
            createElement(Fragment, { key: index }, index % 2 === 1 ? (values[part] ?? `{${part}}`) : part),
          ),
      ),
    number: (value) => numbers.format(value),
  };
}
