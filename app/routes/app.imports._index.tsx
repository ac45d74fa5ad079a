import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData, useNavigate, useNavigation } from "@remix-run/react";
import { TitleBar } from "@shopify/app-bridge-react";
import { Card, DataTable, EmptyState, Layout, Link, Page, SkeletonBodyText, Text } from "@shopify/polaris";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { latestJobViews } from "~/admin/transfer-job-views.server";
import {
  formatCount,
  formatTimestamp,
  isUnderway,
  JobStatusBadge,
  TransferPageError,
  useRefreshWhile,
} from "~/components/TransferJobs";
import { FORMATS } from "~/services/transfers/columns";

const SHOWN = 50;

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  return { imports: await latestJobViews({ shopId, kind: "import", limit: SHOWN }) };
};

export default function Imports() {
  const { imports } = useLoaderData<typeof loader>();
  const navigate = useNavigate();
  const navigation = useNavigation();
  useRefreshWhile(imports.some((job) => isUnderway(job.status)));
  const startNew = () => navigate("/app/imports/new");

  return (
    <Page>
      <TitleBar title="Imports">
        <button variant="primary" onClick={startNew}>
          New import
        </button>
      </TitleBar>
      <Layout>
        <Layout.Section>
          {navigation.state === "loading" ? (
            <Card>
              <SkeletonBodyText lines={6} />
            </Card>
          ) : imports.length === 0 ? (
            <Card>
              <EmptyState
                heading="Bring in wishlists from a file"
                action={{ content: "New import", onAction: startNew }}
                image="/empty-transfers.svg"
              >
                <Text as="p">
                  Import this app's own CSV exports, or CSV exports of other wishlist apps (their known column layouts
                  are listed when you choose the file's source). A dry run shows what would be saved before anything is
                  written.
                </Text>
              </EmptyState>
            </Card>
          ) : (
            <Card padding="0">
              <DataTable
                columnContentTypes={["text", "text", "text", "text", "text", "numeric", "numeric"]}
                headings={["Started", "File", "Source", "Mode", "Status", "Items imported", "Rows skipped"]}
                rows={imports.map((job) => [
                  <Link key="link" url={`/app/imports/${job.jobId}`} removeUnderline>
                    {formatTimestamp(job.createdAt)}
                  </Link>,
                  job.filename ?? "–",
                  job.source ? FORMATS[job.source].label : "",
                  job.dryRun ? "Dry run" : "Import",
                  <JobStatusBadge key="status" status={job.status} />,
                  // A dry run imports nothing: its count is what the import would bring.
                  job.imported === null
                    ? "–"
                    : job.dryRun
                      ? `${formatCount(job.imported)} (would be)`
                      : formatCount(job.imported),
                  job.skipped === null ? "–" : formatCount(job.skipped),
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
  return <TransferPageError title="The imports could not be shown" />;
}
