import type { MetaFunction } from "@remix-run/node";
import { Links, Meta, Outlet, Scripts } from "@remix-run/react";
import { documentTitle } from "~/admin/pages";

// Every document has a title (the admin's pages take theirs from app/admin/pages.ts).
export const meta: MetaFunction = ({ matches }) => [{ title: documentTitle(matches) }];

// No <ScrollRestoration />: the admin runs in the platform's frame, a third-party context where the
// browser may refuse sessionStorage (third-party cookies blocked), and its inline script would throw.
export default function App() {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <link rel="preconnect" href="https://cdn.shopify.com/" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
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
