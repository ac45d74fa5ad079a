import { typeidUnboxed } from "typeid-js";
import { AppError } from "./problems";

/**
 * Service ids carry a type prefix (the OpenAPI description: ids). They are TypeIDs: the prefix, `_`, then a UUIDv7 in
 * Crockford base32, so ids sort by creation time and make stable cursor keys.
 */
export const ID_PREFIXES = {
  shop: "shop",
  apiKey: "key",
  list: "lst",
  item: "itm",
  event: "evt",
  webhookEndpoint: "whe",
  delivery: "dlv",
  job: "job",
  upload: "upl",
  complianceRequest: "cpl",
  alert: "alr",
  alertMessage: "amsg",
  conversion: "cnv",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind): string {
  return typeidUnboxed(ID_PREFIXES[kind]);
}

const ID_BODY = /^[A-Za-z0-9]+$/;

/** True when `value` has the shape `<prefix>_<alphanumerics>` for the given kind. */
export function isId(kind: IdKind, value: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}

/**
 * What `isId` accepts, as a JSON Schema pattern: the OpenAPI description declares it on path ids, whose wrong
 * prefix the server answers 400 `invalid-id` (the parameters are checked by `parseId`, not by the schema).
 */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_[A-Za-z0-9]+$`;
}

/**
 * Checks an id taken from a request. A wrong prefix (or an id that is not ours at all) is a client
 * error, answered 400 (OpenAPI: problem type `invalid-id`); a well-formed id that does not exist is a 404 later on.
 */
export function parseId(kind: IdKind, value: string, parameter = "id"): string {
  if (isId(kind, value)) return value;
  throw new AppError("invalid-id", {
    detail: `"${parameter}" must be an id starting with "${ID_PREFIXES[kind]}_".`,
    errors: [{ parameter, detail: `expected prefix ${ID_PREFIXES[kind]}_` }],
  });
}

/** Platform resources whose ids the API and imports take (as digits or as GIDs `gid://shopify/<Type>/<digits>`). */
export type PlatformResource = "Product" | "ProductVariant" | "Customer";

/** The largest platform id: platform ids are 64-bit unsigned integers. */
export const MAX_PLATFORM_ID = 18_446_744_073_709_551_615n;

/**
 * The one canonical form of a platform id (docs/decisions/005-ids-and-cursors.md): decimal digits without
 * leading zeros ("0123" is "123", "000" is "0"), at most 2^64-1. The storefront, the private API and imports
 * all go through here, so one customer (product, variant) is never stored under two spellings. `digits` may
 * be zero-padded up to 20 characters; anything else (signs, exponents, hex, spaces, "") gives null.
 */
export function canonicalPlatformId(digits: string): string | null {
  if (!/^[0-9]{1,20}$/.test(digits)) return null;
  const canonical = digits.replace(/^0+(?=[0-9])/, "");
  return BigInt(canonical) <= MAX_PLATFORM_ID ? canonical : null;
}

const GID = /^gid:\/\/shopify\/([A-Za-z]+)\/([0-9]+)(?:\?.*)?$/;

/**
 * A platform id of `resource` written as digits or as its GID (themes and the Admin API hold GIDs), in its
 * canonical form; null when it is neither, or a GID of another resource.
 */
export function parsePlatformId(value: string, resource: PlatformResource): string | null {
  const gid = GID.exec(value);
  if (gid) return gid[1] === resource ? canonicalPlatformId(gid[2]!) : null;
  return canonicalPlatformId(value);
}
