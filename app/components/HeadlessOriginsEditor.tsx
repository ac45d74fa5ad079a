import { BlockStack, Button, Text, TextField } from "@shopify/polaris";
import { useState } from "react";
import { useI18n } from "~/i18n/i18n-context";
import type { MessageKey } from "~/i18n/translate";

/**
 * The browser origins of the shop's headless storefronts: one field per origin (so a refused one shows its
 * message beside it, keyed `headlessOrigins.<index>` like the settings' zod issues), a remove button each,
 * and a field to add one. A new origin is checked as it is added (and written as the browser sends it:
 * `https://Shop.example.com/` becomes `https://shop.example.com`); every origin is checked again when the
 * settings are saved, with the API's own schema.
 */

/** An origin as a browser's Origin header carries it, or why the text is not one. */
function originOf(text: string): { origin: string } | { error: MessageKey } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: "origins.notUrl" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { error: "origins.scheme" };
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    return { error: "origins.onlyOrigin" };
  }
  return { origin: url.origin };
}
export function HeadlessOriginsEditor({
  origins,
  errors,
  onChange,
}: {
  origins: string[];
  errors: Record<string, string>;
  onChange: (origins: string[]) => void;
}) {
  const [draft, setDraft] = useState("");
  const [draftError, setDraftError] = useState<string | undefined>();
  const { t } = useI18n();

  function add() {
    const text = draft.trim();
    if (!text) return;
    const checked = originOf(text);
    if ("error" in checked) {
      setDraftError(t(checked.error));
      return;
    }
    if (!origins.includes(checked.origin)) onChange([...origins, checked.origin]);
    setDraft("");
    setDraftError(undefined);
  }

  return (
    <BlockStack gap="300">
      {origins.length === 0 ? (
        <Text as="p" tone="subdued">
          {t("origins.none")}
        </Text>
      ) : (
        origins.map((origin, index) => (
          <TextField
            key={index}
            label={t("origins.origin", { number: index + 1 })}
            autoComplete="off"
            value={origin}
            onChange={(value) => onChange(origins.map((current, at) => (at === index ? value : current)))}
            error={errors[`headlessOrigins.${index}`]}
            connectedRight={
              <Button
                tone="critical"
                accessibilityLabel={t("origins.removeLabel", { origin })}
                onClick={() => onChange(origins.filter((_, at) => at !== index))}
              >
                {t("origins.remove")}
              </Button>
            }
          />
        ))
      )}
      {errors.headlessOrigins ? (
        <Text as="p" tone="critical">
          {errors.headlessOrigins}
        </Text>
      ) : null}
      <div
        onKeyDown={(event) => {
          // Enter in the field adds the origin rather than doing nothing (there is no form to submit).
          if (event.key === "Enter" && event.target instanceof HTMLInputElement) {
            event.preventDefault();
            add();
          }
        }}
      >
        <TextField
          label={t("origins.new")}
          helpText={t("origins.newHelp")}
          autoComplete="off"
          value={draft}
          onChange={(value) => {
            setDraft(value);
            setDraftError(undefined);
          }}
          error={draftError}
          connectedRight={
            <Button onClick={add} disabled={!draft.trim()}>
              {t("origins.add")}
            </Button>
          }
        />
      </div>
    </BlockStack>
  );
}
