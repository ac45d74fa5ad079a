import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useFetcher, useLoaderData, useSearchParams, type ShouldRevalidateFunction } from "@remix-run/react";
import { SaveBar, TitleBar, useAppBridge } from "@shopify/app-bridge-react";
import {
  Banner,
  BlockStack,
  Card,
  Checkbox,
  ChoiceList,
  FormLayout,
  Layout,
  Link,
  List,
  Page,
  Select,
  Text,
  TextField,
} from "@shopify/polaris";
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { readForm, readJson, runForm } from "~/admin/forms.server";
import { AlertCountsCard } from "~/components/alerts/AlertCountsCard";
import { AlertLogCard } from "~/components/alerts/AlertLogCard";
import { EmailPreviewCard } from "~/components/alerts/EmailPreviewCard";
import { SuppressionListCard } from "~/components/alerts/SuppressionListCard";
import { TestEmailCard } from "~/components/alerts/TestEmailCard";
import { pageErrorBoundary } from "~/components/PageError";
import { useI18n } from "~/i18n/i18n-context";
import { resolveAdminLocale } from "~/i18n/locale.server";
import type { MessageKey } from "~/i18n/translate";
import { DomainError } from "~/lib/domain-error";
import { platformIdSchema } from "~/lib/validation";
import {
  loadAlertsPage,
  previewAlertEmail,
  saveAlertSettings,
  sendTestEmail,
  type AlertSettingsView,
} from "~/services/alerts/admin.server";
import { resubscribeCustomer } from "~/services/alerts/suppression.server";
import { allowanceNotice } from "~/services/plans/entitlements.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId, shopDomain } = await authenticateShop(request);
  const search = new URL(request.url).searchParams;
  const [page, allowance] = await Promise.all([
    loadAlertsPage({ shopId, shopDomain, search, language: resolveAdminLocale(request) }),
    allowanceNotice(shopId),
  ]);
  return { ...page, allowance };
};

/**
 * The page's forms: the settings as JSON (the settings document and a new SMTP password, if typed); a test
 * email, a preview and a re-subscription as forms (`intent`).
 */
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shopId, shopDomain } = await authenticateShop(request);
  if (request.headers.get("content-type")?.startsWith("application/json")) {
    const input = await readJson(request);
    return runForm(async () => ({
      ok: true as const,
      intent: "save" as const,
      ...(await saveAlertSettings({ shopId, input })),
    }));
  }
  const form = Object.fromEntries(await readForm(request));
  switch (form.intent) {
    case "test":
      return runForm(async () => ({
        ok: true as const,
        intent: "test" as const,
        result: await sendTestEmail({ shopId, shopDomain, input: form }),
      }));
    case "preview":
      return runForm(async () => ({
        ok: true as const,
        intent: "preview" as const,
        preview: await previewAlertEmail({ shopId, shopDomain, input: form }),
      }));
    case "resubscribe":
      return runForm(async () => {
        if (!(await resubscribeCustomer(shopId, platformIdSchema.parse(form.customerId)))) {
          throw new DomainError("not_found", "The customer is not on the suppression list (any more).");
        }
        return { ok: true as const, intent: "resubscribe" as const };
      });
    default:
      throw new Response("Unknown form", { status: 400 });
  }
};

/** A preview or a test changes nothing the page shows: the page's data is not read again after them. */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formData, defaultShouldRevalidate }) => {
  const intent = formData?.get("intent");
  return intent === "preview" || intent === "test" ? false : defaultShouldRevalidate;
};

type Settings = AlertSettingsView["settings"];
/** A number field's value: a number once typed as one, the text as typed otherwise (the save then names it). */
type NumberInput = number | string;
interface SettingsForm {
  backInStock: { enabled: boolean };
  priceDrop: { enabled: boolean; minPercent: NumberInput };
  lowStock: { enabled: boolean; threshold: NumberInput };
  reminders: { enabled: boolean; afterDays: NumberInput };
  cooldownDays: NumberInput;
  email: Omit<Settings["email"], "ratePerMinute" | "smtp"> & {
    ratePerMinute: NumberInput;
    smtp: Omit<Settings["email"]["smtp"], "port"> & { port: NumberInput };
  };
}

const asNumber = (value: string): NumberInput => (/^\d{1,6}$/.test(value) ? Number(value) : value);

