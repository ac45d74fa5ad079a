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
import { useEffect, useRef, useState } from "react";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { readForm, runForm } from "~/admin/forms.server";
import { serializeWebhookEndpoint } from "~/api/v1/serializers";
import { DisabledEndpointsBanner } from "~/components/DisabledEndpointsBanner";
import { PageError } from "~/components/PageError";
import { SendTestEventButton } from "~/components/SendTestEventButton";
import { formatAdminTime, WebhookEndpointStatus } from "~/components/WebhookEndpointStatus";
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
const EVENT_DESCRIPTIONS: Record<string, string> = {
  "item.added": "A shopper saves a product to a wishlist",
  "item.removed": "A shopper removes a product from a wishlist",
  "list.merged": "A guest wishlist is merged into the customer's at login",
  "list.shared": "A shopper creates a share link for a wishlist",
};

export default function Webhooks() {
  const { endpoints, allowHttp } = useLoaderData<typeof loader>();
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Endpoint | null>(null);
  const disabled = endpoints.flatMap((endpoint) =>
    endpoint.disabledAt ? [{ id: endpoint.id, url: endpoint.url, disabledAt: endpoint.disabledAt }] : [],
  );
  const openAdd = () => setAdding(true);

  return (
    <Page>
      <TitleBar title="Webhooks">
        <button variant="primary" onClick={openAdd}>
          Add endpoint
        </button>
      </TitleBar>
      <BlockStack gap="500">
        <DisabledEndpointsBanner endpoints={disabled} />
        <Layout>
          <Layout.Section>
            {endpoints.length === 0 ? (
              <Card>
                <EmptyState
                  heading="Send wishlist events to your systems"
                  action={{ content: "Add endpoint", onAction: openAdd }}
                  image="/webhooks-empty.svg"
                >
                  <p>
                    Add an {allowHttp ? "http or https" : "https"} endpoint and choose events: each change to a wishlist
                    is sent to it as a signed JSON request.
                  </p>
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
  return (
    <Card padding="0">
      <Box padding="400">
        <Text as="h2" variant="headingMd">
          Endpoints
        </Text>
      </Box>
      <IndexTable
        resourceName={{ singular: "endpoint", plural: "endpoints" }}
        itemCount={endpoints.length}
        selectable={false}
        headings={[
          { title: "URL" },
          { title: "Events" },
          { title: "Status" },
          { title: "Created" },
          { title: "Actions", alignment: "end" },
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
            <IndexTable.Cell>{formatAdminTime(endpoint.createdAt)}</IndexTable.Cell>
            <IndexTable.Cell>
              <InlineStack gap="200" align="end" wrap={false}>
                <SendTestEventButton endpoint={endpoint} />
                <Button
                  tone="critical"
                  variant="tertiary"
                  onClick={() => onDelete(endpoint)}
                  accessibilityLabel={`Delete ${endpoint.url}`}
                >
                  Delete
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
                <Banner tone="critical" title="The endpoint was not added">
                  <p>{failure.formError}</p>
                </Banner>
              )}
              <TextField
                label="Endpoint URL"
                type="url"
                value={url}
                onChange={setUrl}
                autoComplete="off"
                placeholder="https://example.com/webhooks"
                helpText="Requests are signed with a secret you will see once, after adding."
                error={failure?.fieldErrors.url}
              />
              <ChoiceList
                title="Events"
                allowMultiple
                choices={eventTypes.map((type) => ({
                  label: type,
                  value: type,
                  helpText: EVENT_DESCRIPTIONS[type],
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
        <TitleBar title="Endpoint added">
          <button variant="primary" onClick={onClose}>
            Done
          </button>
        </TitleBar>
      ) : (
        <TitleBar title="Add endpoint">
          <button variant="primary" onClick={submit} disabled={submitting}>
            Add endpoint
          </button>
          <button onClick={onClose}>Cancel</button>
        </TitleBar>
      )}
    </Modal>
  );
}

/** The signing secret, this once: the service keeps it sealed and no page or API call shows it again. */
function SecretOnce({ url, secret }: { url: string; secret: string }) {
  const shopify = useAppBridge();
  const field = useRef<HTMLDivElement>(null);
  const copy = async () => {
    const copied = clipboardAllowed()
      ? await navigator.clipboard.writeText(secret).then(
          () => true,
          () => false,
        )
      : copySelection(field.current?.querySelector("input"));
    if (copied) shopify.toast.show("Signing secret copied");
    else shopify.toast.show("Select the secret and copy it", { isError: true });
  };
  return (
    <BlockStack gap="400">
      <Text as="p">
        <Text as="span" fontWeight="semibold" breakWord>
          {url}
        </Text>{" "}
        receives the events you chose from now on.
      </Text>
      <Banner tone="warning" title="Copy the signing secret now: it is shown only this once">
        <p>
          Verify each request&apos;s X-Service-Signature header with it. If you lose it, delete the endpoint and add it
          again to get a new secret.
        </p>
      </Banner>
      <div ref={field}>
        <TextField
          label="Signing secret"
          value={secret}
          readOnly
          autoComplete="off"
          monospaced
          connectedRight={<Button onClick={() => void copy()}>Copy</Button>}
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
  const shopify = useAppBridge();
  const fetcher = useFetcher<typeof action>();
  const handled = useRef<typeof fetcher.data>(undefined);
  useEffect(() => {
    if (!fetcher.data || fetcher.data === handled.current) return;
    handled.current = fetcher.data;
    if (fetcher.data.ok) {
      shopify.toast.show("Endpoint deleted");
      onClose();
    } else {
      shopify.toast.show(fetcher.data.formError ?? "The endpoint was not deleted", { isError: true });
    }
  }, [fetcher.data, onClose, shopify]);
  const remove = () => fetcher.submit({ intent: "delete", endpointId: endpoint.id }, { method: "post" });
  return (
    <Modal id={DELETE_MODAL} variant="small" open onHide={onClose}>
      <Box padding="400">
        <Text as="p">
          Delete{" "}
          <Text as="span" fontWeight="semibold" breakWord>
            {endpoint.url}
          </Text>
          ? It receives no more events, pending deliveries to it are not sent, and its delivery log is deleted.
        </Text>
      </Box>
      <TitleBar title="Delete endpoint?">
        <button variant="primary" tone="critical" onClick={remove} disabled={fetcher.state !== "idle"}>
          Delete endpoint
        </button>
        <button onClick={onClose}>Cancel</button>
      </TitleBar>
    </Modal>
  );
}

export function ErrorBoundary() {
  return <PageError pageTitle="Webhooks" title="The webhooks could not be shown" />;
}
