import { isRouteErrorResponse, useRevalidator, useRouteError } from "@remix-run/react";
import { Badge, Banner, Layout, Page, Text } from "@shopify/polaris";
import { useEffect, type ReactNode } from "react";
import { useI18n } from "~/i18n/i18n-context";
import type { MessageKey } from "~/i18n/translate";

/** What the Imports and Exports pages share: job statuses, download links, live refresh (times and counts: useI18n). */

type JobStatus = "queued" | "running" | "succeeded" | "failed";

export const isUnderway = (status: JobStatus) => status === "queued" || status === "running";

const STATUS_BADGES: Record<JobStatus, { label: MessageKey; tone?: "info" | "success" | "critical" }> = {
  queued: { label: "jobs.status.queued" },
  running: { label: "jobs.status.running", tone: "info" },
  succeeded: { label: "jobs.status.succeeded", tone: "success" },
  failed: { label: "jobs.status.failed", tone: "critical" },
};

export function JobStatusBadge({ status }: { status: JobStatus }) {
  const { t } = useI18n();
  const { label, tone } = STATUS_BADGES[status];
  return (
    <Badge
      tone={tone}
      progress={status === "succeeded" ? "complete" : isUnderway(status) ? "partiallyComplete" : undefined}
    >
      {t(label)}
    </Badge>
  );
}

/**
 * A link to a signed file URL. A plain anchor: the admin's link component routes same-origin addresses
 * inside the app, and the local storage driver's files are served from the app's own origin.
 */
export function DownloadLink({ url, children }: { url: string; children: ReactNode }) {
  return (
    <a href={url} download className="Polaris-Link">
      {children}
    </a>
  );
}

/** Reloads the page's data about once a second while `active` (a job is queued or running). */
export function useRefreshWhile(active: boolean, intervalMs = 1_000) {
  const revalidator = useRevalidator();
  useEffect(() => {
    if (!active || revalidator.state !== "idle") return;
    const timer = setTimeout(() => revalidator.revalidate(), intervalMs);
    return () => clearTimeout(timer);
  }, [active, revalidator, intervalMs]);
}

/**
 * The error boundary of a transfers page: a job that does not exist (a 404 of the page's loader) or an
 * unexpected failure, as a critical banner. Other responses (the platform's embedded-auth answers) go on
 * to the app's boundary.
 */
function TransferPageError({ title }: { title: string }) {
  const error = useRouteError();
  const { t } = useI18n();
  let message: string;
  if (isRouteErrorResponse(error)) {
    const data = error.data as { message?: unknown } | null;
    if (error.status !== 404 || typeof data?.message !== "string") throw error;
    message = data.message;
  } else {
    message = error instanceof Error ? error.message : t("jobs.somethingWrong");
  }
  return (
    <Page>
      <Layout>
        <Layout.Section>
          <Banner tone="critical" title={title}>
            <Text as="p">{message}</Text>
          </Banner>
        </Layout.Section>
      </Layout>
    </Page>
  );
}

/** A transfers page's `ErrorBoundary` export, by the banner's title. */
export function transferPageErrorBoundary(title: MessageKey) {
  return function ErrorBoundary() {
    const { t } = useI18n();
    return <TransferPageError title={t(title)} />;
  };
}
