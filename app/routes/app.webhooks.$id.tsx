import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import {
  isRouteErrorResponse,
  useFetcher,
  useLoaderData,
  useLocation,
  useNavigation,
  useRevalidator,
  useRouteError,
} from "@remix-run/react";
import { TitleBar, useAppBridge } from "@shopify/app-bridge-react";
import {
  Badge,
  Banner,
  BlockStack,
  Box,
  Button,
  Card,
  EmptyState,
  IndexTable,
  InlineGrid,
  InlineStack,
  Layout,
  Page,
  Text,
} from "@shopify/polaris";
import { useEffect } from "react";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { readForm, runForm } from "~/admin/forms.server";
import { serializeWebhookDelivery, serializeWebhookEndpoint } from "~/api/v1/serializers";
import { DisabledEndpointsBanner } from "~/components/DisabledEndpointsBanner";
import { SendTestEventButton } from "~/components/SendTestEventButton";
import { formatAdminTime, WebhookEndpointStatus } from "~/components/WebhookEndpointStatus";
import { isId } from "~/lib/ids";
import { isDomainError } from "~/lib/domain-error";
import { pageParamsSchema } from "~/lib/validation";
import { getEndpoint, listDeliveries, redeliver } from "~/services/webhooks/endpoints.server";

const ATTEMPTS_PER_PAGE = 25;

/** Another shop's endpoint, a deleted one and an id of another kind all look the same: not here. */
const endpointNotFound = () => data("No webhook endpoint with this id in this shop.", { status: 404 });

export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  const endpointId = params.id ?? "";
  if (!isId("webhookEndpoint", endpointId)) throw endpointNotFound();
  const page = pageParamsSchema.parse({
    cursor: new URL(request.url).searchParams.get("cursor") ?? undefined,
    limit: ATTEMPTS_PER_PAGE,
  });
  try {
    const [endpoint, attempts] = await Promise.all([
      getEndpoint({ shopId, endpointId }),
      listDeliveries({ shopId, endpointId, page }),
    ]);
    return {
      endpoint: serializeWebhookEndpoint(endpoint),
      attempts: attempts.data.map(serializeWebhookDelivery),
      nextCursor: attempts.pageInfo.nextCursor,
      firstPage: !page.cursor,
    };
  } catch (error) {
    if (isDomainError(error, "not_found")) throw endpointNotFound();
    throw error;
  }
};

/** Redeliver: the logged attempt's event goes to this endpoint once more, as one new attempt. */
export const action = async ({ request, params }: ActionFunctionArgs) => {
  const { shopId, shopDomain } = await authenticateShop(request);
  const form = await readForm(request);
  if (form.get("intent") !== "redeliver") throw new Response("Unknown form", { status: 400 });
  return runForm(async () => {
    await redeliver({ shopId, shopDomain, endpointId: params.id ?? "", deliveryId: String(form.get("deliveryId")) });
    return { ok: true as const };
  });
};

type Attempt = ReturnType<typeof useLoaderData<typeof loader>>["attempts"][number];

export default function WebhookEndpoint() {
  const { endpoint, attempts, nextCursor, firstPage } = useLoaderData<typeof loader>();
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  const location = useLocation();
  const loading =
    revalidator.state === "loading" ||
    (navigation.state === "loading" && navigation.location.pathname === location.pathname);

  return (
    // No `title`: Polaris would draw it as a second h1 beside the layout's (app/admin/pages.ts), on one line
    // that a long URL pushes past the page's edge. The URL heads the Endpoint card instead, wrapping.
    <Page backAction={{ content: "Webhooks", url: "/app/webhooks" }}>
      <TitleBar title="Webhook endpoint">
        <button onClick={() => revalidator.revalidate()}>Refresh log</button>
      </TitleBar>
      <Layout>
        {endpoint.disabledAt && (
          <Layout.Section>
            <DisabledEndpointsBanner
              endpoints={[{ id: endpoint.id, url: endpoint.url, disabledAt: endpoint.disabledAt }]}
            />
          </Layout.Section>
        )}
        <Layout.Section>
          <Card>
            <BlockStack gap="400">
              <InlineStack align="space-between" blockAlign="start" gap="400" wrap={false}>
                <BlockStack gap="100">
                  <Text as="h2" variant="headingMd">
                    Endpoint
                  </Text>
                  <Text as="p" fontWeight="semibold" breakWord>
                    {endpoint.url}
                  </Text>
                </BlockStack>
                <SendTestEventButton endpoint={endpoint} />
              </InlineStack>
              <InlineGrid columns={{ xs: 1, md: 3 }} gap="400">
                <Fact label="Status">
                  <WebhookEndpointStatus endpoint={endpoint} />
                </Fact>
                <Fact label="Events">{endpoint.events.join(", ")}</Fact>
                <Fact label="Created">{formatAdminTime(endpoint.createdAt)}</Fact>
              </InlineGrid>
            </BlockStack>
          </Card>
        </Layout.Section>
        <Layout.Section>
          <Card padding="0">
            <Box padding="400">
              <BlockStack gap="100">
                <Text as="h2" variant="headingMd">
                  Delivery log
                </Text>
                <Text as="p" tone="subdued">
                  Every attempt, newest first. A failed attempt is retried 5 times, from 1 minute up to 6 hours later.
                </Text>
              </BlockStack>
            </Box>
            {attempts.length === 0 && firstPage ? (
              <EmptyState heading="No deliveries yet" image="/webhooks-empty.svg">
                <p>Attempts appear here as events are sent. Send a test event to see one now.</p>
              </EmptyState>
            ) : (
              <AttemptsTable attempts={attempts} loading={loading} endpointDisabled={endpoint.disabledAt !== null} />
            )}
            {(!firstPage || nextCursor) && (
              <Box padding="400">
                <InlineStack gap="200" align="end">
                  {!firstPage && <Button url={`/app/webhooks/${endpoint.id}`}>Newest attempts</Button>}
                  {nextCursor && (
                    <Button url={`/app/webhooks/${endpoint.id}?cursor=${encodeURIComponent(nextCursor)}`}>
                      Older attempts
                    </Button>
                  )}
                </InlineStack>
              </Box>
            )}
          </Card>
        </Layout.Section>
      </Layout>
    </Page>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <BlockStack gap="100">
      <Text as="h3" variant="headingSm" tone="subdued">
        {label}
      </Text>
      <div>{children}</div>
    </BlockStack>
  );
}

