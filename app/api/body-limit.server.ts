import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "~/lib/problems";
import { logger } from "~/logger.server";
import { FILES_PATH } from "~/services/storage/local.server";

/**
 * Request body caps, enforced before any handler reads a byte (issue 11, item 4). A body with a
 * `Content-Length` over the cap is refused from its headers alone; a chunked body is counted while it
 * streams and refused as soon as it passes the cap, so memory never grows with what a client sends.
 * Over the cap: 413 `payload-too-large`; the rest of the body is never parsed. The web server reads and
 * discards what still arrives, within bounds, so a client still sending can read the answer instead of a
 * connection reset (server/lingering-close.ts).
 */

/**
 * The largest JSON body of the /v1 API (and /proxy/v1). The largest legitimate one is PATCH
 * /v1/shop/settings: up to 50 `headlessOrigins` of 255 characters (about 13 KB) plus storefront `strings`
 * (texts of up to 500 characters per key and locale); 256 KiB holds a few hundred such texts.
 */
export const API_BODY_LIMIT_BYTES = 256 * 1024;

/**
 * Every other body the web process reads: the platform's webhooks (`/webhooks/*`, whose HMAC can only be
 * checked once the body is read) and the embedded admin's forms. Platform webhook payloads are a few KB.
 */
export const OTHER_BODY_LIMIT_BYTES = 1024 * 1024;

const readable = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB` : `${Math.round(bytes / 1024)} KiB`;

function limitFor(path: string): number | undefined {
  // Uploads to signed file URLs have their own cap (50 MB), counted while streaming (files.server.ts).
  if (path.startsWith(FILES_PATH)) return undefined;
  if (path === "/v1" || path.startsWith("/v1/") || path === "/proxy/v1" || path.startsWith("/proxy/v1/")) {
    return API_BODY_LIMIT_BYTES;
  }
  return OTHER_BODY_LIMIT_BYTES;
}

export function payloadTooLarge(maxBytes: number, what = "The request body"): AppError {
  return new AppError("payload-too-large", {
    detail: `${what} is larger than ${maxBytes} bytes (${readable(maxBytes)}).`,
    extensions: { maxBytes },
  });
}

const limits = new Map<number, MiddlewareHandler>();

function limiter(maxBytes: number): MiddlewareHandler {
  let limit = limits.get(maxBytes);
  if (!limit) {
    limit = bodyLimit({
      maxSize: maxBytes,
      onError: () => {
        throw payloadTooLarge(maxBytes);
      },
    });
    limits.set(maxBytes, limit);
  }
  return limit;
}

/** The length a body declares (Content-Length without Transfer-Encoding); undefined for a chunked one. */
export function declaredLength(c: Context): number | undefined {
  const declared = c.req.header("content-length");
  return declared !== undefined && c.req.header("transfer-encoding") === undefined
    ? Number.parseInt(declared, 10)
    : undefined;
}

/** The body cap of the path, applied to every request that may carry a body. */
export const limitRequestBody: MiddlewareHandler = async (c, next) => {
  // GET and HEAD bodies are never read; not touching `body` also spares building a full Fetch Request.
  if (c.req.method === "GET" || c.req.method === "HEAD") return next();
  const maxBytes = limitFor(c.req.path);
  if (maxBytes === undefined) return next();
  // A declared length is judged from the header alone, as the library does, but without asking for the
  // Fetch Request's body: that would start a web stream over the socket, and the JSON body rules read a
  // body of a declared length from the Node request instead (v1/body.server.ts).
  const declared = declaredLength(c);
  if (declared !== undefined) {
    if (declared > maxBytes) throw payloadTooLarge(maxBytes);
    return next();
  }
  return limiter(maxBytes)(c, next);
};

/**
 * Errors that only mean the client stopped sending its body (it hung up, or the connection reset):
 * nothing is wrong on our side, so they are a 400 and are not logged as failures.
 */
export function isClientAbort(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ECONNRESET" || code === "ERR_STREAM_PREMATURE_CLOSE" || code === "UND_ERR_ABORTED") return true;
  if (error.name === "AbortError") return true;
  return error.cause !== undefined && error.cause !== error && isClientAbort(error.cause);
}

export function clientAbortProblem(c: Context, error: unknown): AppError {
  logger.debug({ err: error, path: c.req.path }, "the client closed the connection before the body was read");
  return new AppError("bad-request", {
    detail: "The request body ended early: the connection was closed before all of it arrived.",
    cause: error,
  });
}
