import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { TitleBar } from "@shopify/app-bridge-react";
import { Banner, Page, Text } from "@shopify/polaris";
import { useI18n } from "~/i18n/i18n-context";
import type { MessageKey } from "~/i18n/translate";

/** What went wrong, for a merchant: a thrown response's own text or `message`, else its status. */
export function routeErrorMessage(error: unknown, unknown = "Unknown error"): string {
  if (isRouteErrorResponse(error)) {
    const data = error.data as unknown;
    if (typeof data === "string") return `${error.status} ${data}`;
    const message = (data as { message?: unknown } | null)?.message;
    return `${error.status} ${typeof message === "string" ? message : error.statusText}`;
  }
  return error instanceof Error ? error.message : unknown;
}

/** An admin page's error boundary: its title bar and a banner saying what could not be shown, and why. */
function PageError({
  pageTitle,
  title,
  backAction,
}: {
  pageTitle: string;
  title: string;
  backAction?: { content: string; url: string };
}) {
  const { t } = useI18n();
  return (
    <Page backAction={backAction}>
      <TitleBar title={pageTitle} />
      <Banner tone="critical" title={title}>
        <Text as="p">{routeErrorMessage(useRouteError(), t("error.unknown"))}</Text>
      </Banner>
    </Page>
  );
}

/**
 * A page's `ErrorBoundary` export, by its messages: the page's title, the banner's, and where the back
 * action leads, if the page has one.
 */
export function pageErrorBoundary(
  pageTitle: MessageKey,
  title: MessageKey,
  back?: { content: MessageKey; url: string },
) {
  return function ErrorBoundary() {
    const { t } = useI18n();
    return (
      <PageError
        pageTitle={t(pageTitle)}
        title={t(title)}
        backAction={back ? { content: t(back.content), url: back.url } : undefined}
      />
    );
  };
}
