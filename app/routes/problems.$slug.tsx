import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { isProblemSlug, PROBLEM_TYPES } from "~/lib/problems";

export const loader = ({ params }: LoaderFunctionArgs) => {
  const slug = params.slug ?? "";
  if (!isProblemSlug(slug)) throw new Response("Unknown problem type", { status: 404 });
  return { slug, ...PROBLEM_TYPES[slug] };
};

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.title} | Wishlist service API` : "Problem type" },
];

export default function ProblemType() {
  const problem = useLoaderData<typeof loader>();
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", maxWidth: 720, margin: "3rem auto", lineHeight: 1.5 }}>
      <p>
        <Link to="/problems">All problem types</Link>
      </p>
      <h1>{problem.title}</h1>
      <p>
        HTTP status <strong>{problem.status}</strong> &middot; type slug <code>{problem.slug}</code>
      </p>
      <p>
        {/* Descriptions mark code with backticks; render those spans as code. */}
        {problem.description.split("`").map((part, index) => (index % 2 ? <code key={index}>{part}</code> : part))}
      </p>
    </main>
  );
}
