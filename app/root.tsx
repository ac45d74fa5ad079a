import type { MetaFunction } from "@remix-run/node";
import { Links, Meta, Outlet, Scripts, useLocation, useMatches, useRouteLoaderData } from "@remix-run/react";
import { documentTitle } from "~/admin/pages";
import { DEFAULT_ADMIN_LOCALE } from "~/i18n/locales";
import { createTranslator } from "~/i18n/translate";
import type { loader as adminLoader } from "~/routes/app";

const isAdminPath = (pathname: string) => pathname === "/app" || pathname.startsWith("/app/");

// Every document has a title. A route's meta sees only the matches down to its own route (Remix), so the root's
// cannot see the admin page below it: the admin's documents take their title (app/admin/pages.ts) in the
// component, where useMatches sees the whole page; other documents keep "Wishlist" or their route's own meta.
export const meta: MetaFunction = ({ location }) => (isAdminPath(location.pathname) ? [] : [{ title: "Wishlist" }]);

// No <ScrollRestoration />: the admin runs in the platform's frame, a third-party context where the
// browser may refuse sessionStorage (third-party cookies blocked), and its inline script would throw.
export default function App() {
  const matches = useMatches();
  const { pathname } = useLocation();
  // The admin's language (resolved by its layout, app.tsx); every other document is English.
  const locale = useRouteLoaderData<typeof adminLoader>("routes/app")?.locale ?? DEFAULT_ADMIN_LOCALE;
  return (
    <html lang={locale}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <link rel="preconnect" href="https://cdn.shopify.com/" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        {isAdminPath(pathname) ? <title>{documentTitle(matches, createTranslator(locale))}</title> : null}
        <Meta />
        <Links />
      </head>
      <body>
        <Outlet />
        <Scripts />
      </body>
    </html>
  );
}
