import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { isHelpGuide, renderGuide } from "~/admin/help-guides.server";

/** A guide of docs/, served by the app for the admin's help links (app/admin/pages.ts); public, like /docs. */
export const loader = ({ params }: LoaderFunctionArgs) => {
  const guide = params.guide ?? "";
  if (!isHelpGuide(guide)) throw new Response("No such guide", { status: 404 });
  return renderGuide(guide);
};

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.title} · Wishlist help` : "Wishlist help" },
];

const STYLE = `
  body { margin: 0; font: 15px/1.6 system-ui, sans-serif; color: #1a1a1a; background: #f6f6f7; }
  main { max-width: 52rem; margin: 0 auto; padding: 2rem 1.5rem 4rem; background: #fff; }
  pre, code { font: 13px/1.5 ui-monospace, monospace; background: #f1f1f1; border-radius: 4px; }
  code { padding: 0 .2em; } pre { padding: .75rem; overflow-x: auto; } pre code { padding: 0; }
  table { border-collapse: collapse; display: block; overflow-x: auto; } th, td { border: 1px solid #ddd; padding: .3rem .5rem; vertical-align: top; }
  img { max-width: 100%; height: auto; border: 1px solid #ddd; }
  a { color: #005bd3; }
`;

export default function HelpGuide() {
  const { html } = useLoaderData<typeof loader>();
  return (
    <>
      <style>{STYLE}</style>
      {/* Our own guides, rendered on the server from the build (raw HTML in them is escaped). */}
      <main dangerouslySetInnerHTML={{ __html: html }} />
    </>
  );
}
