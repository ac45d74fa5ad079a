import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { TitleBar, useAppBridge } from "@shopify/app-bridge-react";
import {
  Banner,
  BlockStack,
  Box,
  Card,
  DataTable,
  EmptyState,
  InlineStack,
  Layout,
  Page,
  SkeletonBodyText,
  Spinner,
  Text,
} from "@shopify/polaris";
import { useEffect } from "react";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { readForm, runForm } from "~/admin/forms.server";
import { latestJobViews, type TransferJobView } from "~/admin/transfer-job-views.server";
import {
  DownloadLink,
  formatCount,
  formatTimestamp,
  isUnderway,
  JobStatusBadge,
  TransferPageError,
  useRefreshWhile,
} from "~/components/TransferJobs";
import { getEnv } from "~/env.server";
import { startExport } from "~/services/transfers/jobs.server";
import { exportRequestSchema } from "~/services/transfers/transfer-requests";

/**
 * Exports of every saved item as a CSV file (docs/imports.md, "Exporting"): started here, run by the worker,
 * downloaded from a signed link valid 24 hours (a new one each time the page loads). Two kinds: the generic,
 * re-importable file, and the marketing file with customers' emails and names (personal data, decision 036).
 */

const SHOWN = 25;

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  return {
    exports: await latestJobViews({ shopId, kind: "export", limit: SHOWN }),
    retentionDays: getEnv().FILE_RETENTION_DAYS,
  };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  const form = await readForm(request);
  return runForm(async () => {
    const input = exportRequestSchema.parse({ format: form.get("format") });
    const job = await startExport({ shopId, ...input });
    return { ok: true as const, jobId: job.id };
  });
};

const fileName = (job: TransferJobView) => job.filename ?? `wishlist-export-${job.jobId}.csv`;

const KIND_TEXT = {
  csv: "Every saved item in the generic columns; the file imports back cleanly.",
  marketing_csv:
    "Customers' saved items with their emails and names, product and variant titles and prices, for campaigns. " +
    "Guests are left out.",
};

export default function Exports() {
  const { exports } = useLoaderData<typeof loader>();
  const fetcher = useFetcher<typeof action>();
  const shopify = useAppBridge();
  const starting = fetcher.state !== "idle";
  useRefreshWhile(exports.some((job) => isUnderway(job.status)));

  const startedId = fetcher.data?.ok ? fetcher.data.jobId : null;
  useEffect(() => {
    if (startedId) shopify.toast.show("Export started");
  }, [startedId, shopify]);

  const exportCsv = () => fetcher.submit({ format: "csv" }, { method: "post" });
  const exportForMarketing = () => fetcher.submit({ format: "marketing_csv" }, { method: "post" });
  const latest = exports[0];
  const failure = fetcher.data && !fetcher.data.ok ? fetcher.data : null;

  return (
    <Page>
      <TitleBar title="Exports">
        <button variant="primary" onClick={exportCsv} disabled={starting}>
          Export CSV
        </button>
        <button onClick={exportForMarketing} disabled={starting}>
          Export for marketing
        </button>
      </TitleBar>
      <Layout>
        {failure ? (
          <Layout.Section>
            <Banner tone="critical" title="The export could not start">
              <Text as="p">{failure.formError ?? Object.values(failure.fieldErrors)[0]}</Text>
            </Banner>
          </Layout.Section>
        ) : null}
        <Layout.Section>
          {starting && !latest ? (
            <Card>
              <SkeletonBodyText lines={4} />
            </Card>
          ) : latest ? (
            <BlockStack gap="400">
              <LatestExport job={latest} />
              <PastExports exports={exports} />
            </BlockStack>
          ) : (
            <Card>
              <EmptyState
                heading="Export every saved item as a CSV file"
                action={{ content: "Export CSV", onAction: exportCsv, loading: starting }}
                secondaryAction={{ content: "Export for marketing", onAction: exportForMarketing }}
                image="/empty-transfers.svg"
              >
                <Text as="p">
                  One row per saved item with the columns customer_id, anonymous_id, product_id, variant_id, handle and
                  added_at. The file imports back cleanly, into this shop or another.
                </Text>
                <Text as="p">
                  For campaigns, the marketing export adds each customer&apos;s email and name, the product and variant
                  titles and the price. It holds personal data: share it only with who runs your campaigns.
                </Text>
              </EmptyState>
            </Card>
          )}
        </Layout.Section>
      </Layout>
    </Page>
  );
}

