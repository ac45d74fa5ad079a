import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Link } from "@remix-run/react";

export const meta: MetaFunction = () => [{ title: "Wishlist service" }];

export const loader = async ({ request }: LoaderFunctionArgs) => {
  // The platform opens the app at "/?shop=...&host=..."; send it into the embedded admin.
  const url = new URL(request.url);
  if (url.searchParams.get("shop")) throw redirect(`/app?${url.searchParams.toString()}`);
  return null;
};

export default function Index() {
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", maxWidth: 640, margin: "4rem auto", lineHeight: 1.5 }}>
      <h1>Wishlist service</h1>
      <p>Wishlists for Shopify shops: a theme heart button, an embedded admin and a versioned REST API.</p>
      <ul>
        <li>
          <Link to="/auth/login">Merchant log in</Link>
        </li>
        <li>
          <Link to="/problems">Problem types of the API</Link>
        </li>
        <li>
          <a href="/healthz">Health</a> and <a href="/readyz">readiness</a>
        </li>
      </ul>
    </main>
  );
}
