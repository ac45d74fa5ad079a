import { z } from "@hono/zod-openapi";

/**
 * Who owns a wishlist: a customer (platform id) or an anonymous browser (a UUID the client made once and
 * keeps). The anonymous id is an opaque capability: whoever holds it can read and change that guest
 * list, so it is never shown to anyone else, and it never identifies a person.
 */
export type Owner = { kind: "customer"; customerId: string } | { kind: "anonymous"; anonymousId: string };

/** Spec 4: UUID versions 1-8 plus the all-zero and all-f UUIDs; stored lower-case. */
export const anonymousIdSchema = z
  .string()
  .regex(
    /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|0{8}-0{4}-0{4}-0{4}-0{12}|f{8}-f{4}-f{4}-f{4}-f{12})$/i,
    "must be a UUID (versions 1-8, or the nil or max UUID)",
  )
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
