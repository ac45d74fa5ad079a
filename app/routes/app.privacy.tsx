import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { TitleBar } from "@shopify/app-bridge-react";
import { Badge, Card, DataTable, EmptyState, Layout, Page, Text } from "@shopify/polaris";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { PageError } from "~/components/PageError";
import { DownloadLink, formatTimestamp, useRefreshWhile } from "~/components/TransferJobs";
import { toTimestamp } from "~/lib/time";
import { dataRequestLink, listComplianceRequests } from "~/services/compliance/compliance.server";

/**
 * The platform's privacy requests for this shop (docs/privacy.md): customer data requests, with a download of
 * the customer's wishlist data once written, and customer erasures, each with its date and state.
 */

const SHOWN = 100;

const TOPICS: Record<string, string> = {
  "customers/data_request": "Customer data request",
  "customers/redact": "Customer erasure",
  "shop/redact": "Shop erasure",
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

const STATUS: Record<string, { label: string; tone?: "success" | "critical" | "info" | "attention" }> = {
  queued: { label: "Queued", tone: "info" },
  running: { label: "In progress", tone: "attention" },
  succeeded: { label: "Done", tone: "success" },
  failed: { label: "Failed", tone: "critical" },
  skipped: { label: "Not needed" },
};

function StatusBadge({ status }: { status: string }) {
  const { label, tone } = STATUS[status] ?? { label: status };
  return <Badge tone={tone}>{label}</Badge>;
}

function customerCell(request: RequestView) {
  if (request.topic === "shop/redact") return "The whole shop";
  if (request.customerId) return `Customer ${request.customerId}`;
  return request.status === "succeeded" ? "Erased" : "-";
}

function resultCell(request: RequestView) {
  if (request.downloadUrl) {
    return <DownloadLink url={request.downloadUrl}>Download JSON</DownloadLink>;
  }
  if (request.status === "succeeded" && request.topic === "customers/redact") return "Data erased";
  if (request.status === "skipped") return "The app is installed: nothing erased";
  if (request.status === "failed") return "Could not be completed after repeated attempts";
  // A finished data request whose file is gone: the customer's erasure deleted it with their data.
  if (request.status === "succeeded" && request.topic === "customers/data_request") {
    return "File deleted when the customer's data was erased";
  }
  return request.finishedAt ? formatTimestamp(request.finishedAt) : "-";
}

export default function Privacy() {
  const { requests } = useLoaderData<typeof loader>();
  useRefreshWhile(requests.some((request) => request.status === "queued" || request.status === "running"));
  return (
    <Page>
      <TitleBar title="Privacy requests" />
      <Layout>
        <Layout.Section>
          <Text as="p" tone="subdued">
            A data request becomes a JSON file of the customer&apos;s lists, saved products and share links (download
            links last 24 hours; a new one is made each time this page opens). An erasure deletes the customer&apos;s
            lists and removes their id from the event log.
          </Text>
        </Layout.Section>
        <Layout.Section>
          {requests.length === 0 ? (
            <Card>
              <EmptyState heading="No privacy requests yet" image="/empty-transfers.svg">
                <Text as="p">
                  When a customer asks the shop for their data, or to be forgotten, the platform tells the app. Their
                  wishlist data is then exported here for you to send them, or erased.
                </Text>
              </EmptyState>
            </Card>
          ) : (
            <Card padding="0">
              <DataTable
                columnContentTypes={["text", "text", "text", "text", "text"]}
                headings={["Received", "Request", "Customer", "Status", "Result"]}
                rows={requests.map((request) => [
                  formatTimestamp(request.receivedAt),
                  TOPICS[request.topic] ?? request.topic,
                  customerCell(request),
                  <StatusBadge key="status" status={request.status} />,
                  resultCell(request),
                ])}
              />
            </Card>
          )}
        </Layout.Section>
      </Layout>
    </Page>
  );
}

export function ErrorBoundary() {
  return <PageError pageTitle="Privacy requests" title="The privacy requests could not be shown" />;
}
