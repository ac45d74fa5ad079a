import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { SaveBar, TitleBar, useAppBridge } from "@shopify/app-bridge-react";
import { Banner, BlockStack, Card, Checkbox, ChoiceList, Layout, List, Page, Text, TextField } from "@shopify/polaris";
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { readJson, runForm } from "~/admin/forms.server";
import { HeadlessOriginsEditor } from "~/components/HeadlessOriginsEditor";
import { pageErrorBoundary } from "~/components/PageError";
import { useI18n } from "~/i18n/i18n-context";
import type { MessageKey, Translator } from "~/i18n/translate";
import { StorefrontStringsEditor, type StringOverrides } from "~/components/StorefrontStringsEditor";
import { shopSettingsPatchSchema } from "~/services/shops/settings";
import { getShopSettings, updateShopSettings } from "~/services/shops/shops.server";
import { DEFAULT_STRINGS } from "~/services/shops/storefront-config.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  return { settings: await getShopSettings({ shopId }), defaultStrings: DEFAULT_STRINGS };
};

/** The page sends the settings it edits as JSON: the body of PATCH /v1/shop/settings, with the same schema. */
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  return runForm(async () => {
    const patch = shopSettingsPatchSchema.parse(await readJson(request));
    return { ok: true as const, settings: await updateShopSettings({ shopId, patch }) };
  });
};

/** What this page edits (integrationConfigured is set by the integration itself, not here). */
type EditableSettings = {
  guestEnabled: boolean;
  shareEnabled: boolean;
  sharePath: string;
  metafieldSyncEnabled: boolean;
  strings: StringOverrides;
  headlessOrigins: string[];
  multipleLists: boolean;
  /** A number once typed as one; the text as typed otherwise (the save then names the field). */
  maxListsPerOwner: number | string;
  boughtItems: "keep" | "remove";
};

function editable(settings: EditableSettings): EditableSettings {
  const { guestEnabled, shareEnabled, sharePath, metafieldSyncEnabled, strings, headlessOrigins } = settings;
  const { multipleLists, maxListsPerOwner, boughtItems } = settings;
  return {
    guestEnabled,
    shareEnabled,
    sharePath,
    metafieldSyncEnabled,
    strings,
    headlessOrigins,
    multipleLists,
    maxListsPerOwner,
    boughtItems,
  };
}

