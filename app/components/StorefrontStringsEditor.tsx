import { BlockStack, Button, InlineGrid, InlineStack, Select, Text, TextField } from "@shopify/polaris";
import { useState } from "react";
import { useI18n } from "~/i18n/i18n-context";
import type { MessageKey } from "~/i18n/translate";

/** Storefront strings by locale, as stored in the settings: `{ "fr": { "add": "Ajouter" } }`. */
export type StringOverrides = Record<string, Record<string, string>>;

const KEY_LABELS: Record<string, MessageKey> = {
  add: "strings.key.add",
  remove: "strings.key.remove",
  saved: "strings.key.saved",
  removed: "strings.key.removed",
  empty: "strings.key.empty",
  title: "strings.key.title",
  share: "strings.key.share",
  linkCopied: "strings.key.linkCopied",
  sharedTitle: "strings.key.sharedTitle",
  loginToSave: "strings.key.loginToSave",
};

/**
 * The shopper-facing strings of one locale at a time: each known key is a field whose placeholder is the
 * built-in text, so an empty field means "use the default" and only overrides are stored. Field errors
 * are keyed like the settings' zod issues: `strings.<locale>` and `strings.<locale>.<key>`.
 */
export function StorefrontStringsEditor({
  strings,
  defaults,
  errors,
  onChange,
}: {
  strings: StringOverrides;
  /** The built-in strings by locale; the keys of `en` are the keys the storefront knows. */
  defaults: StringOverrides;
  errors: Record<string, string>;
  onChange: (strings: StringOverrides, changedField: string) => void;
}) {
  const [locale, setLocale] = useState("en");
  const [addedLocales, setAddedLocales] = useState<string[]>([]);
  const [newLocale, setNewLocale] = useState("");
  const { t, locale: adminLocale } = useI18n();
  // Locale names in the admin's language: "French (fr)", "Französisch (fr)".
  const localeName = (code: string) => localeNameIn(adminLocale, code);

  const locales = [...new Set([...Object.keys(defaults), ...Object.keys(strings), ...addedLocales])];
  const overrides = strings[locale] ?? {};
  const builtIn = { ...defaults.en, ...defaults[locale.split("-")[0]!], ...defaults[locale] };
  const overrideCount = (code: string) => Object.keys(strings[code] ?? {}).length;

  function setOverride(key: string, value: string) {
    const next = { ...overrides };
    if (value === "") delete next[key];
    else next[key] = value;
    onChange(withLocale(strings, locale, next), `strings.${locale}.${key}`);
  }

  function addLocale() {
    const code = newLocale.trim();
    if (!code) return;
    if (!locales.includes(code)) setAddedLocales([...addedLocales, code]);
    setLocale(code);
    setNewLocale("");
  }

  return (
    <BlockStack gap="400">
      <InlineStack gap="300" blockAlign="end" wrap>
        <div style={{ minWidth: 240 }}>
          <Select
            label={t("strings.locale")}
            value={locale}
            onChange={setLocale}
            options={locales.map((code) => ({
              value: code,
              label: overrideCount(code)
                ? t("strings.overridden", { name: localeName(code), count: overrideCount(code) })
                : localeName(code),
            }))}
            error={errors[`strings.${locale}`]}
          />
        </div>
        <Button
          tone="critical"
          disabled={overrideCount(locale) === 0}
          onClick={() => onChange(withLocale(strings, locale, {}), `strings.${locale}`)}
        >
          {t("strings.removeOverrides", { name: localeName(locale) })}
        </Button>
      </InlineStack>
      <Text as="p" tone="subdued">
        {t("strings.emptyHint")}
      </Text>
      <InlineGrid columns={{ xs: 1, md: 2 }} gap="300">
        {Object.keys(defaults.en ?? {}).map((key) => (
          <TextField
            key={`${locale}.${key}`}
            label={KEY_LABELS[key] ? t(KEY_LABELS[key]) : key}
            autoComplete="off"
            value={overrides[key] ?? ""}
            placeholder={builtIn[key]}
            onChange={(value) => setOverride(key, value)}
            error={errors[`strings.${locale}.${key}`]}
          />
        ))}
      </InlineGrid>
      <TextField
        label={t("strings.another")}
        helpText={t("strings.anotherHelp")}
        autoComplete="off"
        value={newLocale}
        onChange={setNewLocale}
        connectedRight={
          <Button onClick={addLocale} disabled={!newLocale.trim()}>
            {t("strings.addLocale")}
          </Button>
        }
      />
    </BlockStack>
  );
}

function withLocale(strings: StringOverrides, locale: string, overrides: Record<string, string>): StringOverrides {
  const next = { ...strings };
  if (Object.keys(overrides).length === 0) delete next[locale];
  else next[locale] = overrides;
  return next;
}

function localeNameIn(adminLocale: string, code: string) {
  try {
    const name = new Intl.DisplayNames([adminLocale], { type: "language" }).of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code; // not a locale code; saving says why
  }
}
