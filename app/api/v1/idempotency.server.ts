import { createHash } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { AppError } from "~/lib/problems";
import {
  completeIdempotencyKey,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
} from "~/services/idempotency/idempotency.server";
import type { Caller, V1Env } from "./context";
import { parseJsonOrUndefined, shopperKey } from "./shopper.server";

/** Headers of the original response that a replay repeats. */
const REPLAYED_HEADERS = ["content-type", "location"];
export const REPLAY_HEADER = "Idempotent-Replayed";

/**
 * Query parameters the platform's app proxy adds afresh each time it forwards a request: a shopper's retry
 * carries new values, so they are not part of the request's fingerprint (the shop and customer they sign
 * are, through the scope).
 */
const PROXY_SIGNING_PARAMETERS = new Set(["signature", "timestamp"]);

/**
 * Who the record belongs to, stored in its credential column: a private key acts for the whole shop, so its
 * id is the scope; the public key and the app proxy are shared by every shopper of the shop, so their
 * records are scoped per shopper (`public:a:<anonymous id>`, `proxy:c:<customer id>`, ...). One shopper's
 * key can then never replay another shopper's answer.
 */
export function idempotencyScope(caller: Caller, query: URLSearchParams, body: unknown): string {
  if (caller.mode === "private") return caller.credentialId;
  return `${caller.credentialId}:${shopperKey(caller, query, body) ?? "-"}`;
}

/** Method, path, the query string in canonical order (without the proxy's signing parameters) and body. */
function fingerprint(c: Context<V1Env>, query: URLSearchParams, body: string): string {
  const canonical = new URLSearchParams(
    [...query].filter(([name]) => !(c.get("caller").mode === "proxy" && PROXY_SIGNING_PARAMETERS.has(name))),
  );
  canonical.sort();
  return createHash("sha256")
    .update(JSON.stringify([c.req.method, c.req.path, canonical.toString(), body]))
    .digest("hex");
}

/**
 * Idempotency-Key on POST (docs/openapi.json): the first request runs and its status, body and content type
 * are kept for 24 hours, the body encrypted (services/idempotency); a retry from the same shopper with the
 * same request gets them back, marked `Idempotent-Replayed: true`, and repeats nothing. The same key with
 * another method, path, query or body is 422 `idempotency-key-reused`.
 */
export const idempotency: MiddlewareHandler<V1Env> = async (c, next) => {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return next();
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new AppError("invalid-parameter", {
      detail: "Idempotency-Key must be 1-255 visible ASCII characters.",
      errors: [{ parameter: "Idempotency-Key", detail: "1-255 visible ASCII characters" }],
    });
  }
  const caller = c.get("caller");
  const body = c.req.raw.body === null ? "" : await c.req.text();
  const query = new URL(c.req.url).searchParams;
  const reservation = await reserveIdempotencyKey(
    { shopId: caller.shopId, credentialId: idempotencyScope(caller, query, parseJsonOrUndefined(body)), key },
    fingerprint(c, query, body),
  );
  if (reservation.kind === "replay") {
    const { status, headers, body: stored } = reservation.response;
    return new Response(status === 204 ? null : stored, { status, headers: { ...headers, [REPLAY_HEADER]: "true" } });
  }
  try {
    await next();
  } catch (error) {
    await releaseIdempotencyKey(reservation.recordId);
    throw error;
  }
  const response = c.res;
  const headers = Object.fromEntries(
    REPLAYED_HEADERS.flatMap((name) => {
      const value = response.headers.get(name);
      return value === null ? [] : [[name, value]];
    }),
  );
  await completeIdempotencyKey(reservation, {
    status: response.status,
    headers,
    body: await response.clone().text(),
  });
};
