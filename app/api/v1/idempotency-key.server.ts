/**
 * Idempotency-Key on POST (docs/openapi.json): the middleware reserves the key before the route runs and
 * completes the record with the route's response after it; a route whose service takes a unit of work
 * completes it inside the service's transaction instead (`idempotentReply`), so a process that dies after
 * the change commits cannot leave a record that lets a retry run the change again.
 */
import { createHash } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import type { UnitOfWork } from "~/data/database.server";
import { AppError } from "~/lib/problems";
import {
  completeIdempotencyKey,
  discardIdempotencyKey,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
  type StoredResponse,
} from "~/services/idempotency/idempotency.server";
import { mayHaveBody } from "./body.server";
import type { Caller, ReservedKey, V1Env } from "./context";
import { shopperOf } from "./shopper.server";

/** Headers of the original response that a replay repeats. */
const REPLAYED_HEADERS = ["content-type", "location"];
const REPLAY_HEADER = "Idempotent-Replayed";

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
function idempotencyScope(c: Context<V1Env>, caller: Caller): string {
  if (caller.mode === "private") return caller.credentialId;
  return `${caller.credentialId}:${shopperOf(c).key ?? "-"}`;
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

/** What of a response a replay repeats: status, the replayed headers, the body. */
async function storedResponse(response: Response): Promise<StoredResponse> {
  const headers = Object.fromEntries(
    REPLAYED_HEADERS.flatMap((name) => {
      const value = response.headers.get(name);
      return value === null ? [] : [[name, value]];
    }),
  );
  return { status: response.status, headers, body: await response.clone().text() };
}

/**
 * How a route answers so that its Idempotency-Key record commits with the change: `unit` goes to the
 * service as its unit of work (undefined without a reserved key); `respond` builds the response from the
 * service's result, inside the transaction; `send(result)` answers with that response (or builds it, when
 * no key was reserved).
 *
 *     const reply = idempotentReply(c, (created: Created) => c.json(serialize(created), 201));
 *     const created = await createThing(input, reply.unit);
 *     return reply.send(created);
 */
export function idempotentReply<R, T extends Response>(c: Context<V1Env>, respond: (result: R) => T) {
  const reserved = c.get("idempotencyKey");
  let stored: T | undefined;
  const unit: UnitOfWork<R> | undefined = reserved && {
    within: async (tx, result) => {
      stored = respond(result);
      await reserved.completeWithin(tx, stored);
    },
  };
  return {
    unit,
    send(result: R): T {
      if (!reserved || !stored) return respond(result);
      reserved.completedWithChange = true;
      return stored;
    },
  };
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
  // The text the JSON body rules read (body.server.ts), not a second read of the request.
  const body = mayHaveBody(c) ? await c.req.text() : "";
  const query = new URL(c.req.url).searchParams;
  const reservation = await reserveIdempotencyKey(
    { shopId: caller.shopId, credentialId: idempotencyScope(c, caller), key },
    fingerprint(c, query, body),
  );
  if (reservation.kind === "replay") {
    const { status, headers, body: stored } = reservation.response;
    return new Response(status === 204 ? null : stored, { status, headers: { ...headers, [REPLAY_HEADER]: "true" } });
  }
  const reserved: ReservedKey = {
    completeWithin: async (tx, response) => completeIdempotencyKey(reservation, await storedResponse(response), tx),
    completedWithChange: false,
  };
  c.set("idempotencyKey", reserved);
  try {
    await next();
  } catch (error) {
    // Deletes only a record still in flight: one completed with the change keeps its response.
    await releaseIdempotencyKey(reservation);
    throw error;
  }
  if (reserved.completedWithChange) return;
  if (c.res.status >= 500) {
    await discardIdempotencyKey(reservation);
    return;
  }
  await completeIdempotencyKey(reservation, await storedResponse(c.res));
};
