/**
 * Who owns a wishlist, in one place: a customer (platform id) or an anonymous browser (a UUID the client
 * made once and keeps). The anonymous id is an opaque capability: whoever holds it can read and change
 * that guest list, so it is never shown to anyone else, and it never identifies a person. The owner is
 * stored in a list's `customerId` / `anonymousId` columns (one set, the other null), written into item
 * events the same way, keyed as `c:<customer id>` / `a:<anonymous id>` (rate limits, Idempotency-Key
 * scopes, active owners: docs/decisions/008-rate-limit-keys.md) and shown as `{ type, customerId }`
 * (the Owner schema of docs/openapi.json).
 */

export type Owner = { kind: "customer"; customerId: string } | { kind: "anonymous"; anonymousId: string };

/** The owner columns of a list row, and the owner members of an item event: one set, the other null. */
export interface OwnerColumns {
  customerId: string | null;
  anonymousId: string | null;
}

/**
 * UUID versions 1-8 plus the all-zero and all-f UUIDs, in either case; stored lower-case. Written without
 * regex flags: the same source is the `pattern` of docs/openapi.json, where a flag cannot travel.
 */
export const ANONYMOUS_ID_PATTERN =
  /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|0{8}-0{4}-0{4}-0{4}-0{12}|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$/;

/** The owner as one key: `c:<customer id>` or `a:<anonymous id>`. */
export function ownerKey(owner: Owner): string {
  return owner.kind === "customer" ? `c:${owner.customerId}` : `a:${owner.anonymousId}`;
}

export function ownerColumns(owner: Owner): OwnerColumns {
  return owner.kind === "customer"
    ? { customerId: owner.customerId, anonymousId: null }
    : { customerId: null, anonymousId: owner.anonymousId };
}

/** The owner of a list row or an item event (a customer when `customerId` is set). */
export function ownerOfColumns({ customerId, anonymousId }: OwnerColumns): Owner {
  return customerId ? { kind: "customer", customerId } : { kind: "anonymous", anonymousId: anonymousId ?? "" };
}

/** The owner as the API shows it: the anonymous id is never shown. */
export function ownerView(owner: Owner) {
  return owner.kind === "customer"
    ? { type: "customer" as const, customerId: owner.customerId }
    : { type: "anonymous" as const, customerId: null };
}