function AttemptsTable({
  attempts,
  loading,
  endpointDisabled,
}: {
  attempts: Attempt[];
  loading: boolean;
  endpointDisabled: boolean;
}) {
  return (
    <IndexTable
      resourceName={{ singular: "attempt", plural: "attempts" }}
      itemCount={attempts.length}
      selectable={false}
      loading={loading}
      headings={[
        { title: "Time" },
        { title: "Event" },
        { title: "Attempt", alignment: "end" },
        { title: "Status" },
        { title: "HTTP code", alignment: "end" },
        { title: "Duration", alignment: "end" },
        { title: "Next retry" },
        { title: "Actions", alignment: "end" },
      ]}
    >
      {attempts.map((attempt, index) => (
        <IndexTable.Row id={attempt.id} key={attempt.id} position={index}>
          <IndexTable.Cell>
            <Wrapping width="7rem">{formatAdminTime(attempt.createdAt, { seconds: true })}</Wrapping>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <Text as="span" fontWeight="semibold">
              {attempt.eventType}
            </Text>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <Text as="span" alignment="end" numeric>
              {attempt.attempt}
            </Text>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <BlockStack gap="050" inlineAlign="start">
              {attempt.status === "succeeded" ? (
                <Badge tone="success">Succeeded</Badge>
              ) : (
                <Badge tone="critical">Failed</Badge>
              )}
              {attempt.error && (
                <Wrapping width="14rem">
                  <Text as="span" variant="bodySm" tone="subdued" breakWord>
                    {attempt.error}
                  </Text>
                </Wrapping>
              )}
            </BlockStack>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <Text as="span" alignment="end" numeric>
              {attempt.statusCode ?? "None"}
            </Text>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <Text as="span" alignment="end" numeric>
              {attempt.durationMs} ms
            </Text>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <Wrapping width="7rem">
              {!attempt.nextRetryAt
                ? "None"
                : endpointDisabled
                  ? "Not sent: endpoint disabled"
                  : formatAdminTime(attempt.nextRetryAt)}
            </Wrapping>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <InlineStack align="end">
              <RedeliverButton attempt={attempt} endpointDisabled={endpointDisabled} />
            </InlineStack>
          </IndexTable.Cell>
        </IndexTable.Row>
      ))}
    </IndexTable>
  );
}

/** Table cells do not wrap; long times and error texts do, within this width, so the log fits the page. */
function Wrapping({ width, children }: { width: string; children: React.ReactNode }) {
  return <div style={{ whiteSpace: "normal", maxWidth: width }}>{children}</div>;
}

function RedeliverButton({ attempt, endpointDisabled }: { attempt: Attempt; endpointDisabled: boolean }) {
  const fetcher = useFetcher<typeof action>();
  const shopify = useAppBridge();
  useEffect(() => {
    if (!fetcher.data) return;
    if (fetcher.data.ok) shopify.toast.show("Redelivery queued");
    else shopify.toast.show(fetcher.data.formError ?? "The event was not redelivered", { isError: true });
  }, [fetcher.data, shopify]);
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value="redeliver" />
      <input type="hidden" name="deliveryId" value={attempt.id} />
      <Button
        submit
        size="slim"
        loading={fetcher.state !== "idle"}
        disabled={endpointDisabled}
        accessibilityLabel={`Redeliver ${attempt.eventType} (attempt ${attempt.attempt})`}
      >
        Redeliver
      </Button>
    </fetcher.Form>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  const message = isRouteErrorResponse(error)
    ? String(error.data)
    : error instanceof Error
      ? error.message
      : "This endpoint could not be loaded.";
  return (
    <Page backAction={{ content: "Webhooks", url: "/app/webhooks" }}>
      <TitleBar title="Webhook endpoint" />
      <Banner
        tone={notFound ? "warning" : "critical"}
        title={notFound ? "This webhook endpoint does not exist" : "Something went wrong"}
        action={{ content: "Back to webhooks", url: "/app/webhooks" }}
      >
        <p>
          {notFound ? "It may have been deleted. Endpoints of this shop are listed on the Webhooks page." : message}
        </p>
      </Banner>
    </Page>
  );
}
