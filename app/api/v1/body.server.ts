import type { IncomingMessage } from "node:http";
import { parse as parseContentType } from "content-type";
import type { Context, MiddlewareHandler } from "hono";
import { AppError } from "~/lib/problems";
import { clientAbortProblem, declaredLength, isClientAbort } from "../body-limit.server";
import type { V1Env } from "./context";

/**
 * The web server's Node request, when the body is to be read from it directly: a body of a declared
 * length (the body cap has checked the length already, and Node stops reading at it). Reading it through
 * the Fetch Request would make the server adapter build a full one, with a web stream over the socket: a
 * measurable share of a storefront save (docs/decisions/044-request-path-budgets.md). A chunked body is
 * read through the Fetch Request, where the body cap counts it while it streams; in-process (tests) there
 * is no Node request.
 */
function nodeRequestWithBody(c: Context<V1Env>): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  // A declared length of 0 (what a browser sends with a POST that has no body) is read through the Fetch
  // Request, which costs nothing then: read from the Node request, it would leave the Fetch Request's body
  // stream disturbed, and the OpenAPI router's media type check of a body sent without Content-Type builds
  // that Request and failed on it (a 500).
  const declared = declaredLength(c);
  return incoming && declared !== undefined && declared > 0 ? incoming : undefined;
}

/**
 * Whether the request may carry a body. A GET or HEAD body has no meaning here and is ignored; not
 * asking for it also spares the server adapter from building a full Fetch Request (a measurable share of
 * a wishlist read, docs/decisions/012-storefront-hot-paths.md).
 */
export function mayHaveBody(c: Context<V1Env>): boolean {
  if (c.req.method === "GET" || c.req.method === "HEAD") return false;
  return nodeRequestWithBody(c) !== undefined || c.req.raw.body !== null;
}

const JSON_MEDIA_TYPE = /^application\/([a-z0-9!#$&^_.-]+\+)?json$/;

const unsupported = (detail: string) =>
  new AppError("unsupported-media-type", {
    detail,
    headers: { "Accept-Post": "application/json", "Accept-Patch": "application/json" },
  });

/** A JSON media type, parsed as RFC 9110 writes it (`type/subtype` then `; name=value` parameters), or 415. */
function assertJsonMediaType(header: string | undefined): void {
  if (!header) throw unsupported("A body needs Content-Type: application/json.");
  let type: string;
  try {
    type = parseContentType(header).type;
  } catch {
    throw unsupported(
      `Content-Type ${JSON.stringify(header)} is not a valid media type (parameters are \`; name=value\`): ` +
        "send application/json.",
    );
  }
  if (!JSON_MEDIA_TYPE.test(type)) throw unsupported(`Content-Type ${type} is not accepted: send application/json.`);
}

async function readNodeBody(incoming: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  // As the Fetch Request's text() decodes: UTF-8, a leading byte order mark dropped, bad bytes replaced.
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/**
 * The body as text; a client that hangs up mid-body is a 400, not a failure of ours. Read once: a later
 * `c.req.text()` (idempotency's fingerprint, a route's check that a body was sent) gets the same text.
 */
async function readText(c: Context<V1Env>): Promise<string> {
  try {
    const incoming = nodeRequestWithBody(c);
    if (!incoming) return await c.req.text();
    const text = readNodeBody(incoming);
    // Hono keeps the promise of each body read (its type names the value).
    (c.req.bodyCache as { text?: Promise<string> }).text = text;
    return await text;
  } catch (error) {
    if (isClientAbort(error)) throw clientAbortProblem(c, error);
    throw error;
  }
}

/**
 * Bodies are JSON (the body cap is applied before this, at the HTTP application). Another or a malformed
 * media type is 415, text that is not JSON is 400, and a route that requires a body answers an empty one
 * sent as JSON with 400 `body-required` (where the body is optional, an empty one is no body). A request with neither
 * body nor Content-Type is left to the route's schema.
 *
 * The body is parsed here, once per request: the value is kept in the context (`jsonBody`) for the shopper's
 * key (shopper.server.ts), and the route's validator reads the same value instead of parsing the text again.
 */
export function requireJsonBody(bodyRequired: boolean): MiddlewareHandler<V1Env> {
  return async (c, next) => {
    if (mayHaveBody(c)) {
      const text = await readText(c);
      const type = c.req.header("content-type");
      let parsed: unknown;
      if (text.length === 0) {
        if (bodyRequired && type !== undefined) {
          assertJsonMediaType(type);
          throw new AppError("body-required", {
            detail: "A JSON body is required, and this one is empty: send a JSON document (at least {}).",
          });
        }
        // An optional body sent empty is no body: the route's validator reads it as {}, as it does when no
        // Content-Type comes with it.
        if (type !== undefined) parsed = {};
      } else {
        assertJsonMediaType(type);
        try {
          parsed = JSON.parse(text);
        } catch (error) {
          throw new AppError("malformed-json", { detail: `The body is not valid JSON: ${(error as Error).message}` });
        }
      }
      if (parsed !== undefined) {
        c.set("jsonBody", parsed);
        const value = parsed;
        // Hono's validator reads the body through `c.req.json()`, which would parse the text again.
        c.req.json = (() => Promise.resolve(value)) as typeof c.req.json;
      }
    }
    await next();
  };
}
