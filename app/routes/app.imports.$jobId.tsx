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
  isUnderway,
  JobStatusBadge,
  transferPageErrorBoundary,
  useRefreshWhile,
} from "~/components/TransferJobs";
import { getEnv } from "~/env.server";
import { HeadedCard, HeadingWithHint } from "~/components/CardHeadings";
import { useI18n } from "~/i18n/i18n-context";
import type { MessageKey, Translator } from "~/i18n/translate";
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

const FIELD_LABELS: Record<Field, MessageKey> = {
  customerId: "import.field.customerId",
  email: "import.field.email",
  anonymousId: "import.field.anonymousId",
  productId: "import.field.productId",
  variantId: "import.field.variantId",
  handle: "import.field.handle",
  title: "import.field.title",
  addedAt: "import.field.addedAt",
  listName: "import.field.listName",
  note: "import.field.note",
  quantity: "import.field.quantity",
};

const REASON_LABELS: Record<ImportIssue["reason"], MessageKey> = {
  "malformed-row": "import.reason.malformedRow",
  "unparseable-product-id": "import.reason.unparseableProductId",
  "unparseable-variant-id": "import.reason.unparseableVariantId",
  "no-customer": "import.reason.noCustomer",
  "customer-not-found": "import.reason.customerNotFound",
  "customer-id-not-found": "import.reason.customerIdNotFound",
  "list-full": "import.reason.listFull",
};

