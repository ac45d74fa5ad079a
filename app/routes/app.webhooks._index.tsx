import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { Modal, TitleBar, useAppBridge } from "@shopify/app-bridge-react";
import {
  Banner,
  BlockStack,
  Box,
  Button,
  Card,
  ChoiceList,
  EmptyState,
  Form,
  IndexTable,
  InlineStack,
  Layout,
  Link,
  Page,
  Text,
  TextField,
} from "@shopify/polaris";
import { useRef, useState } from "react";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { readForm, runForm } from "~/admin/forms.server";
import { serializeWebhookEndpoint } from "~/api/v1/serializers";
import { DisabledEndpointsBanner } from "~/components/DisabledEndpointsBanner";
import { pageErrorBoundary } from "~/components/PageError";
import { SendTestEventButton } from "~/components/SendTestEventButton";
import { WebhookEndpointStatus } from "~/components/WebhookEndpointStatus";
import { useAnswerToast } from "~/components/useAnswerToast";
import { useI18n } from "~/i18n/i18n-context";
import type { MessageKey } from "~/i18n/translate";
import { getEnv } from "~/env.server";
import {
  createEndpoint,
  deleteEndpoint,
  enableEndpoint,
  endpointInputSchema,
  listEndpoints,
  sendTestEvent,
  SUBSCRIBABLE_EVENTS,
} from "~/services/webhooks/endpoints.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  const endpoints = await listEndpoints({ shopId });
  return {
    endpoints: endpoints.map(serializeWebhookEndpoint),
    eventTypes: SUBSCRIBABLE_EVENTS,
    // Plain http endpoints are taken in development only (WEBHOOK_ALLOW_HTTP): the page says which applies.
    allowHttp: getEnv().WEBHOOK_ALLOW_HTTP,
  };
};

/** One action for the page's forms (`intent`): add, send a test event, delete, re-enable (the banner's). */
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  const form = await readForm(request);
  const endpointId = String(form.get("endpointId") ?? "");
  switch (form.get("intent")) {
    case "create":
      return runForm(async () => {
        const input = endpointInputSchema.parse({
          url: String(form.get("url") ?? ""),
          events: form.getAll("events").map(String),
        });
        const { endpoint, secret } = await createEndpoint({ shopId, ...input });
        return { ok: true as const, intent: "create" as const, endpoint: serializeWebhookEndpoint(endpoint), secret };
      });
    case "test":
      return runForm(async () => {
        await sendTestEvent({ shopId, endpointId });
        return { ok: true as const, intent: "test" as const };
      });
    case "delete":
      return runForm(async () => {
        await deleteEndpoint({ shopId, endpointId });
        return { ok: true as const, intent: "delete" as const };
      });
    case "enable":
      return runForm(async () => {
        await enableEndpoint({ shopId, endpointId });
        return { ok: true as const, intent: "enable" as const };
      });
    default:
      throw new Response("Unknown form", { status: 400 });
  }
};

type Endpoint = ReturnType<typeof useLoaderData<typeof loader>>["endpoints"][number];

const ADD_MODAL = "add-endpoint";
const DELETE_MODAL = "delete-endpoint";

/** What each subscribable event means to a merchant (docs/webhooks.md, Events). */
const EVENT_DESCRIPTIONS: Record<string, MessageKey> = {
  "item.added": "webhooks.event.item.added",
  "item.removed": "webhooks.event.item.removed",
  "list.merged": "webhooks.event.list.merged",
  "list.shared": "webhooks.event.list.shared",
};

export default function Webhooks() {
  const { endpoints, allowHttp } = useLoaderData<typeof loader>();
  const { t } = useI18n();
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Endpoint | null>(null);
  const disabled = endpoints.flatMap((endpoint) =>
    endpoint.disabledAt ? [{ id: endpoint.id, url: endpoint.url, disabledAt: endpoint.disabledAt }] : [],
  );
  const openAdd = () => setAdding(true);

  return (
    <Page>
      <TitleBar title={t("page.webhooks")}>
        <button variant="primary" onClick={openAdd}>
          {t("webhooks.add")}
        </button>
      </TitleBar>
      <BlockStack gap="500">
        <DisabledEndpointsBanner endpoints={disabled} />
        <Layout>
          <Layout.Section>
            {endpoints.length === 0 ? (
              <Card>
                <EmptyState
                  heading={t("webhooks.emptyHeading")}
                  action={{ content: t("webhooks.add"), onAction: openAdd }}
                  image="/webhooks-empty.svg"
                >
                  <p>{t(allowHttp ? "webhooks.emptyBodyHttp" : "webhooks.emptyBodyHttps")}</p>
                </EmptyState>
              </Card>
            ) : (
              <EndpointsTable endpoints={endpoints} onDelete={setDeleting} />
            )}
          </Layout.Section>
        </Layout>
      </BlockStack>
      {/* Mounted only while open: a fresh form (and no old secret) each time. Nor is a ui-modal in the
          server's HTML: App Bridge adds its dialog to the body as the page is parsed, and hydration then
          finds markup React did not render. */}
      {adding && <AddEndpointModal onClose={() => setAdding(false)} />}
      {deleting && <DeleteEndpointModal endpoint={deleting} onClose={() => setDeleting(null)} />}
    </Page>
  );
}

