import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData, useNavigate, useNavigation } from "@remix-run/react";
import { TitleBar } from "@shopify/app-bridge-react";
import { Card, DataTable, EmptyState, Layout, Link, Page, SkeletonBodyText, Text } from "@shopify/polaris";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { latestJobViews } from "~/admin/transfer-job-views.server";
import { isUnderway, JobStatusBadge, transferPageErrorBoundary, useRefreshWhile } from "~/components/TransferJobs";
import { useI18n } from "~/i18n/i18n-context";
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
  const { t, dateTime, number } = useI18n();
  useRefreshWhile(imports.some((job) => isUnderway(job.status)));
  const startNew = () => navigate("/app/imports/new");

  return (
    <Page>
      <TitleBar title={t("page.imports")}>
        <button variant="primary" onClick={startNew}>
          {t("imports.new")}
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
                heading={t("imports.emptyHeading")}
                action={{ content: t("imports.new"), onAction: startNew }}
                image="/empty-transfers.svg"
              >
                <Text as="p">{t("imports.emptyBody")}</Text>
              </EmptyState>
            </Card>
          ) : (
            <Card padding="0">
              <DataTable
                columnContentTypes={["text", "text", "text", "text", "text", "numeric", "numeric"]}
                headings={[
                  t("imports.column.started"),
                  t("imports.column.file"),
                  t("imports.column.source"),
                  t("imports.column.mode"),
                  t("imports.column.status"),
                  t("imports.column.imported"),
                  t("imports.column.skipped"),
                ]}
                rows={imports.map((job) => [
                  <Link key="link" url={`/app/imports/${job.jobId}`} removeUnderline>
                    {dateTime(job.createdAt)}
                  </Link>,
                  job.filename ?? "–",
                  job.source ? FORMATS[job.source].label : "",
                  job.dryRun ? t("imports.mode.dryRun") : t("imports.mode.import"),
                  <JobStatusBadge key="status" status={job.status} />,
                  // A dry run imports nothing: its count is what the import would bring.
                  job.imported === null
                    ? "–"
                    : job.dryRun
                      ? t("imports.wouldBe", { count: job.imported })
                      : number(job.imported),
                  job.skipped === null ? "–" : number(job.skipped),
                ])}
              />
            </Card>
          )}
        </Layout.Section>
      </Layout>
    </Page>
  );
}

export const ErrorBoundary = transferPageErrorBoundary("imports.error");
