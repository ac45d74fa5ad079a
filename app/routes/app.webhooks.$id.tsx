import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import {
  isRouteErrorResponse,
  useLoaderData,
  useLocation,
  useNavigation,
  useRevalidator,
  useRouteError,
} from "@remix-run/react";
import { TitleBar } from "@shopify/app-bridge-react";
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
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { readForm, runForm } from "~/admin/forms.server";
import { serializeWebhookDelivery, serializeWebhookEndpoint } from "~/api/v1/serializers";
import { DisabledEndpointsBanner } from "~/components/DisabledEndpointsBanner";
import { routeErrorMessage } from "~/components/PageError";
import { SendTestEventButton } from "~/components/SendTestEventButton";
import { WebhookEndpointStatus } from "~/components/WebhookEndpointStatus";
import { ActionButton } from "~/components/ActionButton";
import { HeadingWithHint } from "~/components/CardHeadings";
import { useI18n } from "~/i18n/i18n-context";
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
  const { t, dateTime } = useI18n();
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  const location = useLocation();
  const loading =
    revalidator.state === "loading" ||
    (navigation.state === "loading" && navigation.location.pathname === location.pathname);

  return (
    // No `title`: Polaris would draw it as a second h1 beside the layout's (app/admin/pages.ts), on one line
    // that a long URL pushes past the page's edge. The URL heads the Endpoint card instead, wrapping.
    <Page backAction={{ content: t("page.webhooks"), url: "/app/webhooks" }}>
      <TitleBar title={t("page.webhook")}>
        <button onClick={() => revalidator.revalidate()}>{t("webhook.detail.refresh")}</button>
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
                    {t("webhook.detail.endpoint")}
                  </Text>
                  <Text as="p" fontWeight="semibold" breakWord>
                    {endpoint.url}
                  </Text>
                </BlockStack>
                <SendTestEventButton endpoint={endpoint} />
              </InlineStack>
              <InlineGrid columns={{ xs: 1, md: 3 }} gap="400">
                <Fact label={t("webhook.detail.status")}>
                  <WebhookEndpointStatus endpoint={endpoint} />
                </Fact>
                <Fact label={t("webhook.detail.events")}>{endpoint.events.join(", ")}</Fact>
                <Fact label={t("webhook.detail.created")}>{dateTime(endpoint.createdAt)}</Fact>
              </InlineGrid>
            </BlockStack>
          </Card>
        </Layout.Section>
        <Layout.Section>
          <Card padding="0">
            <Box padding="400">
              <HeadingWithHint title={t("webhook.detail.log")}>{t("webhook.detail.logHint")}</HeadingWithHint>
            </Box>
            {attempts.length === 0 && firstPage ? (
              <EmptyState heading={t("webhook.detail.emptyHeading")} image="/webhooks-empty.svg">
                <p>{t("webhook.detail.emptyBody")}</p>
              </EmptyState>
            ) : (
              <AttemptsTable attempts={attempts} loading={loading} endpointDisabled={endpoint.disabledAt !== null} />
            )}
            {(!firstPage || nextCursor) && (
              <Box padding="400">
                <InlineStack gap="200" align="end">
                  {!firstPage && <Button url={`/app/webhooks/${endpoint.id}`}>{t("webhook.detail.newest")}</Button>}
                  {nextCursor && (
                    <Button url={`/app/webhooks/${endpoint.id}?cursor=${encodeURIComponent(nextCursor)}`}>
                      {t("webhook.detail.older")}
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
  const { t, dateTime } = useI18n();
  return (
    <IndexTable
      resourceName={{ singular: t("webhook.attempt.singular"), plural: t("webhook.attempt.plural") }}
      itemCount={attempts.length}
      selectable={false}
      loading={loading}
      headings={[
        { title: t("webhook.attempt.time") },
        { title: t("webhook.attempt.event") },
        { title: t("webhook.attempt.attempt"), alignment: "end" },
        { title: t("webhook.attempt.status") },
        { title: t("webhook.attempt.code"), alignment: "end" },
        { title: t("webhook.attempt.duration"), alignment: "end" },
        { title: t("webhook.attempt.nextRetry") },
        { title: t("webhook.attempt.actions"), alignment: "end" },
      ]}
    >
      {attempts.map((attempt, index) => (
        <IndexTable.Row id={attempt.id} key={attempt.id} position={index}>
          <IndexTable.Cell>
            <Wrapping width="7rem">{dateTime(attempt.createdAt, { seconds: true })}</Wrapping>
          </IndexTable.Cell>
          <IndexTable.Cell>
            {/* The event's id tells apart the attempts of one event from another's, as receivers deduplicate. */}
            <BlockStack gap="050">
              <Text as="span" fontWeight="semibold">
                {attempt.eventType}
              </Text>
              <Text as="span" variant="bodySm" tone="subdued" breakWord>
                {attempt.eventId}
              </Text>
            </BlockStack>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <Text as="span" alignment="end" numeric>
              {attempt.attempt}
            </Text>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <BlockStack gap="050" inlineAlign="start">
              {attempt.status === "succeeded" ? (
                <Badge tone="success">{t("webhook.attempt.succeeded")}</Badge>
              ) : (
                <Badge tone="critical">{t("webhook.attempt.failed")}</Badge>
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
              {attempt.statusCode ?? t("webhook.attempt.none")}
            </Text>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <Text as="span" alignment="end" numeric>
              {attempt.durationMs === null
                ? t("webhook.attempt.none")
                : t("webhook.attempt.ms", { ms: attempt.durationMs })}
            </Text>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <Wrapping width="7rem">
              {!attempt.nextRetryAt
                ? t("webhook.attempt.none")
                : endpointDisabled
                  ? t("webhook.attempt.notSent")
                  : dateTime(attempt.nextRetryAt, { seconds: true })}
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
  const { t } = useI18n();
  return (
    <ActionButton
      fields={{ intent: "redeliver", deliveryId: attempt.id }}
      done={t("webhook.redeliveryQueued")}
      failed={t("webhook.notRedelivered")}
      size="slim"
      disabled={endpointDisabled}
      accessibilityLabel={t("webhook.redeliverLabel", { event: attempt.eventType, attempt: attempt.attempt })}
    >
      {t("webhook.redeliver")}
    </ActionButton>
  );
}

export function ErrorBoundary() {
  const { t } = useI18n();
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  return (
    <Page backAction={{ content: t("page.webhooks"), url: "/app/webhooks" }}>
      <TitleBar title={t("page.webhook")} />
      <Banner
        tone={notFound ? "warning" : "critical"}
        title={notFound ? t("webhook.notFound.title") : t("error.somethingWrong")}
        action={{ content: t("webhook.notFound.back"), url: "/app/webhooks" }}
      >
        <p>{notFound ? t("webhook.notFound.body") : routeErrorMessage(error, t("webhook.loadFailed"))}</p>
      </Banner>
    </Page>
  );
}