/**
 * Index table cells keep their text on one line (Polaris), so one long URL pushed the actions (Delete) past
 * the page's edge behind a horizontal scroll: the URL and the events wrap instead.
 */
const WRAPPING_CELL = { whiteSpace: "normal", overflowWrap: "anywhere", minWidth: "10rem" } as const;

function EndpointsTable({ endpoints, onDelete }: { endpoints: Endpoint[]; onDelete: (endpoint: Endpoint) => void }) {
  const { t, dateTime } = useI18n();
  return (
    <Card padding="0">
      <Box padding="400">
        <Text as="h2" variant="headingMd">
          {t("webhooks.endpoints")}
        </Text>
      </Box>
      <IndexTable
        resourceName={{ singular: t("webhooks.endpoint.singular"), plural: t("webhooks.endpoint.plural") }}
        itemCount={endpoints.length}
        selectable={false}
        headings={[
          { title: t("webhooks.column.url") },
          { title: t("webhook.detail.events") },
          { title: t("webhook.detail.status") },
          { title: t("webhook.detail.created") },
          { title: t("webhook.attempt.actions"), alignment: "end" },
        ]}
      >
        {endpoints.map((endpoint, index) => (
          <IndexTable.Row id={endpoint.id} key={endpoint.id} position={index}>
            <IndexTable.Cell>
              <div style={WRAPPING_CELL}>
                <Link url={`/app/webhooks/${endpoint.id}`} removeUnderline>
                  <Text as="span" fontWeight="semibold" breakWord>
                    {endpoint.url}
                  </Text>
                </Link>
              </div>
            </IndexTable.Cell>
            <IndexTable.Cell>
              <div style={WRAPPING_CELL}>
                <BlockStack>
                  {endpoint.events.map((event) => (
                    <span key={event}>{event}</span>
                  ))}
                </BlockStack>
              </div>
            </IndexTable.Cell>
            <IndexTable.Cell>
              <WebhookEndpointStatus endpoint={endpoint} />
            </IndexTable.Cell>
            <IndexTable.Cell>{dateTime(endpoint.createdAt)}</IndexTable.Cell>
            <IndexTable.Cell>
              <InlineStack gap="200" align="end" wrap={false}>
                <SendTestEventButton endpoint={endpoint} />
                <Button
                  tone="critical"
                  variant="tertiary"
                  onClick={() => onDelete(endpoint)}
                  accessibilityLabel={t("webhooks.deleteLabel", { url: endpoint.url })}
                >
                  {t("webhooks.delete")}
                </Button>
              </InlineStack>
            </IndexTable.Cell>
          </IndexTable.Row>
        ))}
      </IndexTable>
    </Card>
  );
}

function AddEndpointModal({ onClose }: { onClose: () => void }) {
  const { eventTypes } = useLoaderData<typeof loader>();
  const { t } = useI18n();
  const fetcher = useFetcher<typeof action>();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>([]);
  // The secret lives only in this answer: closing the modal unmounts it, and the secret is gone for good.
  const created = fetcher.data?.ok && fetcher.data.intent === "create" ? fetcher.data : null;
  const failure = fetcher.data && !fetcher.data.ok ? fetcher.data : null;
  const submitting = fetcher.state !== "idle";

  const submit = () => {
    const body = new FormData();
    body.set("intent", "create");
    body.set("url", url.trim());
    for (const event of events) body.append("events", event);
    fetcher.submit(body, { method: "post" });
  };
  return (
    <Modal id={ADD_MODAL} open onHide={onClose}>
      {created ? (
        <Box padding="400">
          <SecretOnce url={created.endpoint.url} secret={created.secret} />
        </Box>
      ) : (
        <Box padding="400">
          <Form onSubmit={submit} noValidate>
            <BlockStack gap="400">
              {failure?.formError && (
                <Banner tone="critical" title={t("webhooks.notAdded")}>
                  <p>{failure.formError}</p>
                </Banner>
              )}
              <TextField
                label={t("webhooks.urlLabel")}
                type="url"
                value={url}
                onChange={setUrl}
                autoComplete="off"
                placeholder="https://example.com/webhooks"
                helpText={t("webhooks.urlHelp")}
                error={failure?.fieldErrors.url}
              />
              <ChoiceList
                title={t("webhook.detail.events")}
                allowMultiple
                choices={eventTypes.map((type) => ({
                  label: type,
                  value: type,
                  helpText: EVENT_DESCRIPTIONS[type] ? t(EVENT_DESCRIPTIONS[type]) : undefined,
                }))}
                selected={events}
                onChange={setEvents}
                error={failure?.fieldErrors.events}
              />
            </BlockStack>
          </Form>
        </Box>
      )}
      {created ? (
        <TitleBar title={t("webhooks.added")}>
          <button variant="primary" onClick={onClose}>
            {t("webhooks.done")}
          </button>
        </TitleBar>
      ) : (
        <TitleBar title={t("webhooks.add")}>
          <button variant="primary" onClick={submit} disabled={submitting}>
            {t("webhooks.add")}
          </button>
          <button onClick={onClose}>{t("webhooks.cancel")}</button>
        </TitleBar>
      )}
    </Modal>
  );
}

