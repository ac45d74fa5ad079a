import { typeidUnboxed } from "typeid-js";
import { AppError } from "./problems";

/**
 * Service ids carry a type prefix (spec 1). They are TypeIDs: the prefix, `_`, then a UUIDv7 in
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
 * Checks an id taken from a request. A wrong prefix (or an id that is not ours at all) is a client
 * error, answered 400 (spec 1 and 7.2); a well-formed id that does not exist is a 404 later on.
 */
export function parseId(kind: IdKind, value: string, parameter = "id"): string {
  if (isId(kind, value)) return value;
  throw new AppError("invalid-id", {
    detail: `"${parameter}" must be an id starting with "${ID_PREFIXES[kind]}_".`,
    errors: [{ parameter, detail: `expected prefix ${ID_PREFIXES[kind]}_` }],
  });
}
