import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { SaveBar, TitleBar, useAppBridge } from "@shopify/app-bridge-react";
import { Banner, BlockStack, Card, Checkbox, Layout, List, Page, Text, TextField } from "@shopify/polaris";
import { useEffect, useMemo, useRef, useState } from "react";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { readJson, runForm } from "~/admin/forms.server";
import { HeadlessOriginsEditor } from "~/components/HeadlessOriginsEditor";
import { PageError } from "~/components/PageError";
import { StorefrontStringsEditor, type StringOverrides } from "~/components/StorefrontStringsEditor";
import { shopSettingsPatchSchema } from "~/services/shops/settings";
import { getShopSettings, updateShopSettings } from "~/services/shops/shops.server";
import { DEFAULT_STRINGS } from "~/services/storefront/config.server";

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
};

function editable(settings: EditableSettings): EditableSettings {
  const { guestEnabled, shareEnabled, sharePath, metafieldSyncEnabled, strings, headlessOrigins } = settings;
  return { guestEnabled, shareEnabled, sharePath, metafieldSyncEnabled, strings, headlessOrigins };
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

const FIELD_NAMES: Record<string, string> = {
  guestEnabled: "Guest wishlists",
  shareEnabled: "Sharing",
  sharePath: "Share page path",
  metafieldSyncEnabled: "Customer metafield sync",
  headlessOrigins: "Headless origins",
};

/** "headlessOrigins.1" -> "Headless origins, origin 2"; "strings.fr.add" -> "Storefront text fr, add". */
function fieldName(field: string) {
  const [member, ...rest] = field.split(".");
  if (member === "headlessOrigins" && rest.length) return `Headless origins, origin ${Number(rest[0]) + 1}`;
  if (member === "strings") return `Storefront text ${rest.join(", ")}`.trim();
  return FIELD_NAMES[member!] ?? field;
}

export default function SettingsPage() {
  const { settings, defaultStrings } = useLoaderData<typeof loader>();
  const fetcher = useFetcher<typeof action>();
  const shopify = useAppBridge();
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
      shopify.toast.show("Settings saved");
    } else {
      setErrors(fetcher.data.fieldErrors);
      setFormError(fetcher.data.formError);
      setFailures((count) => count + 1);
    }
  }, [fetcher.state, fetcher.data, shopify]);

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
      <TitleBar title="Settings" />
      <SaveBar id="settings-save-bar" open={dirty}>
        <button variant="primary" onClick={save} loading={saving ? "" : undefined} disabled={saving}>
          Save
        </button>
        <button onClick={discard} disabled={saving}>
          Discard
        </button>
      </SaveBar>
      <BlockStack gap="500">
        {errorList.length > 0 || formError ? (
          <div ref={failureBanner}>
            <Banner tone="critical" title="The settings were not saved">
              {formError ? <Text as="p">{formError}</Text> : null}
              <List>
                {errorList.map(([field, message]) => (
                  <List.Item key={field}>{`${fieldName(field)}: ${message}`}</List.Item>
                ))}
              </List>
            </Banner>
          </div>
        ) : null}
        <Layout>
          <Layout.AnnotatedSection
            id="wishlists"
            title="Wishlists"
            description="Who can keep a wishlist, and where it is kept."
          >
            <Card>
              <BlockStack gap="300">
                <Checkbox
                  label="Guest wishlists"
                  helpText="Shoppers who are not logged in keep a wishlist in their browser; it joins their account when they log in."
                  checked={form.guestEnabled}
                  onChange={(guestEnabled) => change({ guestEnabled }, touchedMember("guestEnabled"))}
                  error={errors.guestEnabled}
                />
                <Checkbox
                  label="Customer metafield sync"
                  helpText="Copies each customer's wishlist to a customer metafield, for themes and flows that read it."
                  checked={form.metafieldSyncEnabled}
                  onChange={(metafieldSyncEnabled) =>
                    change({ metafieldSyncEnabled }, touchedMember("metafieldSyncEnabled"))
                  }
                  error={errors.metafieldSyncEnabled}
                />
              </BlockStack>
            </Card>
          </Layout.AnnotatedSection>
          <Layout.AnnotatedSection id="sharing" title="Sharing" description="Shoppers can share a wishlist by link.">
            <Card>
              <BlockStack gap="300">
                <Checkbox
                  label="Sharing"
                  helpText="Shows a share button on the wishlist page."
                  checked={form.shareEnabled}
                  onChange={(shareEnabled) => change({ shareEnabled }, touchedMember("shareEnabled"))}
                  error={errors.shareEnabled}
                />
                <TextField
                  label="Share page path"
                  helpText="The storefront page that shows a shared wishlist, such as /pages/wishlist."
                  autoComplete="off"
                  value={form.sharePath}
                  onChange={(sharePath) => change({ sharePath }, touchedMember("sharePath"))}
                  error={errors.sharePath}
                />
              </BlockStack>
            </Card>
          </Layout.AnnotatedSection>
          <Layout.AnnotatedSection
            id="headless"
            title="Headless storefronts"
            description="Browser origins of storefronts outside the theme that call the API with the public key."
          >
            <Card>
              <HeadlessOriginsEditor
                origins={form.headlessOrigins}
                errors={errors}
                // Indexes shift when an origin goes: every origin's message goes with them.
                onChange={(headlessOrigins) => change({ headlessOrigins }, touchedMember("headlessOrigins"))}
              />
            </Card>
          </Layout.AnnotatedSection>
          <Layout.AnnotatedSection
            id="strings"
            title="Storefront text"
            description="What shoppers read on the wishlist button and page, per locale. Shoppers get their browser's best matching locale."
          >
            <Card>
              <StorefrontStringsEditor
                strings={form.strings}
                defaults={defaultStrings}
                errors={errors}
                onChange={(strings, changedField) =>
                  change({ strings }, (field) => field === changedField || field.startsWith(`${changedField}.`))
                }
              />
            </Card>
          </Layout.AnnotatedSection>
        </Layout>
      </BlockStack>
    </Page>
  );
}

export function ErrorBoundary() {
  return <PageError pageTitle="Settings" title="The settings could not be shown" />;
}
