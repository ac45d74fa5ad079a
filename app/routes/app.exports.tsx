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
  isUnderway,
  JobStatusBadge,
  transferPageErrorBoundary,
  useRefreshWhile,
} from "~/components/TransferJobs";
import { getEnv } from "~/env.server";
import { useI18n } from "~/i18n/i18n-context";
import type { MessageKey } from "~/i18n/translate";
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

const KIND_TEXT: Record<NonNullable<TransferJobView["format"]>, MessageKey> = {
  csv: "exports.kind.csv",
  marketing_csv: "exports.kind.marketing",
  csv_six_columns: "exports.kind.sixColumns",
};

export default function Exports() {
  const { exports } = useLoaderData<typeof loader>();
  const fetcher = useFetcher<typeof action>();
  const shopify = useAppBridge();
  const starting = fetcher.state !== "idle";
  const { t } = useI18n();
  useRefreshWhile(exports.some((job) => isUnderway(job.status)));

  const startedId = fetcher.data?.ok ? fetcher.data.jobId : null;
  useEffect(() => {
    if (startedId) shopify.toast.show(t("exports.started"));
  }, [startedId, shopify, t]);

  const exportCsv = () => fetcher.submit({ format: "csv" }, { method: "post" });
  const exportForMarketing = () => fetcher.submit({ format: "marketing_csv" }, { method: "post" });
  const latest = exports[0];
  const failure = fetcher.data && !fetcher.data.ok ? fetcher.data : null;

  return (
    <Page>
      <TitleBar title={t("page.exports")}>
        <button variant="primary" onClick={exportCsv} disabled={starting}>
          {t("exports.exportCsv")}
        </button>
        <button onClick={exportForMarketing} disabled={starting}>
          {t("exports.exportMarketing")}
        </button>
      </TitleBar>
      <Layout>
        {failure ? (
          <Layout.Section>
            <Banner tone="critical" title={t("exports.notStarted")}>
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
                heading={t("exports.emptyHeading")}
                action={{ content: t("exports.exportCsv"), onAction: exportCsv, loading: starting }}
                secondaryAction={{ content: t("exports.exportMarketing"), onAction: exportForMarketing }}
                image="/empty-transfers.svg"
              >
                <Text as="p">{t("exports.emptyBody")}</Text>
                <Text as="p">{t("exports.emptyMarketing")}</Text>
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
  const { t, plural, dateTime } = useI18n();
  const marketing = job.format === "marketing_csv";
  return (
    <Card>
      <BlockStack gap="200">
        <InlineStack gap="200" blockAlign="center">
          <Text as="h2" variant="headingMd">
            {t("exports.latest")}
          </Text>
          <JobStatusBadge status={job.status} />
        </InlineStack>
        <Text as="p" tone="subdued">
          {t(marketing ? "exports.startedMarketing" : "exports.startedCsv", { time: dateTime(job.createdAt) })}{" "}
          {t(KIND_TEXT[job.format ?? "csv"])}
        </Text>
        {isUnderway(job.status) ? (
          <InlineStack gap="200" blockAlign="center">
            <Spinner size="small" accessibilityLabel={t("exports.exporting")} />
            <Text as="p">
              {job.status === "queued" ? t("exports.waiting") : t("exports.writing", { count: job.rowsProcessed })}
            </Text>
          </InlineStack>
        ) : null}
        {job.status === "succeeded" && job.resultUrl && job.resultExpiresAt ? (
          <BlockStack gap="100">
            <Text as="p">
              {plural("exports.itemsExported", job.rowsProcessed)}{" "}
              <DownloadLink url={job.resultUrl}>{t("exports.download", { file: fileName(job) })}</DownloadLink>
            </Text>
            <Text as="p" tone="subdued">
              {t(marketing ? "exports.linkUntilMarketing" : "exports.linkUntil", {
                time: dateTime(job.resultExpiresAt),
                days: retentionDays,
              })}
            </Text>
          </BlockStack>
        ) : null}
        {job.status === "succeeded" && job.resultDeletedAt ? (
          <Text as="p" tone="subdued">
            {plural("exports.itemsExported", job.rowsProcessed)}{" "}
            {t("exports.fileDeleted", { time: dateTime(job.resultDeletedAt), days: retentionDays })}
          </Text>
        ) : null}
        {job.status === "failed" ? (
          <Banner tone="critical" title={t("exports.failed")}>
            <Text as="p">{t("exports.failedBody", { error: job.error ?? "" })}</Text>
          </Banner>
        ) : null}
      </BlockStack>
    </Card>
  );
}

function PastExports({ exports }: { exports: TransferJobView[] }) {
  const { t, dateTime, number } = useI18n();
  return (
    <Card padding="0">
      <Box paddingInline="400" paddingBlockStart="400">
        <Text as="h2" variant="headingMd">
          {t("exports.past")}
        </Text>
      </Box>
      <DataTable
        columnContentTypes={["text", "text", "numeric", "text"]}
        headings={[
          t("exports.column.started"),
          t("exports.column.status"),
          t("exports.column.items"),
          t("exports.column.file"),
        ]}
        rows={exports.map((job) => [
          dateTime(job.createdAt),
          <JobStatusBadge key="status" status={job.status} />,
          isUnderway(job.status) || job.status === "failed" ? "–" : number(job.rowsProcessed),
          job.resultUrl ? (
            <DownloadLink key="file" url={job.resultUrl}>
              {fileName(job)}
            </DownloadLink>
          ) : job.resultDeletedAt ? (
            t("exports.deletedOn", { time: dateTime(job.resultDeletedAt) })
          ) : (
            (job.error ?? "–")
          ),
        ])}
      />
    </Card>
  );
}

export const ErrorBoundary = transferPageErrorBoundary("exports.error");
