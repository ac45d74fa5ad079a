import type { HeadersFunction, LoaderFunctionArgs } from "@remix-run/node";
import { Link, Outlet, useLoaderData, useMatches, useRouteError } from "@remix-run/react";
import { NavMenu } from "@shopify/app-bridge-react";
import polarisStyles from "@shopify/polaris/build/esm/styles.css?url";
import { boundary } from "@shopify/shopify-app-remix/server";
import { Text } from "@shopify/polaris";
import { AppProvider } from "@shopify/shopify-app-remix/react";
import { currentAdminPage } from "~/admin/pages";
import { getEnv } from "~/env.server";
import { authenticate } from "~/shopify.server";

export const links = () => [{ rel: "stylesheet", href: polarisStyles }];

export const loader = async ({ request }: LoaderFunctionArgs) => {
  await authenticate.admin(request);
  const env = getEnv();
  // APP_BRIDGE_URL: the local platform stand-in's App Bridge, in development and tests only.
  return { apiKey: env.SHOPIFY_API_KEY, appBridgeUrl: env.APP_BRIDGE_URL };
};

export default function App() {
  const { apiKey, appBridgeUrl } = useLoaderData<typeof loader>();
  const page = currentAdminPage(useMatches());
  return (
    <AppProvider isEmbeddedApp apiKey={apiKey} __APP_BRIDGE_URL={appBridgeUrl}>
      <NavMenu>
        <Link to="/app" rel="home">
          Home
        </Link>
        <Link to="/app/analytics">Analytics</Link>
        <Link to="/app/lists">Lists</Link>
        <Link to="/app/settings">Settings</Link>
        <Link to="/app/keys">API keys</Link>
        <Link to="/app/webhooks">Webhooks</Link>
        <Link to="/app/imports">Imports</Link>
        <Link to="/app/exports">Exports</Link>
        <Link to="/app/privacy">Privacy requests</Link>
      </NavMenu>
      {/* App Bridge draws the page's title bar in the admin, outside this document: the document's own
          heading and main landmark are what a screen reader finds in the frame. */}
      <main>
        {page ? (
          <Text as="h1" visuallyHidden>
            {page.title}
          </Text>
        ) : null}
        <Outlet />
      </main>
    </AppProvider>
  );
}

// The platform's boundary helpers keep embedded-auth redirects and headers working.
export function ErrorBoundary() {
  return boundary.error(useRouteError());
}

export const headers: HeadersFunction = (headersArgs) => boundary.headers(headersArgs);
