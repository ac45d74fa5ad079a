import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData, useNavigate, useNavigation, useSubmit } from "@remix-run/react";
import { TitleBar } from "@shopify/app-bridge-react";
import {
  Banner,
  BlockStack,
  Box,
  Button,
  Card,
  DataTable,
  InlineGrid,
  InlineStack,
  Layout,
  List,
  Page,
  SkeletonBodyText,
  Spinner,
  Text,
} from "@shopify/polaris";
import { authenticateShop } from "~/admin/authenticate-shop.server";
import { runForm } from "~/admin/forms.server";
import { findJobForPage, transferJobView } from "~/admin/transfer-job-views.server";
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
import { FORMATS, type Field } from "~/services/transfers/columns";
import {
  confirmDryRun,
  confirmationOf,
  getImportReport,
  isImportFileKept,
  type ImportIssue,
  type ImportReport,
} from "~/services/transfers/jobs.server";

/**
 * One import (docs/imports.md): its live progress while it runs, then its report. A dry run's report
 * ends with the confirmation that starts the real import of the same upload; a real one's with its
 * totals and the report to download; a failed one says what went wrong and what to do.
 */

export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  const job = await findJobForPage({ shopId, kind: "import", jobId: params.jobId ?? "" });
  const finished = job.status === "succeeded" || job.status === "failed";
  return {
    job: await transferJobView(job),
    report: finished ? await getImportReport({ shopId, jobId: job.id }) : null,
    uploadKept: await isImportFileKept({ shopId, job }),
    retentionDays: getEnv().FILE_RETENTION_DAYS,
    // A dry run already confirmed links to its import instead of offering to import again.
    confirmedBy: (await confirmationOf({ shopId, dryRun: job }))?.id ?? null,
  };
};

/** The confirmation of a dry run: the real import of the very upload and source it checked. */
export const action = async ({ request, params }: ActionFunctionArgs) => {
  const { shopId } = await authenticateShop(request);
  const dryRun = await findJobForPage({ shopId, kind: "import", jobId: params.jobId ?? "" });
  const started = await runForm(() => confirmDryRun({ shopId, jobId: dryRun.id, baseUrl: getEnv().SHOPIFY_APP_URL }));
  return "id" in started ? redirect(`/app/imports/${started.id}`) : started;
};

const FIELD_LABELS: Record<Field, string> = {
  customerId: "Customer id",
  email: "Customer email",
  anonymousId: "Guest id",
  productId: "Product id",
  variantId: "Variant id",
  handle: "Handle",
  title: "Title",
  addedAt: "Date added",
};

const REASON_LABELS: Record<ImportIssue["reason"], string> = {
  "malformed-row": "Malformed row",
  "unparseable-product-id": "Unreadable product id",
  "unparseable-variant-id": "Unreadable variant id",
  "no-customer": "No customer",
  "customer-not-found": "Customer not found",
  "customer-id-not-found": "Customer id not found",
  "list-full": "Wishlist full",
};

const plural = (count: number, one: string, many: string) => `${formatCount(count)} ${count === 1 ? one : many}`;