/** Same settings whatever the order of members (strings are objects keyed by locale and key). */
function sameSettings(a: EditableSettings, b: EditableSettings) {
  const canonical = (value: unknown): unknown =>
    value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(
          Object.entries(value)
            .sort(([x], [y]) => (x < y ? -1 : 1))
            .map(([key, member]) => [key, canonical(member)]),
        )
      : value;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** The page's single-value fields: the label each is shown with (in the error list too) and its help text. */
const FIELDS = {
  guestEnabled: { label: "settings.guest.label", help: "settings.guest.help" },
  multipleLists: { label: "settings.multipleLists.label", help: "settings.multipleLists.help" },
  maxListsPerOwner: { label: "settings.maxLists.label", help: "settings.maxLists.help" },
  metafieldSyncEnabled: { label: "settings.metafield.label", help: "settings.metafield.help" },
  boughtItems: { label: "settings.boughtItems.label", help: "settings.boughtItems.help" },
  shareEnabled: { label: "settings.sharing.title", help: "settings.sharing.help" },
  sharePath: { label: "settings.sharePath.label", help: "settings.sharePath.help" },
} as const satisfies Record<string, { label: MessageKey; help: MessageKey }>;

const FIELD_NAMES: Record<string, MessageKey> = {
  ...Object.fromEntries(Object.entries(FIELDS).map(([field, { label }]) => [field, label])),
  headlessOrigins: "settings.headless.field",
};

/** The page's sections, each titled and described by its messages (`settings.<id>.title`, `.description`). */
function Section({ id, children }: { id: "wishlists" | "sharing" | "headless" | "strings"; children: ReactNode }) {
  const { t } = useI18n();
  return (
    <Layout.AnnotatedSection id={id} title={t(`settings.${id}.title`)} description={t(`settings.${id}.description`)}>
      <Card>{children}</Card>
    </Layout.AnnotatedSection>
  );
}

/** "headlessOrigins.1" -> "Headless origins, origin 2"; "strings.fr.add" -> "Storefront text fr, add". */
function fieldName(field: string, { t }: Pick<Translator, "t">) {
  const [member, ...rest] = field.split(".");
  if (member === "headlessOrigins" && rest.length)
    return t("settings.headless.fieldOrigin", { number: Number(rest[0]) + 1 });
  if (member === "strings") return t("settings.strings.field", { path: rest.join(", ") }).trim();
  const name = FIELD_NAMES[member!];
  return name ? t(name) : field;
}

export default function SettingsPage() {
  const { settings, defaultStrings } = useLoaderData<typeof loader>();
  const fetcher = useFetcher<typeof action>();
  const shopify = useAppBridge();
  const { t } = useI18n();
  const saved = useMemo(() => editable(settings), [settings]);
  const [form, setForm] = useState(saved);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  const dirty = !sameSettings(form, saved);
  const saving = fetcher.state !== "idle";
  const failureBanner = useRef<HTMLDivElement>(null);
  const [failures, setFailures] = useState(0);

  // Idle again after a save: the action answered and the loader has been revalidated.
  useEffect(() => {
    if (fetcher.state !== "idle" || !fetcher.data) return;
    if (fetcher.data.ok) {
      setForm(editable(fetcher.data.settings));
      setErrors({});
      setFormError(undefined);
      shopify.toast.show(t("settings.saved"));
    } else {
      setErrors(fetcher.data.fieldErrors);
      setFormError(fetcher.data.formError);
      setFailures((count) => count + 1);
    }
  }, [fetcher.state, fetcher.data, shopify, t]);

  // The refused field may be far down the page: the banner at the top lists every message.
  useEffect(() => {
    if (failures > 0) failureBanner.current?.scrollIntoView({ block: "start" });
  }, [failures]);

  /** A change to the form; the errors of the fields it touches go (a new save checks them again). */
  function change(patch: Partial<EditableSettings>, touched: (field: string) => boolean) {
    setForm({ ...form, ...patch });
    setErrors(Object.fromEntries(Object.entries(errors).filter(([field]) => !touched(field))));
  }
  const touchedMember = (member: string) => (field: string) => field === member || field.startsWith(`${member}.`);

  const checkbox = (field: "guestEnabled" | "metafieldSyncEnabled" | "shareEnabled" | "multipleLists") => (
    <Checkbox
      label={t(FIELDS[field].label)}
      helpText={t(FIELDS[field].help)}
      checked={form[field]}
      onChange={(checked) => change({ [field]: checked }, touchedMember(field))}
      error={errors[field]}
    />
  );

  function save() {
    fetcher.submit(form, { method: "post", encType: "application/json" });
  }

  function discard() {
    setForm(saved);
    setErrors({});
    setFormError(undefined);
  }

  // "form" (an issue of the whole body) is the formError, shown once above the list.
  const errorList = Object.entries(errors).filter(([field]) => field !== "form");
  return (
    <Page>
      <TitleBar title={t("page.settings")} />
      <SaveBar id="settings-save-bar" open={dirty}>
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
            <Banner tone="critical" title={t("settings.notSaved")}>
              {formError ? <Text as="p">{formError}</Text> : null}
              <List>
                {errorList.map(([field, message]) => (
                  <List.Item key={field}>
                    {t("settings.fieldError", { field: fieldName(field, { t }), message })}
                  </List.Item>
                ))}
              </List>
            </Banner>
          </div>
        ) : null}
        <Layout>
          <Section id="wishlists">
            <BlockStack gap="300">
              {checkbox("guestEnabled")}
              {checkbox("multipleLists")}
              <TextField
                label={t(FIELDS.maxListsPerOwner.label)}
                helpText={t(FIELDS.maxListsPerOwner.help)}
                type="number"
                min={1}
                max={100}
                autoComplete="off"
                value={String(form.maxListsPerOwner)}
                onChange={(value) =>
                  change(
                    { maxListsPerOwner: /^\d{1,3}$/.test(value) ? Number(value) : value },
                    touchedMember("maxListsPerOwner"),
                  )
                }
                error={errors.maxListsPerOwner}
              />
              {checkbox("metafieldSyncEnabled")}
              <ChoiceList
                title={t(FIELDS.boughtItems.label)}
                choices={[
                  {
                    label: t("settings.boughtItems.keep"),
                    value: "keep",
                    helpText: t("settings.boughtItems.keepHelp"),
                  },
                  {
                    label: t("settings.boughtItems.remove"),
                    value: "remove",
                    helpText: t("settings.boughtItems.removeHelp"),
                  },
                ]}
                selected={[form.boughtItems]}
                onChange={([boughtItems]) =>
                  change({ boughtItems: boughtItems === "remove" ? "remove" : "keep" }, touchedMember("boughtItems"))
                }
                error={errors.boughtItems}
              />
              <Text as="p" tone="subdued">
                {t(FIELDS.boughtItems.help)}
              </Text>
            </BlockStack>
          </Section>
          <Section id="sharing">
            <BlockStack gap="300">
              {checkbox("shareEnabled")}
              <TextField
                label={t(FIELDS.sharePath.label)}
                helpText={t(FIELDS.sharePath.help)}
                autoComplete="off"
                value={form.sharePath}
                onChange={(sharePath) => change({ sharePath }, touchedMember("sharePath"))}
                error={errors.sharePath}
              />
            </BlockStack>
          </Section>
          <Section id="headless">
            <HeadlessOriginsEditor
              origins={form.headlessOrigins}
              errors={errors}
              // Indexes shift when an origin goes: every origin's message goes with them.
              onChange={(headlessOrigins) => change({ headlessOrigins }, touchedMember("headlessOrigins"))}
            />
          </Section>
          <Section id="strings">
            <StorefrontStringsEditor
              strings={form.strings}
              defaults={defaultStrings}
              errors={errors}
              onChange={(strings, changedField) =>
                change({ strings }, (field) => field === changedField || field.startsWith(`${changedField}.`))
              }
            />
          </Section>
        </Layout>
      </BlockStack>
    </Page>
  );
}

export const ErrorBoundary = pageErrorBoundary("page.settings", "settings.error");