export default function ImportJob() {
  const { job, report, uploadKept, confirmedBy, retentionDays } = useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  const navigation = useNavigation();
  const navigate = useNavigate();
  const underway = isUnderway(job.status);
  useRefreshWhile(underway);
  const i18n = useI18n();
  const { t, rich, plural, dateTime } = i18n;
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
      <TitleBar title={t(job.dryRun ? "import.title.dryRun" : "import.title.import", { source })}>
        <button onClick={() => navigate("/app/imports")}>{t("importNew.allImports")}</button>
      </TitleBar>
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            <Card>
              <BlockStack gap="200">
                <InlineStack gap="200" blockAlign="center">
                  <Text as="h2" variant="headingMd">
                    {t(job.dryRun ? "import.heading.dryRun" : "import.title.import", { source })}
                  </Text>
                  <JobStatusBadge status={job.status} />
                </InlineStack>
                {job.filename ? (
                  <Text as="p">{rich("import.file", { name: <strong>{job.filename}</strong> })}</Text>
                ) : null}
                <Text as="p" tone="subdued">
                  {job.finishedAt
                    ? t("import.startedFinished", { start: dateTime(job.createdAt), end: dateTime(job.finishedAt) })
                    : t("import.started", { start: dateTime(job.createdAt) })}
                </Text>
                {underway ? (
                  <InlineStack gap="200" blockAlign="center">
                    <Spinner size="small" accessibilityLabel={t("import.reading")} />
                    <Text as="p">
                      {job.status === "queued"
                        ? t("import.waiting")
                        : t(job.dryRun ? "import.progress.dryRun" : "import.progress.import", {
                            rows: plural("import.rows", job.rowsProcessed),
                          })}
                    </Text>
                  </InlineStack>
                ) : null}
                {job.resultDeletedAt ? (
                  <Text as="p" tone="subdued">
                    {t("import.reportDeleted", { time: dateTime(job.resultDeletedAt), days: retentionDays })}
                  </Text>
                ) : null}
                {job.resultUrl && job.resultExpiresAt ? (
                  <Text as="p">
                    <DownloadLink url={job.resultUrl}>{t("import.downloadReport")}</DownloadLink>{" "}
                    <Text as="span" tone="subdued">
                      {t("import.linkUntil", { time: dateTime(job.resultExpiresAt) })}
                    </Text>
                  </Text>
                ) : null}
              </BlockStack>
            </Card>

            {failure && !failure.ok ? (
              <Banner tone="critical" title={t("import.notStarted")}>
                <Text as="p">{failure.formError ?? Object.values(failure.fieldErrors)[0]}</Text>
              </Banner>
            ) : null}

            {job.status === "failed" ? (
              <Banner tone="critical" title={t(job.dryRun ? "import.failed.dryRun" : "import.failed.import")}>
                <BlockStack gap="200">
                  <Text as="p">{job.error}</Text>
                  <Text as="p">
                    {t("import.failed.whatToDo")}{" "}
                    {t(job.dryRun ? "import.failed.nothingWritten" : "import.failed.runAgain")}
                  </Text>
                  <InlineStack>
                    <Button onClick={chooseAnotherFile}>{t("import.startNew")}</Button>
                  </InlineStack>
                </BlockStack>
              </Banner>
            ) : null}

            {job.status === "succeeded" && report && job.dryRun && confirmedBy ? (
              <Banner
                tone="success"
                title={t("import.confirmed.title")}
                action={{ content: t("import.confirmed.view"), url: `/app/imports/${confirmedBy}` }}
                secondaryAction={{ content: t("import.anotherFile"), onAction: chooseAnotherFile }}
              >
                <Text as="p">{summary(report, i18n)}</Text>
              </Banner>
            ) : null}
            {job.status === "succeeded" && report && job.dryRun && !confirmedBy ? (
              <Banner
                tone="info"
                title={t("import.dryRunDone.title")}
                action={{
                  content: t("import.dryRunDone.confirm", { items: plural("import.items", report.totals.imported) }),
                  onAction: confirm,
                  disabled: !uploadKept,
                  loading: navigation.state === "submitting",
                }}
                secondaryAction={{ content: t("import.anotherFile"), onAction: chooseAnotherFile }}
              >
                <BlockStack gap="100">
                  <Text as="p">{summary(report, i18n)}</Text>
                  <Text as="p">
                    {report.totals.imported > 0 ? t("import.dryRunDone.step3") : t("import.dryRunDone.nothingNew")}
                  </Text>
                </BlockStack>
              </Banner>
            ) : null}
            {job.status === "succeeded" && report && !job.dryRun ? (
              <Banner tone="success" title={t("import.finished")}>
                <Text as="p">{summary(report, i18n)}</Text>
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
function summary(report: ImportReport, { t, plural }: Pick<Translator, "t" | "plural">) {
  const { imported, skipped, unchanged } = report.totals;
  return t(report.dryRun ? "import.summary.dryRun" : "import.summary.import", {
    items: plural("import.items", imported),
    unchanged,
    rows: plural("import.rows", skipped),
  });
}

function Totals({ report }: { report: ImportReport }) {
  const { rows, imported, unchanged, skipped, datesDefaulted, toDefaultList = 0 } = report.totals;
  const { t, number } = useI18n();
  const figures: Array<[string, number]> = [
    [t("import.totals.rows"), rows],
    [t(report.dryRun ? "import.totals.wouldBeImported" : "import.totals.imported"), imported],
    [t("import.totals.unchanged"), unchanged],
    [t("import.totals.skipped"), skipped],
    [t("import.totals.datesDefaulted"), datesDefaulted],
    // Only where it happened: rows naming a list the customer could not have.
    ...(toDefaultList > 0 ? [[t("import.totals.toDefaultList"), toDefaultList] as [string, number]] : []),
  ];
  return (
    <HeadedCard title={t("import.totals.heading")}>
      <InlineGrid columns={{ xs: 2, md: 5 }} gap="300">
        {figures.map(([label, value]) => (
          <BlockStack key={label} gap="100">
            <Text as="p" tone="subdued">
              {label}
            </Text>
            <Text as="p" variant="headingLg" numeric>
              {number(value)}
            </Text>
          </BlockStack>
        ))}
      </InlineGrid>
    </HeadedCard>
  );
}

function Columns({ report }: { report: ImportReport }) {
  const { mapped, unmapped, unmappedTruncated, missing } = report.columns;
  const { t } = useI18n();
  return (
    <HeadedCard title={t("import.columns.heading")}>
      <Text as="p">
        {t("import.columns.readAs", {
          format: report.format.variant ? `${report.format.label} (${report.format.variant})` : report.format.label,
          columns:
            mapped.map(({ header, field }) => `${header} → ${t(FIELD_LABELS[field])}`).join(", ") ||
            t("import.columns.noneRecognised"),
        })}
      </Text>
      {unmapped.length > 0 ? (
        <BlockStack gap="100">
          <Text as="h3" variant="headingSm">
            {t("import.columns.unplaced")}
          </Text>
          <Text as="p" tone="subdued">
            {t("import.columns.ignored")}
            {unmappedTruncated ? ` ${t("import.columns.truncated", { count: unmapped.length })}` : ""}
          </Text>
          <List type="bullet">
            {unmapped.map((header, index) => (
              <List.Item key={`${index}-${header}`}>{header === "" ? t("import.columns.noHeader") : header}</List.Item>
            ))}
          </List>
        </BlockStack>
      ) : null}
      {missing.length > 0 ? (
        <Text as="p" tone="critical">
          {t("import.columns.missing", { columns: missing.join(", ") })}
        </Text>
      ) : null}
    </HeadedCard>
  );
}

function Issues({ report }: { report: ImportReport }) {
  const skippedBy = Object.entries(report.totals.skippedBy) as Array<[ImportIssue["reason"], number]>;
  const { t } = useI18n();
  return (
    <Card padding="0">
      <BlockStack gap="200">
        <Box paddingInline="400" paddingBlockStart="400">
          <HeadingWithHint title={t("import.issues.heading")}>
            {skippedBy
              .map(([reason, count]) => t("import.issues.count", { reason: t(REASON_LABELS[reason]), count }))
              .join(" · ")}
            {report.issuesTruncated ? ` ${t("import.issues.truncated", { count: report.issues.length })}` : ""}
          </HeadingWithHint>
        </Box>
        <DataTable
          columnContentTypes={["numeric", "text", "text", "text"]}
          headings={[
            t("import.issues.line"),
            t("import.issues.reason"),
            t("import.issues.value"),
            t("import.issues.detail"),
          ]}
          rows={[...report.issues]
            .sort((a, b) => a.line - b.line)
            .map((issue) => [issue.line, t(REASON_LABELS[issue.reason]), issue.value ?? "", issue.detail])}
        />
      </BlockStack>
    </Card>
  );
}

export const ErrorBoundary = transferPageErrorBoundary("import.error");
