import { z } from "@hono/zod-openapi";

/**
 * Who owns a wishlist: a customer (platform id) or an anonymous browser (a UUID the client made once and
 * keeps). The anonymous id is an opaque capability: whoever holds it can read and change that guest
 * list, so it is never shown to anyone else, and it never identifies a person.
 */
export type Owner = { kind: "customer"; customerId: string } | { kind: "anonymous"; anonymousId: string };

/**
 * UUID versions 1-8 plus the all-zero and all-f UUIDs, in either case; stored lower-case. Written without
 * regex flags: the same source is the `pattern` of docs/openapi.json, where a flag cannot travel.
 */
export const ANONYMOUS_ID_PATTERN =
  /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|0{8}-0{4}-0{4}-0{4}-0{12}|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$/;

export const anonymousIdSchema = z
  .string()
  .regex(ANONYMOUS_ID_PATTERN, "must be a UUID (versions 1-8, or the nil or max UUID)")
  .transform((value) => value.toLowerCase())
  .openapi({ format: "uuid", example: "5b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c11" });

export function ownerWhere(owner: Owner) {
  return owner.kind === "customer"
    ? { customerId: owner.customerId, anonymousId: null }
    : { anonymousId: owner.anonymousId, customerId: null };
}

export function ownerEventFields(owner: Owner) {
  return owner.kind === "customer"
    ? { customerId: owner.customerId, anonymousId: null }
    : { customerId: null, anonymousId: owner.anonymousId };
}