export default function ImportJob() {
  const { job, report, uploadKept, confirmedBy, retentionDays } = useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  const navigation = useNavigation();
  const navigate = useNavigate();
  const underway = isUnderway(job.status);
  useRefreshWhile(underway);
  const kind = job.dryRun ? "Dry run" : "Import";
  const source = job.source ? FORMATS[job.source].label : "";
  const submit = useSubmit();
  // The real import reads the dry run's upload: the action takes it from this job, so the form is empty.
  const confirm = () => submit({}, { method: "post" });
  const chooseAnotherFile = () => navigate(`/app/imports/new?source=${job.source ?? ""}`);

  if (navigation.state === "loading" && navigation.location.pathname !== `/app/imports/${job.jobId}`) {
    return (
      <Page>
        <Card>
          <SkeletonBodyText lines={10} />
        </Card>
      </Page>
    );
  }

  return (
    <Page>
      <TitleBar title={`${kind}: ${source}`}>
        <button onClick={() => navigate("/app/imports")}>All imports</button>
      </TitleBar>
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            <Card>
              <BlockStack gap="200">
                <InlineStack gap="200" blockAlign="center">
                  <Text as="h2" variant="headingMd">
                    {job.dryRun ? "Dry run (nothing is written)" : "Import"}: {source}
                  </Text>
                  <JobStatusBadge status={job.status} />
                </InlineStack>
                {job.filename ? (
                  <Text as="p">
                    File: <strong>{job.filename}</strong>
                  </Text>
                ) : null}
                <Text as="p" tone="subdued">
                  Started {formatTimestamp(job.createdAt)}
                  {job.finishedAt ? `, finished ${formatTimestamp(job.finishedAt)}` : ""}
                </Text>
                {underway ? (
                  <InlineStack gap="200" blockAlign="center">
                    <Spinner size="small" accessibilityLabel="Reading the file" />
                    <Text as="p">
                      {job.status === "queued"
                        ? "Waiting for a worker…"
                        : `${job.dryRun ? "Checking" : "Importing"}: ${plural(job.rowsProcessed, "row", "rows")} read so far`}
                    </Text>
                  </InlineStack>
                ) : null}
                {job.resultDeletedAt ? (
                  <Text as="p" tone="subdued">
                    The report was deleted on {formatTimestamp(job.resultDeletedAt)}: import reports and files are kept{" "}
                    {retentionDays} days.
                  </Text>
                ) : null}
                {job.resultUrl && job.resultExpiresAt ? (
                  <Text as="p">
                    <DownloadLink url={job.resultUrl}>Download the full report (JSON)</DownloadLink>{" "}
                    <Text as="span" tone="subdued">
                      (this link works until {formatTimestamp(job.resultExpiresAt)}; reopen this page for a new one)
                    </Text>
                  </Text>
                ) : null}
              </BlockStack>
            </Card>

            {failure && !failure.ok ? (
              <Banner tone="critical" title="The import could not start">
                <Text as="p">{failure.formError ?? Object.values(failure.fieldErrors)[0]}</Text>
              </Banner>
            ) : null}

            {job.status === "failed" ? (
              <Banner tone="critical" title={job.dryRun ? "The dry run failed" : "The import failed"}>
                <BlockStack gap="200">
                  <Text as="p">{job.error}</Text>
                  <Text as="p">
                    What to do: fix what the message names (the file, or the source you chose for it), then start a new
                    import.{" "}
                    {job.dryRun
                      ? "Nothing was written."
                      : "Imports never add an item twice, so running one again adds only what is missing."}
                  </Text>
                  <InlineStack>
                    <Button onClick={chooseAnotherFile}>Start a new import</Button>
                  </InlineStack>
                </BlockStack>
              </Banner>
            ) : null}

            {job.status === "succeeded" && report && job.dryRun && confirmedBy ? (
              <Banner
                tone="success"
                title="This dry run was confirmed: its file is imported"
                action={{ content: "View the import", url: `/app/imports/${confirmedBy}` }}
                secondaryAction={{ content: "Choose another file", onAction: chooseAnotherFile }}
              >
                <Text as="p">{summary(report)}</Text>
              </Banner>
            ) : null}
            {job.status === "succeeded" && report && job.dryRun && !confirmedBy ? (
              <Banner
                tone="info"
                title="Dry run finished: nothing has been written yet"
                action={{
                  content: `Import ${plural(report.totals.imported, "item", "items")}`,
                  onAction: confirm,
                  disabled: !uploadKept,
                  loading: navigation.state === "submitting",
                }}
                secondaryAction={{ content: "Choose another file", onAction: chooseAnotherFile }}
              >
                <BlockStack gap="100">
                  <Text as="p">{summary(report)}</Text>
                  <Text as="p">
                    {report.totals.imported > 0
                      ? "Step 3 of 3: read the report below, then confirm the import of the same file."
                      : "Every readable row of this file is already saved: importing it adds nothing."}
                  </Text>
                </BlockStack>
              </Banner>
            ) : null}
            {job.status === "succeeded" && report && !job.dryRun ? (
              <Banner tone="success" title="Import finished">
                <Text as="p">{summary(report)}</Text>
              </Banner>
            ) : null}

            {report ? <Totals report={report} /> : null}
            {report ? <Columns report={report} /> : null}
            {report && report.issues.length > 0 ? <Issues report={report} /> : null}
          </BlockStack>
        </Layout.Section>
      </Layout>
    </Page>
  );
}

