import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { TitleBar } from "@shopify/app-bridge-react";
import { Badge, Card, DataTable, EmptyState, Layout, Page, Text } from "@shopify/polaris";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { pageErrorBoundary } from "~/components/PageError";
import { DownloadLink, useRefreshWhile } from "~/components/TransferJobs";
import { useI18n } from "~/i18n/i18n-context";
import type { MessageKey, Translator } from "~/i18n/translate";
import { toTimestamp } from "~/lib/time";
import { dataRequestLink, listComplianceRequests } from "~/services/compliance/compliance.server";

/**
 * The platform's privacy requests for this shop (docs/privacy.md): customer data requests, with a download of
 * the customer's wishlist data once written, and customer erasures, each with its date and state.
 */

const SHOWN = 100;

const TOPICS: Record<string, MessageKey> = {
  "customers/data_request": "privacy.topic.dataRequest",
  "customers/redact": "privacy.topic.customerErasure",
  "shop/redact": "privacy.topic.shopErasure",
};

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  const rows = await listComplianceRequests({ shopId, limit: SHOWN });
  const requests = await Promise.all(
    rows.map(async (row) => {
      const link = await dataRequestLink(row);
      return {
        id: row.id,
        topic: row.topic,
        // Cleared once an erasure ran: the request no longer names the customer.
        customerId: row.customerId,
        platformRequestId: row.platformRequestId,
        status: row.status,
        receivedAt: toTimestamp(row.receivedAt)!,
        finishedAt: toTimestamp(row.finishedAt),
        downloadUrl: link?.url ?? null,
        downloadExpiresAt: toTimestamp(link?.expiresAt),
      };
    }),
  );
  return { requests };
};

type RequestView = Awaited<ReturnType<typeof loader>>["requests"][number];

const STATUS: Record<string, { label: MessageKey; tone?: "success" | "critical" | "info" | "attention" }> = {
  queued: { label: "privacy.status.queued", tone: "info" },
  running: { label: "privacy.status.running", tone: "attention" },
  succeeded: { label: "privacy.status.succeeded", tone: "success" },
  failed: { label: "privacy.status.failed", tone: "critical" },
  skipped: { label: "privacy.status.skipped" },
};

function StatusBadge({ status }: { status: string }) {
  const { t } = useI18n();
  const known = STATUS[status];
  return <Badge tone={known?.tone}>{known ? t(known.label) : status}</Badge>;
}

function customerCell(request: RequestView, { t }: Translator) {
  if (request.topic === "shop/redact") return t("privacy.wholeShop");
  if (request.customerId) return t("privacy.customer", { id: request.customerId });
  return request.status === "succeeded" ? t("privacy.erased") : "-";
}

function resultCell(request: RequestView, { t, dateTime }: Translator) {
  if (request.downloadUrl) {
    return <DownloadLink url={request.downloadUrl}>{t("privacy.downloadJson")}</DownloadLink>;
  }
  if (request.status === "succeeded" && request.topic === "customers/redact") return t("privacy.dataErased");
  if (request.status === "skipped") return t("privacy.installedNothingErased");
  if (request.status === "failed") return t("privacy.failedRepeatedly");
  // A finished data request whose file is gone: the customer's erasure deleted it with their data.
  if (request.status === "succeeded" && request.topic === "customers/data_request") {
    return t("privacy.fileDeleted");
  }
  return request.finishedAt ? dateTime(request.finishedAt) : "-";
}

export default function Privacy() {
  const { requests } = useLoaderData<typeof loader>();
  const i18n = useI18n();
  const { t } = i18n;
  useRefreshWhile(requests.some((request) => request.status === "queued" || request.status === "running"));
  return (
    <Page>
      <TitleBar title={t("page.privacy")} />
      <Layout>
        <Layout.Section>
          <Text as="p" tone="subdued">
            {t("privacy.intro")}
          </Text>
        </Layout.Section>
        <Layout.Section>
          {requests.length === 0 ? (
            <Card>
              <EmptyState heading={t("privacy.emptyHeading")} image="/empty-transfers.svg">
                <Text as="p">{t("privacy.emptyBody")}</Text>
              </EmptyState>
            </Card>
          ) : (
            <Card padding="0">
              <DataTable
                columnContentTypes={["text", "text", "text", "text", "text"]}
                headings={[
                  t("privacy.column.received"),
                  t("privacy.column.request"),
                  t("privacy.column.customer"),
                  t("privacy.column.status"),
                  t("privacy.column.result"),
                ]}
                rows={requests.map((request) => [
                  i18n.dateTime(request.receivedAt),
                  TOPICS[request.topic] ? t(TOPICS[request.topic]!) : request.topic,
                  customerCell(request, i18n),
                  <StatusBadge key="status" status={request.status} />,
                  resultCell(request, i18n),
                ])}
              />
            </Card>
          )}
        </Layout.Section>
      </Layout>
    </Page>
  );
}

export const ErrorBoundary = pageErrorBoundary("page.privacy", "privacy.error");
