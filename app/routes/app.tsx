import type { HeadersFunction, LoaderFunctionArgs } from "@remix-run/node";
import {
  Link,
  Outlet,
  useLoaderData,
  useMatches,
  useRouteError,
  type ShouldRevalidateFunction,
} from "@remix-run/react";
import { NavMenu } from "@shopify/app-bridge-react";
import polarisStyles from "@shopify/polaris/build/esm/styles.css?url";
import { boundary } from "@shopify/shopify-app-remix/server";
import { FooterHelp, Link as PolarisLink, Text } from "@shopify/polaris";
import { AppProvider } from "@shopify/shopify-app-remix/react";
import { currentAdminPage, helpHref } from "~/admin/pages";
import { I18nProvider, useI18n } from "~/i18n/i18n-context";
import { polarisTranslations, resolveAdminLocale } from "~/i18n/locale.server";
import { getEnv } from "~/env.server";
import { authenticate } from "~/shopify.server";

export const links = () => [{ rel: "stylesheet", href: polarisStyles }];

export const loader = async ({ request }: LoaderFunctionArgs) => {
  await authenticate.admin(request);
  const env = getEnv();
  const locale = resolveAdminLocale(request);
  // APP_BRIDGE_URL: the local platform stand-in's App Bridge, in development and tests only.
  return {
    apiKey: env.SHOPIFY_API_KEY,
    appBridgeUrl: env.APP_BRIDGE_URL,
    locale,
    polaris: polarisTranslations(locale),
  };
};

// The admin's language comes with each document load (the platform's `locale` parameter); client-side
// navigations do not carry it, so the layout keeps what the document resolved (decision 034).
export const shouldRevalidate: ShouldRevalidateFunction = () => false;

export default function App() {
  const { apiKey, appBridgeUrl, locale, polaris } = useLoaderData<typeof loader>();
  return (
    <AppProvider isEmbeddedApp apiKey={apiKey} __APP_BRIDGE_URL={appBridgeUrl} i18n={polaris}>
      <I18nProvider locale={locale}>
        <AdminShell />
      </I18nProvider>
    </AppProvider>
  );
}

function AdminShell() {
  const { t } = useI18n();
  const page = currentAdminPage(useMatches());
  return (
    <>
      <NavMenu>
        <Link to="/app" rel="home">
          {t("nav.home")}
        </Link>
        <Link to="/app/analytics">{t("page.analytics")}</Link>
        <Link to="/app/insights">{t("page.insights")}</Link>
        <Link to="/app/lists">{t("page.lists")}</Link>
        <Link to="/app/settings">{t("page.settings")}</Link>
        <Link to="/app/alerts">{t("page.alerts")}</Link>
        <Link to="/app/keys">{t("page.keys")}</Link>
        <Link to="/app/webhooks">{t("page.webhooks")}</Link>
        <Link to="/app/imports">{t("page.imports")}</Link>
        <Link to="/app/exports">{t("page.exports")}</Link>
        <Link to="/app/privacy">{t("page.privacy")}</Link>
        <Link to="/app/plan">{t("page.plan")}</Link>
      </NavMenu>
      {/* App Bridge draws the page's title bar in the admin, outside this document: the document's own
          heading and main landmark are what a screen reader finds in the frame. */}
      <main>
        {page ? (
          <Text as="h1" visuallyHidden>
            {t(page.title)}
          </Text>
        ) : null}
        <Outlet />
        {page ? <HelpLink help={page.help} /> : null}
      </main>
    </>
  );
}

/** Every page's way to its guide, served by the app (/help), in a new tab: the admin keeps its place. */
function HelpLink({ help }: { help: Parameters<typeof helpHref>[0] }) {
  const { t, rich } = useI18n();
  return (
    <FooterHelp>
      {rich("help.text", {
        guide: (
          <PolarisLink url={helpHref(help)} target="_blank">
            {t(`help.guide.${help.guide}`)}
          </PolarisLink>
        ),
      })}
    </FooterHelp>
  );
}

// The platform's boundary helpers keep embedded-auth redirects and headers working.
export function ErrorBoundary() {
  return boundary.error(useRouteError());
}

export const headers: HeadersFunction = (headersArgs) => boundary.headers(headersArgs);