/** The form with `value` at the dotted `path`, the rest shared. */
function withValue<T>(form: T, path: string, value: unknown): T {
  const [head, ...rest] = path.split(".");
  const record = form as Record<string, unknown>;
  return { ...record, [head!]: rest.length ? withValue(record[head!], rest.join("."), value) : value } as T;
}

/** The field errors' names, for the banner that lists them all. */
const FIELD_NAMES: Record<string, MessageKey> = {
  "priceDrop.minPercent": "alerts.priceDrop.threshold",
  "lowStock.threshold": "alerts.lowStock.threshold",
  "reminders.afterDays": "alerts.reminders.afterDays",
  cooldownDays: "alerts.cooldown.label",
  "email.ratePerMinute": "alerts.rate.label",
  "email.fromName": "alerts.fromName.label",
  "email.fromAddress": "alerts.fromAddress.label",
  "email.replyTo": "alerts.replyTo.label",
  "email.smtp.host": "alerts.smtp.host",
  "email.smtp.port": "alerts.smtp.port",
  "email.smtp.security": "alerts.smtp.security",
  "email.smtp.username": "alerts.smtp.username",
  smtpPassword: "alerts.smtp.password",
};

function Section({ id, children }: { id: "rules" | "reminders" | "email"; children: ReactNode }) {
  const { t } = useI18n();
  return (
    <Layout.AnnotatedSection id={id} title={t(`alerts.${id}.title`)} description={t(`alerts.${id}.description`)}>
      {children}
    </Layout.AnnotatedSection>
  );
}