/** The signing secret, this once: the service keeps it sealed and no page or API call shows it again. */
function SecretOnce({ url, secret }: { url: string; secret: string }) {
  const shopify = useAppBridge();
  const { t, rich } = useI18n();
  const field = useRef<HTMLDivElement>(null);
  const copy = async () => {
    const copied = clipboardAllowed()
      ? await navigator.clipboard.writeText(secret).then(
          () => true,
          () => false,
        )
      : copySelection(field.current?.querySelector("input"));
    if (copied) shopify.toast.show(t("webhooks.secretCopied"));
    else shopify.toast.show(t("webhooks.secretCopyManually"), { isError: true });
  };
  return (
    <BlockStack gap="400">
      <Text as="p">
        {rich("webhooks.receivesFromNow", {
          url: (
            <Text as="span" fontWeight="semibold" breakWord>
              {url}
            </Text>
          ),
        })}
      </Text>
      <Banner tone="warning" title={t("webhooks.secretOnceTitle")}>
        <p>{t("webhooks.secretOnceBody")}</p>
      </Banner>
      <div ref={field}>
        <TextField
          label={t("webhooks.secretLabel")}
          value={secret}
          readOnly
          autoComplete="off"
          monospaced
          connectedRight={<Button onClick={() => void copy()}>{t("webhooks.copy")}</Button>}
        />
      </div>
    </BlockStack>
  );
}

/**
 * Whether this frame may use the async clipboard: the admin around it decides (permissions policy), and
 * Chromium reports a console error for a refused call, so a frame without it is not even asked.
 */
function clipboardAllowed(): boolean {
  const policy = (document as Document & { featurePolicy?: { allowsFeature(feature: string): boolean } }).featurePolicy;
  return Boolean(navigator.clipboard) && (policy?.allowsFeature("clipboard-write") ?? true);
}

/** The older way, allowed in any frame on a click: copy the field's text as selected. */
function copySelection(input: HTMLInputElement | null | undefined): boolean {
  if (!input) return false;
  input.select();
  return document.execCommand("copy");
}

function DeleteEndpointModal({ endpoint, onClose }: { endpoint: Endpoint; onClose: () => void }) {
  const fetcher = useFetcher<typeof action>();
  const { t, rich } = useI18n();
  useAnswerToast(fetcher, {
    done: t("webhooks.deleted"),
    failed: t("webhooks.notDeleted"),
    onAnswer: (answer) => answer.ok && onClose(),
  });
  const remove = () => fetcher.submit({ intent: "delete", endpointId: endpoint.id }, { method: "post" });
  return (
    <Modal id={DELETE_MODAL} variant="small" open onHide={onClose}>
      <Box padding="400">
        <Text as="p">
          {rich("webhooks.deleteQuestion", {
            url: (
              <Text as="span" fontWeight="semibold" breakWord>
                {endpoint.url}
              </Text>
            ),
          })}
        </Text>
      </Box>
      <TitleBar title={t("webhooks.deleteTitle")}>
        <button variant="primary" tone="critical" onClick={remove} disabled={fetcher.state !== "idle"}>
          {t("webhooks.deleteConfirm")}
        </button>
        <button onClick={onClose}>{t("webhooks.cancel")}</button>
      </TitleBar>
    </Modal>
  );
}

export const ErrorBoundary = pageErrorBoundary("page.webhooks", "webhooks.error");
