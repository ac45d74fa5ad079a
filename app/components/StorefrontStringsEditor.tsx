import { BlockStack, Button, InlineGrid, InlineStack, Select, Text, TextField } from "@shopify/polaris";
import { useState } from "react";

/** Storefront strings by locale, as stored in the settings: `{ "fr": { "add": "Ajouter" } }`. */
export type StringOverrides = Record<string, Record<string, string>>;

const KEY_LABELS: Record<string, string> = {
  add: "Add button",
  remove: "Remove button",
  saved: "Saved message",
  removed: "Removed message",
  empty: "Empty wishlist message",
  title: "Wishlist page title",
  share: "Share button",
  linkCopied: "Link copied message",
  sharedTitle: "Shared wishlist title",
  loginToSave: "Log-in prompt",
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
            label="Locale"
            value={locale}
            onChange={setLocale}
            options={locales.map((code) => ({
              value: code,
              label: `${localeName(code)}${overrideCount(code) ? ` · ${overrideCount(code)} overridden` : ""}`,
            }))}
            error={errors[`strings.${locale}`]}
          />
        </div>
        <Button
          tone="critical"
          disabled={overrideCount(locale) === 0}
          onClick={() => onChange(withLocale(strings, locale, {}), `strings.${locale}`)}
        >
          {`Remove ${localeName(locale)} overrides`}
        </Button>
      </InlineStack>
      <Text as="p" tone="subdued">
        An empty field shows the built-in text (in grey).
      </Text>
      <InlineGrid columns={{ xs: 1, md: 2 }} gap="300">
        {Object.keys(defaults.en ?? {}).map((key) => (
          <TextField
            key={`${locale}.${key}`}
            label={KEY_LABELS[key] ?? key}
            autoComplete="off"
            value={overrides[key] ?? ""}
            placeholder={builtIn[key]}
            onChange={(value) => setOverride(key, value)}
            error={errors[`strings.${locale}.${key}`]}
          />
        ))}
      </InlineGrid>
      <TextField
        label="Another locale"
        helpText="A locale code such as pt-BR; its strings fall back to its language, then to English."
        autoComplete="off"
        value={newLocale}
        onChange={setNewLocale}
        connectedRight={
          <Button onClick={addLocale} disabled={!newLocale.trim()}>
            Add locale
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

function localeName(code: string) {
  try {
    const name = new Intl.DisplayNames(["en"], { type: "language" }).of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code; // not a locale code; saving says why
  }
}
