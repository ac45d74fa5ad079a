import { useFetcher } from "@remix-run/react";
import { Banner, BlockStack, Button, Form, Text, TextField } from "@shopify/polaris";
import { LabelledCard } from "~/components/LabelledCard";
import { useI18n } from "~/i18n/i18n-context";

type TestAnswer =
  | { ok: true; result: { sent: true; to: string; answer: string } | { sent: false; detail: string } }
  | { ok: false; fieldErrors: Record<string, string>; formError?: string };

/**
 * "Send a test email": one sample alert email through the shop's saved SMTP settings, and the mail server's
 * answer as it gave it (its acceptance, or its error), so a merchant can fix their settings from it.
 */
export function TestEmailCard({ contactEmail, unsaved }: { contactEmail: string; unsaved: boolean }) {
  const { t, locale } = useI18n();
  const fetcher = useFetcher<TestAnswer>();
  // The shop's contact email, and only it: the action refuses another address, so the field is not editable.
  const to = contactEmail;
  const sending = fetcher.state !== "idle";
  const answer = fetcher.state === "idle" ? fetcher.data : undefined;
  const send = () =>
    fetcher.submit({ intent: "test", to, language: locale }, { method: "post", action: "/app/alerts" });
  return (
    <LabelledCard title={t("alerts.test.title")}>
      <Form onSubmit={send} noValidate>
        <BlockStack gap="300">
          <Text as="p" tone="subdued">
            {t("alerts.test.body")}
          </Text>
          <TextField
            label={t("alerts.test.to")}
            type="email"
            autoComplete="off"
            value={to}
            readOnly
            error={answer && !answer.ok ? answer.fieldErrors.to : undefined}
          />
          {unsaved ? (
            <Text as="p" tone="caution">
              {t("alerts.test.saveFirst")}
            </Text>
          ) : null}
          <div>
            <Button submit loading={sending} disabled={unsaved}>
              {t("alerts.test.send")}
            </Button>
          </div>
          {answer?.ok && answer.result.sent ? (
            <Banner tone="success" title={t("alerts.test.sent", { to: answer.result.to })}>
              <p>{t("alerts.test.answer", { answer: answer.result.answer || "—" })}</p>
            </Banner>
          ) : null}
          {answer?.ok && !answer.result.sent ? (
            <Banner tone="critical" title={t("alerts.test.notSent")}>
              <p>{answer.result.detail}</p>
            </Banner>
          ) : null}
          {answer && !answer.ok && answer.formError ? (
            <Banner tone="critical" title={t("alerts.test.notSent")}>
              <p>{answer.formError}</p>
            </Banner>
          ) : null}
        </BlockStack>
      </Form>
    </LabelledCard>
  );
}