function LatestExport({ job }: { job: TransferJobView }) {
  const { retentionDays } = useLoaderData<typeof loader>();
  return (
    <Card>
      <BlockStack gap="200">
        <InlineStack gap="200" blockAlign="center">
          <Text as="h2" variant="headingMd">
            Latest export
          </Text>
          <JobStatusBadge status={job.status} />
        </InlineStack>
        <Text as="p" tone="subdued">
          {job.format === "marketing_csv" ? "Marketing export" : "Export"}, started {formatTimestamp(job.createdAt)}.{" "}
          {KIND_TEXT[job.format ?? "csv"]}
        </Text>
        {isUnderway(job.status) ? (
          <InlineStack gap="200" blockAlign="center">
            <Spinner size="small" accessibilityLabel="Exporting" />
            <Text as="p">
              {job.status === "queued"
                ? "Waiting for a worker…"
                : `Writing the file: ${formatCount(job.rowsProcessed)} rows so far`}
            </Text>
          </InlineStack>
        ) : null}
        {job.status === "succeeded" && job.resultUrl && job.resultExpiresAt ? (
          <BlockStack gap="100">
            <Text as="p">
              {formatCount(job.rowsProcessed)} {job.rowsProcessed === 1 ? "item" : "items"} exported.{" "}
              <DownloadLink url={job.resultUrl}>Download {fileName(job)}</DownloadLink>
            </Text>
            <Text as="p" tone="subdued">
              This link works until {formatTimestamp(job.resultExpiresAt)}; reopen this page for a new one. The file is
              deleted after {retentionDays} days
              {job.format === "marketing_csv" ? ", and at once when one of its customers asks to be erased" : ""}.
            </Text>
          </BlockStack>
        ) : null}
        {job.status === "succeeded" && job.resultDeletedAt ? (
          <Text as="p" tone="subdued">
            {formatCount(job.rowsProcessed)} {job.rowsProcessed === 1 ? "item" : "items"} exported. The file was deleted
            on {formatTimestamp(job.resultDeletedAt)}: export files are kept {retentionDays} days. Start a new export to
            download the items again.
          </Text>
        ) : null}
        {job.status === "failed" ? (
          <Banner tone="critical" title="The export failed">
            <Text as="p">
              {job.error} Nothing else was changed: start a new export; if it fails again, try again later.
            </Text>
          </Banner>
        ) : null}
      </BlockStack>
    </Card>
  );
}

function PastExports({ exports }: { exports: TransferJobView[] }) {
  return (
    <Card padding="0">
      <Box paddingInline="400" paddingBlockStart="400">
        <Text as="h2" variant="headingMd">
          Past exports
        </Text>
      </Box>
      <DataTable
        columnContentTypes={["text", "text", "numeric", "text"]}
        headings={["Started", "Status", "Items", "File"]}
        rows={exports.map((job) => [
          formatTimestamp(job.createdAt),
          <JobStatusBadge key="status" status={job.status} />,
          isUnderway(job.status) || job.status === "failed" ? "–" : formatCount(job.rowsProcessed),
          job.resultUrl ? (
            <DownloadLink key="file" url={job.resultUrl}>
              {fileName(job)}
            </DownloadLink>
          ) : job.resultDeletedAt ? (
            `Deleted ${formatTimestamp(job.resultDeletedAt)}`
          ) : (
            (job.error ?? "–")
          ),
        ])}
      />
    </Card>
  );
}

export function ErrorBoundary() {
  return <TransferPageError title="The exports could not be shown" />;
}
