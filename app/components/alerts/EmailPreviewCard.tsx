import { useFetcher } from "@remix-run/react";
import { Banner, BlockStack, InlineStack, Select, Text } from "@shopify/polaris";
import { useState } from "react";
import { LabelledCard } from "~/components/LabelledCard";
import { useI18n } from "~/i18n/i18n-context";

const TEMPLATES = ["back_in_stock", "price_dropped", "low_stock", "reminder", "digest"] as const;
/** The emails' languages, each named in itself: a merchant looks for the language they read. */
const LANGUAGES = [
  { value: "en", label: "English" },
  { value: "fr", label: "Français" },
  { value: "de", label: "Deutsch" },
  { value: "es", label: "Español" },
] as const;

export interface EmailPreview {
  template: string;
  language: string;
  subject: string;
  html: string;
}

type PreviewAnswer = { ok: true; preview: EmailPreview } | { ok: false; formError?: string };

/**
 * Each alert email (back in stock, price drop, low stock, a reminder, a digest of three) in each of the storefront's
 * languages, rendered by the server with sample data and the shop's brand name, shown as the shopper would
 * see it. The frame is sandboxed without scripts: the email's markup can run nothing in the admin.
 */
export function EmailPreviewCard({ initial: loaded }: { initial: EmailPreview }) {
  const { t } = useI18n();
  const fetcher = useFetcher<PreviewAnswer>();
  // The page's first preview: a later revalidation of the page does not replace the one chosen here.
  const [initial] = useState(loaded);
  const [choice, setChoice] = useState({ template: initial.template, language: initial.language });
  const answered = fetcher.data?.ok ? fetcher.data.preview : null;
  // The last preview rendered for a choice: the loader's, then each the server answered.
  const preview = answered ?? initial;
  const failed = fetcher.data && !fetcher.data.ok ? fetcher.data : null;

  const choose = (change: Partial<typeof choice>) => {
    const next = { ...choice, ...change };
    setChoice(next);
    fetcher.submit({ intent: "preview", ...next }, { method: "post", action: "/app/alerts" });
  };

  return (
    <LabelledCard title={t("alerts.preview.title")}>
      <BlockStack gap="400">
        <Text as="p" tone="subdued">
          {t("alerts.preview.description")}
        </Text>
        <InlineStack gap="400" wrap>
          <Select
            label={t("alerts.preview.template")}
            options={TEMPLATES.map((template) => ({
              label: t(`alerts.preview.template.${template}`),
              value: template,
            }))}
            value={choice.template}
            onChange={(template) => choose({ template })}
          />
          <Select
            label={t("alerts.preview.language")}
            options={LANGUAGES.map((language) => ({ ...language }))}
            value={choice.language}
            onChange={(language) => choose({ language })}
          />
        </InlineStack>
        {failed ? (
          <Banner tone="critical" title={t("alerts.preview.failed")}>
            {failed.formError ? <p>{failed.formError}</p> : null}
          </Banner>
        ) : null}
        <BlockStack gap="200">
          <Text as="p">
            <Text as="span" fontWeight="semibold">
              {t("alerts.preview.subject")}
            </Text>{" "}
            <span data-preview-subject>{preview.subject}</span>
          </Text>
          <iframe
            title={t("alerts.preview.frame", { subject: preview.subject })}
            srcDoc={preview.html}
            sandbox=""
            style={{
              width: "100%",
              height: "640px",
              border: "1px solid var(--p-color-border)",
              borderRadius: "8px",
              opacity: fetcher.state === "idle" ? 1 : 0.6,
            }}
          />
        </BlockStack>
      </BlockStack>
    </LabelledCard>
  );
}
