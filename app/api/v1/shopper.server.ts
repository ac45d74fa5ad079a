import { parsePlatformId } from "~/lib/ids";
import { anonymousIdSchema } from "~/services/wishlists/owner";
import type { Caller } from "./context";

/**
 * The shopper a storefront request acts for, as one key: `c:<customer id>` or `a:<anonymous id>`, or null
 * when the request names nobody. Both the per-shopper rate limit and the scope of Idempotency-Key records
 * use it (docs/decisions/008-rate-limit-keys.md), so the two always agree on who is who:
 *  - app proxy: the platform-signed customer id, else the anonymous id;
 *  - public key: the anonymous id only (a public key never acts as a customer);
 *  - private key: the customer named by `customerId` (query, else body), else the anonymous id.
 * Customer ids are in the canonical form of platform ids (`~/lib/ids`), as the routes store them.
 * The anonymous id is the `aid` query parameter, else the `anonymousId` body member, when it is well formed.
 */
export function shopperKey(caller: Caller, query: URLSearchParams, body: unknown): string | null {
  if (caller.mode === "proxy" && caller.customerId) return `c:${caller.customerId}`;
  if (caller.mode === "private") {
    const named = query.get("customerId") ?? bodyField(body, "customerId");
    const customer = named === null ? null : parsePlatformId(named, "Customer");
    if (customer) return `c:${customer}`;
  }
  const aid = anonymousIdSchema.safeParse(query.get("aid") ?? bodyField(body, "anonymousId"));
  return aid.success ? `a:${aid.data}` : null;
}

function bodyField(body: unknown, name: string): string | null {
  if (typeof body !== "object" || body === null || !(name in body)) return null;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === "string" || typeof value === "number" ? String(value) : null;
}

/** The parsed JSON body text, or undefined when there is none or it is not JSON (refused elsewhere). */
export function parseJsonOrUndefined(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
