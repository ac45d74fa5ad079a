import { createHash } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { AppError } from "~/lib/problems";
import {
  completeIdempotencyKey,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
} from "~/services/idempotency/idempotency.server";
import type { V1Env } from "./context";

/** Headers of the original response that a replay repeats. */
const REPLAYED_HEADERS = ["content-type", "location"];
export const REPLAY_HEADER = "Idempotent-Replayed";

/**
 * Idempotency-Key on POST: the first request runs and its status, body and content type are kept for
 * 24 hours; a retry gets them back, marked `Idempotent-Replayed: true`, and repeats nothing.
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
  const requestHash = createHash("sha256").update(`${c.req.method} ${c.req.path}\n${body}`).digest("hex");
  const reservation = await reserveIdempotencyKey(
    { shopId: caller.shopId, credentialId: caller.credentialId, key },
    requestHash,
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
  await completeIdempotencyKey(reservation.recordId, {
    status: response.status,
    headers,
    body: await response.clone().text(),
  });
};
