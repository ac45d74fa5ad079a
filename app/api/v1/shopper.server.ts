/**
 * The shopper a storefront request acts for, as one key (`ownerKey` of services/owners/owner.ts:
 * `c:<customer id>` or `a:<anonymous id>`), or null when the request names nobody. Both the per-shopper
 * rate limit and the scope of Idempotency-Key records use it (docs/decisions/008-rate-limit-keys.md), so
 * the two always agree on who is who. It is resolved once per request, from the JSON body parsed once
 * (`jsonBody`, body.server.ts), and kept in the context:
 *  - app proxy: the platform-signed customer id, else the anonymous id;
 *  - public key: the anonymous id only (a public key never acts as a customer);
 *  - private key: the customer named by `customerId` (query, else body), else the anonymous id.
 * Values are read with the same rules as the routes' schemas: customer ids in the canonical form of platform
 * ids (`~/lib/ids`), the anonymous id (the `aid` query parameter, else the `anonymousId` body member) only
 * when it is well formed. The rate limit runs before the route's validation (a request that fails it still
 * counts), so a malformed member names nobody here rather than failing the request.
 */
import type { Context } from "hono";
import { parsePlatformId } from "~/lib/ids";
import { ownerKey, parseAnonymousId } from "~/services/owners/owner";
import type { V1Env } from "./context";

export function shopperOf(c: Context<V1Env>): string | null {
  let key = c.get("shopper");
  if (key === undefined) {
    key = resolveShopper(c);
    c.set("shopper", key);
  }
  return key;
}

function resolveShopper(c: Context<V1Env>): string | null {
  const caller = c.get("caller");
  const body = c.get("jsonBody");
  if (caller.mode === "proxy" && caller.customerId)
    return ownerKey({ kind: "customer", customerId: caller.customerId });
  if (caller.mode === "private") {
    const named = c.req.query("customerId") ?? bodyField(body, "customerId");
    const customerId = named === null ? null : parsePlatformId(named, "Customer");
    if (customerId) return ownerKey({ kind: "customer", customerId });
  }
  const anonymousId = parseAnonymousId(c.req.query("aid") ?? bodyField(body, "anonymousId"));
  return anonymousId === null ? null : ownerKey({ kind: "anonymous", anonymousId });
}

function bodyField(body: unknown, name: string): string | null {
  if (typeof body !== "object" || body === null || !(name in body)) return null;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === "string" || typeof value === "number" ? String(value) : null;
}
