import { createHmac } from "node:crypto";

/**
 * A request as the platform's app proxy forwards it: the query signed with the app secret, written
 * independently of the platform library (sorted `key=value` pairs, no separator, HMAC-SHA256 hex), as
 * docs/storefront.md describes. Used by the tests and the benchmarks that call `/proxy/v1`.
 */
export function signedProxyPath(path: string, params: Record<string, string>, secret = "local-dev-api-secret") {
  const query = { timestamp: String(Math.floor(Date.now() / 1000)), path_prefix: "/apps/service", ...params };
  const message = Object.keys(query)
    .sort()
    .map((key) => `${key}=${query[key as keyof typeof query]}`)
    .join("");
  const signature = createHmac("sha256", secret).update(message).digest("hex");
  return `${path}?${new URLSearchParams({ ...query, signature }).toString()}`;
}
