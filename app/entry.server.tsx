import { PassThrough } from "node:stream";
import { createReadableStreamFromReadable, type EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { getEnv } from "./env.server";
import { logger } from "./logger.server";
import { addDocumentResponseHeaders } from "./shopify.server";

export const streamTimeout = 5000;

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  // Embedded pages need the platform's frame-ancestors CSP and related headers.
  addDocumentResponseHeaders(request, responseHeaders);
  allowLocalAdmin(responseHeaders);
  const callbackName = isbot(request.headers.get("user-agent") ?? "") ? "onAllReady" : "onShellReady";

  return new Promise<Response>((resolve, reject) => {
    const { pipe, abort } = renderToPipeableStream(<RemixServer context={remixContext} url={request.url} />, {
      [callbackName]: () => {
        const body = new PassThrough();
        const stream = createReadableStreamFromReadable(body);
        responseHeaders.set("Content-Type", "text/html");
        resolve(new Response(stream, { headers: responseHeaders, status: responseStatusCode }));
        pipe(body);
      },
      onShellError(error) {
        reject(error);
      },
      onError(error) {
        responseStatusCode = 500;
        logger.error({ err: error, url: withoutSessionToken(request.url) }, "page render failed");
      },
    });
    setTimeout(abort, streamTimeout + 1000);
  });
}

/**
 * Development and tests: the local platform stand-in serves App Bridge (APP_BRIDGE_URL) and the admin
 * page that frames the app, so its origin may frame our pages too, and the preload hint names the
 * script the page really loads (docs/admin.md). Production never sets APP_BRIDGE_URL.
 */
function allowLocalAdmin(headers: Headers) {
  const appBridgeUrl = getEnv().APP_BRIDGE_URL;
  if (!appBridgeUrl) return;
  const policy = headers.get("Content-Security-Policy");
  if (policy?.startsWith("frame-ancestors ")) {
    headers.set(
      "Content-Security-Policy",
      policy.replace("frame-ancestors ", `frame-ancestors ${new URL(appBridgeUrl).origin} `),
    );
  }
  if (headers.has("Link")) headers.set("Link", `<${appBridgeUrl}>; rel="preload"; as="script";`);
}

/** The admin's document URLs carry a session token (`id_token`): a log line keeps the URL without it. */
function withoutSessionToken(url: string): string {
  const parsed = new URL(url);
  if (parsed.searchParams.has("id_token")) parsed.searchParams.set("id_token", "[redacted]");
  return parsed.href;
}