export default function AlertsPage() {
  const data = useLoaderData<typeof loader>();
  const fetcher = useFetcher<typeof action>();
  const shopify = useAppBridge();
  const { t, dateTime, locale } = useI18n();
  const [, setSearchParams] = useSearchParams();
  const saved: SettingsForm = useMemo(() => data.settings, [data.settings]);
  const [form, setForm] = useState<SettingsForm>(saved);
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  const dirty = JSON.stringify(form) !== JSON.stringify(saved) || password !== "";
  const saving = fetcher.state !== "idle";
  const failureBanner = useRef<HTMLDivElement>(null);
  const [failures, setFailures] = useState(0);

  // Idle again after a save: the action answered and the loader has been revalidated.
  useEffect(() => {
    if (fetcher.state !== "idle" || !fetcher.data) return;
    if (fetcher.data.ok && fetcher.data.intent === "save") {
      setForm(fetcher.data.settings);
      setPassword("");
      setErrors({});
      setFormError(undefined);
      shopify.toast.show(t("alerts.saved"));
    } else if (!fetcher.data.ok) {
      setErrors(fetcher.data.fieldErrors);
      setFormError(fetcher.data.formError);
      setFailures((count) => count + 1);
    }
  }, [fetcher.state, fetcher.data, shopify, t]);

  useEffect(() => {
    if (failures > 0) failureBanner.current?.scrollIntoView({ block: "start" });
  }, [failures]);

  /** A field's value, its change (which clears its error) and its error. */
  function bind<T>(path: string, read: (form: SettingsForm) => T) {
    return {
      value: read(form),
      error: errors[path],
      set: (value: unknown) => {
        setForm((current) => withValue(current, path, value));
        setErrors((current) => Object.fromEntries(Object.entries(current).filter(([field]) => field !== path)));
      },
    };
  }
  const checkbox = (path: string, read: (form: SettingsForm) => boolean, label: MessageKey, help: MessageKey) => {
    const field = bind(path, read);
    return (
      <Checkbox label={t(label)} helpText={t(help)} checked={field.value} onChange={field.set} error={field.error} />
    );
  };
  const text = (
    path: string,
    read: (form: SettingsForm) => string | number,
    label: MessageKey,
    help: MessageKey | null,
    options: { type?: "number" | "email" | "text"; autoComplete?: string } = {},
  ) => {
    const field = bind(path, read);
    return (
      <TextField
        label={t(label)}
        helpText={help ? t(help) : undefined}
        type={options.type ?? "text"}
        autoComplete={options.autoComplete ?? "off"}
        value={String(field.value)}
        onChange={(value) => field.set(options.type === "number" ? asNumber(value) : value)}
        error={field.error}
      />
    );
  };

  const save = () =>
    fetcher.submit(
      { intent: "save", ...form, ...(password ? { smtpPassword: password } : {}) },
      { method: "post", encType: "application/json" },
    );
  const discard = () => {
    setForm(saved);
    setPassword("");
    setErrors({});
    setFormError(undefined);
  };
  const navigate = (changes: Record<string, string | null>) =>
    setSearchParams(
      (params) => {
        for (const [name, value] of Object.entries(changes)) {
          if (value === null || value === "") params.delete(name);
          else params.set(name, value);
        }
        return params;
      },
      { preventScrollReset: true },
    );

  const errorList = Object.entries(errors).filter(([field]) => field !== "form");
  const audience = bind("email.audience", (current) => current.email.audience);
  const security = bind("email.smtp.security", (current) => current.email.smtp.security);
  return (
    <Page>
      <TitleBar title={t("page.alerts")} />
      <SaveBar id="alerts-save-bar" open={dirty}>
        <button variant="primary" onClick={save} loading={saving ? "" : undefined} disabled={saving}>
          {t("settings.save")}
        </button>
        <button onClick={discard} disabled={saving}>
          {t("settings.discard")}
        </button>
      </SaveBar>
      <BlockStack gap="500">
        {errorList.length > 0 || formError ? (
          <div ref={failureBanner}>
            <Banner tone="critical" title={t("alerts.notSaved")}>
              {formError ? <Text as="p">{formError}</Text> : null}
              <List>
                {errorList.map(([field, message]) => (
                  <List.Item key={field}>
                    {t("settings.fieldError", { field: FIELD_NAMES[field] ? t(FIELD_NAMES[field]) : field, message })}
                  </List.Item>
                ))}
              </List>
            </Banner>
          </div>
        ) : null}
        {data.cursorError ? (
          <Banner tone="warning" title={t("alerts.cursorError.title")}>
            <p>
              <Link url="/app/alerts">{t("lists.cursorError.firstPage")}</Link>
            </p>
          </Banner>
        ) : null}
        {data.allowance ? (
          <Banner
            tone="warning"
            title={t("alerts.allowance.title")}
            action={{ content: t("alerts.allowance.action"), url: "/app/plan" }}
          >
            <p>
              {t("alerts.allowance.body", {
                plan: data.allowance.plan,
                limit: data.allowance.limit.toLocaleString(locale),
                held: data.allowance.held.toLocaleString(locale),
                date: dateTime(data.allowance.resetsAt),
              })}
            </p>
          </Banner>
        ) : null}
        {data.contactsUnavailable ? (
          <Banner tone="warning" title={t("lists.contactsUnavailable.title")}>
            <p>{t("lists.contactsUnavailable.body")}</p>
          </Banner>
        ) : null}
        <Layout>
          <Layout.Section>
            <AlertCountsCard counts={data.counts} />
          </Layout.Section>
          <Section id="rules">
            <Card>
              <BlockStack gap="400">
                {checkbox(
                  "backInStock.enabled",
                  (f) => f.backInStock.enabled,
                  "alerts.backInStock.label",
                  "alerts.backInStock.help",
                )}
                <BlockStack gap="200">
                  {checkbox(
                    "priceDrop.enabled",
                    (f) => f.priceDrop.enabled,
                    "alerts.priceDrop.label",
                    "alerts.priceDrop.help",
                  )}
                  {text(
                    "priceDrop.minPercent",
                    (f) => f.priceDrop.minPercent,
                    "alerts.priceDrop.threshold",
                    "alerts.priceDrop.thresholdHelp",
                    { type: "number" },
                  )}
                </BlockStack>
                <BlockStack gap="200">
                  {checkbox(
                    "lowStock.enabled",
                    (f) => f.lowStock.enabled,
                    "alerts.lowStock.label",
                    "alerts.lowStock.help",
                  )}
                  {text(
                    "lowStock.threshold",
                    (f) => f.lowStock.threshold,
                    "alerts.lowStock.threshold",
                    "alerts.lowStock.thresholdHelp",
                    { type: "number" },
                  )}
                </BlockStack>
                {text("cooldownDays", (f) => f.cooldownDays, "alerts.cooldown.label", "alerts.cooldown.help", {
                  type: "number",
                })}
              </BlockStack>
            </Card>
          </Section>
          <Section id="reminders">
            <Card>
              <BlockStack gap="200">
                {checkbox(
                  "reminders.enabled",
                  (f) => f.reminders.enabled,
                  "alerts.reminders.enabled",
                  "alerts.reminders.enabledHelp",
                )}
                {text(
                  "reminders.afterDays",
                  (f) => f.reminders.afterDays,
                  "alerts.reminders.afterDays",
                  "alerts.reminders.afterDaysHelp",
                  { type: "number" },
                )}
              </BlockStack>
            </Card>
          </Section>
          <Section id="email">
            <BlockStack gap="400">
              <Card>
                <BlockStack gap="400">
                  {checkbox(
                    "email.enabled",
                    (f) => f.email.enabled,
                    "alerts.email.enabled",
                    "alerts.email.enabledHelp",
                  )}
                  <ChoiceList
                    title={t("alerts.audience.title")}
                    choices={[
                      {
                        label: t("alerts.audience.subscribed"),
                        value: "subscribed",
                        helpText: t("alerts.audience.subscribedHelp"),
                      },
                      { label: t("alerts.audience.all"), value: "all", helpText: t("alerts.audience.allHelp") },
                    ]}
                    selected={[audience.value]}
                    onChange={([value]) => audience.set(value)}
                    error={audience.error}
                  />
                  {text("email.ratePerMinute", (f) => f.email.ratePerMinute, "alerts.rate.label", "alerts.rate.help", {
                    type: "number",
                  })}
                  <FormLayout>
                    {text("email.fromName", (f) => f.email.fromName, "alerts.fromName.label", "alerts.fromName.help")}
                    <FormLayout.Group>
                      {text(
                        "email.fromAddress",
                        (f) => f.email.fromAddress,
                        "alerts.fromAddress.label",
                        "alerts.fromAddress.help",
                        { type: "email" },
                      )}
                      {text("email.replyTo", (f) => f.email.replyTo, "alerts.replyTo.label", "alerts.replyTo.help", {
                        type: "email",
                      })}
                    </FormLayout.Group>
                  </FormLayout>
                </BlockStack>
              </Card>
              <Card>
                <BlockStack gap="400">
                  <Text as="h3" variant="headingSm">
                    {t("alerts.smtp.heading")}
                  </Text>
                  <FormLayout>
                    <FormLayout.Group>
                      {text("email.smtp.host", (f) => f.email.smtp.host, "alerts.smtp.host", "alerts.smtp.hostHelp")}
                      {text("email.smtp.port", (f) => f.email.smtp.port, "alerts.smtp.port", "alerts.smtp.portHelp", {
                        type: "number",
                      })}
                    </FormLayout.Group>
                    <Select
                      label={t("alerts.smtp.security")}
                      options={(["starttls", "tls", "none"] as const).map((value) => ({
                        value,
                        label: t(`alerts.smtp.security.${value}`),
                      }))}
                      value={security.value}
                      onChange={security.set}
                      error={security.error}
                    />
                    <FormLayout.Group>
                      {text(
                        "email.smtp.username",
                        (f) => f.email.smtp.username,
                        "alerts.smtp.username",
                        "alerts.smtp.usernameHelp",
                      )}
                      <TextField
                        label={t("alerts.smtp.password")}
                        type="password"
                        // The stored password never comes back to the page: the field is for a new one only.
                        autoComplete="new-password"
                        value={password}
                        onChange={(value) => {
                          setPassword(value);
                          setErrors((current) =>
                            Object.fromEntries(Object.entries(current).filter(([field]) => field !== "smtpPassword")),
                          );
                        }}
                        helpText={t(data.passwordSet ? "alerts.smtp.passwordSet" : "alerts.smtp.passwordNotSet")}
                        error={errors.smtpPassword}
                      />
                    </FormLayout.Group>
                  </FormLayout>
                </BlockStack>
              </Card>
              <TestEmailCard contactEmail={data.contactEmail} unsaved={dirty} />
            </BlockStack>
          </Section>
          {/* Shopify Flow triggers (issue 29, channels): their section comes here, between the email channel and the preview. */}
          <Layout.Section>
            <EmailPreviewCard initial={data.preview} />
          </Layout.Section>
          <Layout.Section>
            <AlertLogCard
              entries={data.log.entries}
              filters={data.filters}
              first={data.log.first}
              previousCursor={data.log.previousCursor}
              nextCursor={data.log.nextCursor}
              onNavigate={navigate}
            />
          </Layout.Section>
          <Layout.Section>
            <SuppressionListCard
              entries={data.suppressions.entries}
              first={data.suppressions.first}
              previousCursor={data.suppressions.previousCursor}
              nextCursor={data.suppressions.nextCursor}
              onNavigate={navigate}
            />
          </Layout.Section>
        </Layout>
      </BlockStack>
    </Page>
  );
}

export const ErrorBoundary = pageErrorBoundary("page.alerts", "alerts.error");
