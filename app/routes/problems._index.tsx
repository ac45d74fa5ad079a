import type { MetaFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";
import { PROBLEM_TYPES } from "~/lib/problems";

export const meta: MetaFunction = () => [{ title: "Problem types | Wishlist service API" }];

export default function ProblemTypes() {
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", maxWidth: 720, margin: "3rem auto", lineHeight: 1.5 }}>
      <h1>Problem types</h1>
      <p>
        Errors of the API are <code>application/problem+json</code> documents (RFC 9457). Branch on the{" "}
        <code>type</code> URL, never on the message text.
      </p>
      <table>
        <thead>
          <tr>
            <th align="left">Type</th>
            <th align="left">Status</th>
            <th align="left">Title</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(PROBLEM_TYPES).map(([slug, problem]) => (
            <tr key={slug}>
              <td>
                <Link to={`/problems/${slug}`}>{slug}</Link>
              </td>
              <td>{problem.status}</td>
              <td>{problem.title}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}
