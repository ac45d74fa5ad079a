import type { Context } from "hono";
import type { V1Env } from "./context";

/**
 * Whether the request may carry a body. A GET or HEAD body has no meaning here and is ignored; not
 * asking for it also spares the server adapter from building a full Fetch Request (a measurable share of
 * a wishlist read, decision 012).
 */
export function mayHaveBody(c: Context<V1Env>): boolean {
  return c.req.method !== "GET" && c.req.method !== "HEAD" && c.req.raw.body !== null;
}
