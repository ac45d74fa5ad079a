/**
 * The one JSON Pointer encoder (RFC 6901, in the URI fragment form problem documents carry, section 6): in
 * each token `~` becomes `~0` and `/` becomes `~1`, then what a URI fragment cannot hold is percent-encoded
 * as UTF-8 (a space `%20`, `%` itself `%25`, `é` `%C3%A9`, NUL `%00`), so that a reader decoding the fragment
 * gets the member's name back; a lone surrogate, which UTF-8 cannot carry, becomes U+FFFD first. No tokens
 * point at the whole document, `#`. Body validation (validation-problems.server.ts), NUL characters
 * (nul-characters.server.ts) and the domain's issues (domain-problems.server.ts) all point with it, so one
 * member is written one way in every problem.
 */
export function jsonPointer(tokens: ReadonlyArray<PropertyKey>): string {
  if (tokens.length === 0) return "#";
  return `#/${tokens.map(encodeToken).join("/")}`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function encodeToken(token: PropertyKey): string {
  const escaped = String(token).replace(LONE_SURROGATE, "\uFFFD").replaceAll("~", "~0").replaceAll("/", "~1");
  // encodeURIComponent leaves the unreserved characters (and ! ' ( ) *) as they are and encodes the rest.
  return encodeURIComponent(escaped);
}