/** The run's totals in a sentence: what was (or would be) imported, already saved and skipped. */
function summary(report: ImportReport) {
  const { imported, skipped, unchanged } = report.totals;
  return (
    `${plural(imported, "item", "items")} ${report.dryRun ? "would be imported" : "imported"}, ` +
    `${formatCount(unchanged)} already saved and ${plural(skipped, "row", "rows")} skipped.`
  );
}

function Totals({ report }: { report: ImportReport }) {
  const { rows, imported, unchanged, skipped, datesDefaulted } = report.totals;
  const figures: Array<[string, number]> = [
    ["Rows read", rows],
    [report.dryRun ? "Would be imported" : "Imported", imported],
    ["Already saved", unchanged],
    ["Skipped", skipped],
    ["Dates set to the import time", datesDefaulted],
  ];
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          Totals
        </Text>
        <InlineGrid columns={{ xs: 2, md: 5 }} gap="300">
          {figures.map(([label, value]) => (
            <BlockStack key={label} gap="100">
              <Text as="p" tone="subdued">
                {label}
              </Text>
              <Text as="p" variant="headingLg" numeric>
                {formatCount(value)}
              </Text>
            </BlockStack>
          ))}
        </InlineGrid>
      </BlockStack>
    </Card>
  );
}

function Columns({ report }: { report: ImportReport }) {
  const { mapped, unmapped, unmappedTruncated, missing } = report.columns;
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          Columns
        </Text>
        <Text as="p">
          Read as {report.format.label}
          {report.format.variant ? ` (${report.format.variant})` : ""}:{" "}
          {mapped.map(({ header, field }) => `${header} → ${FIELD_LABELS[field]}`).join(", ") || "no column recognised"}
          .
        </Text>
        {unmapped.length > 0 ? (
          <BlockStack gap="100">
            <Text as="h3" variant="headingSm">
              Columns that could not be placed
            </Text>
            <Text as="p" tone="subdued">
              Nothing in the import takes these columns; their values are ignored.
              {unmappedTruncated ? ` The file has more; the first ${unmapped.length} are listed.` : ""}
            </Text>
            <List type="bullet">
              {unmapped.map((header, index) => (
                <List.Item key={`${index}-${header}`}>
                  {header === "" ? "(a column without a header)" : header}
                </List.Item>
              ))}
            </List>
          </BlockStack>
        ) : null}
        {missing.length > 0 ? (
          <Text as="p" tone="critical">
            Missing: {missing.join(", ")}.
          </Text>
        ) : null}
      </BlockStack>
    </Card>
  );
}

function Issues({ report }: { report: ImportReport }) {
  const skippedBy = Object.entries(report.totals.skippedBy) as Array<[ImportIssue["reason"], number]>;
  return (
    <Card padding="0">
      <BlockStack gap="200">
        <Box paddingInline="400" paddingBlockStart="400">
          <BlockStack gap="100">
            <Text as="h2" variant="headingMd">
              Skipped rows
            </Text>
            <Text as="p" tone="subdued">
              {skippedBy.map(([reason, count]) => `${REASON_LABELS[reason]}: ${formatCount(count)}`).join(" · ")}
              {report.issuesTruncated ? ` (the first ${report.issues.length} are listed below)` : ""}
            </Text>
          </BlockStack>
        </Box>
        <DataTable
          columnContentTypes={["numeric", "text", "text", "text"]}
          headings={["Line", "Reason", "Value", "Detail"]}
          rows={[...report.issues]
            .sort((a, b) => a.line - b.line)
            .map((issue) => [issue.line, REASON_LABELS[issue.reason], issue.value ?? "", issue.detail])}
        />
      </BlockStack>
    </Card>
  );
}

export function ErrorBoundary() {
  return <TransferPageError title="This import could not be shown" />;
}
