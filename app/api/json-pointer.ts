/**
 * The one JSON Pointer encoder (RFC 6901, in the URI fragment form problem documents carry): `~` becomes `~0`
 * and `/` becomes `~1` in each token; no tokens point at the whole document, `#`. Body validation
 * (validation-problems.server.ts), NUL characters (nul-characters.server.ts) and the domain's issues
 * (domain-problems.server.ts) all point with it, so one member is written one way in every problem.
 */
export function jsonPointer(tokens: ReadonlyArray<PropertyKey>): string {
  if (tokens.length === 0) return "#";
  return `#/${tokens.map((token) => String(token).replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`;
}
