/**
 * Where webhook deliveries may connect (docs/webhooks.md, SSRF). Only public unicast addresses, unless an address
 * is inside a network of WEBHOOK_ALLOWED_NETWORKS (tests and the local demo allow loopback). The check
 * runs at connect time on the addresses DNS returned for that very connection, so a name that resolved
 * to a public address when the endpoint was created and to a private one now (DNS rebinding) is refused.
 * IP literals never reach DNS, so they are checked before connecting.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { Agent } from "undici";
import { getEnv } from "~/env.server";
import { logger } from "~/logger.server";

/** A connection the check refuses: an error with the code the delivery log shows before its message. */
function destinationRefused(message: string): Error {
  return Object.assign(new Error(message), { code: "DESTINATION_REFUSED" });
}

let allowed: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> | undefined;

function allowedNetworks() {
  allowed ??= getEnv()
    .WEBHOOK_ALLOWED_NETWORKS.split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((cidr) => ipaddr.parseCIDR(cidr));
  return allowed;
}

/**
 * IPv6 forms that carry an IPv4 address, and what the check makes of each (RFC 6890's registry, ipaddr.js's
 * range names). The check judges the IPv4 address a packet would end at, so no embedding reaches an address
 * that is refused in plain IPv4 form:
 *  - IPv4-mapped ::ffff:0:0/96 (`ipv4Mapped`) and NAT64's well-known 64:ff9b::/96 (`rfc6052`, RFC 6052: what
 *    DNS64 answers on an IPv6-only network) are judged as the IPv4 address in their last 32 bits;
 *  - IPv4-compatible ::/96 (deprecated by RFC 4291; ipaddr.js calls it `unicast`), IPv4-translated
 *    ::ffff:0:0:0/96 (`rfc6145`), NAT64's local-use 64:ff9b:1::/48 (`rfc6052`; where the IPv4 address sits is
 *    the operator's choice), 6to4 2002::/16 (`6to4`, deprecated by RFC 7526) and Teredo 2001::/32 (`teredo`)
 *    are refused whatever they carry: no public receiver needs them.
 */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96");
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96");

/** The address a connection would reach: the IPv4 address an IPv4-mapped or NAT64 address carries. */
function destinationOf(parsed: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (parsed.kind() === "ipv4") return parsed;
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress() || v6.match(NAT64_WELL_KNOWN)) {
    return new ipaddr.IPv4(v6.toByteArray().slice(12));
  }
  return v6;
}

/** The range name of an IPv6 address, with the IPv4-compatible block told apart from global unicast. */
function rangeOf(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  const range = address.range();
  if (address.kind() === "ipv6" && range === "unicast" && (address as ipaddr.IPv6).match(IPV4_COMPATIBLE)) {
    return "ipv4Compatible";
  }
  return range;
}

/**
 * An address as the socket reads it. ipaddr.js reads the deprecated `::a.b.c.d` as `::ffff:a.b.c.d`
 * (IPv4-mapped), but a connection to it goes to `::<hex>` in ::/96 (Node's URL parser writes
 * `[::127.0.0.1]` as `[::7f00:1]`): an IPv6 address is first written as WHATWG URLs write it.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  if (isIP(address) !== 6) return ipaddr.parse(address);
  return ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
}

/** Why an address is refused, or null when a delivery may connect to it. */
export function refusalReason(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = destinationOf(parseAddress(address));
  } catch {
    return `${address} is not an IP address`;
  }
  for (const [network, bits] of allowedNetworks()) {
    if (parsed.kind() === network.kind() && parsed.match(network, bits)) return null;
  }
  const range = rangeOf(parsed);
  return range === "unicast" ? null : `${address} is a ${range} address`;
}

const safeLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 0);
    const refused = addresses.map((entry) => refusalReason(entry.address)).find(Boolean);
    if (refused || addresses.length === 0) {
      // The delivery log is the merchant's to read: it says that the name is refused, never which internal
      // address it resolved to (the operator's log has that).
      logger.warn({ hostname, reason: refused ?? "no address" }, "webhook destination refused after DNS");
      return callback(
        destinationRefused(
          `${hostname} resolves to an address that is not public; deliveries go to public addresses only`,
        ),
        "",
        0,
      );
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/** Throws (code DESTINATION_REFUSED) for an IP-literal host that is refused (names are checked at connect time). */
export function assertLiteralHostAllowed(url: URL): void {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) {
    const reason = refusalReason(host);
    if (reason) throw destinationRefused(reason);
  }
}

/** The dispatcher for deliveries: keep-alive connections, every new connection through the check above. */
export function createDeliveryAgent(connections: number): Agent {
  return new Agent({ connections, connect: { lookup: safeLookup }, keepAliveTimeout: 10_000 });
}

/** For tests that change WEBHOOK_ALLOWED_NETWORKS. @internal (a test seam) */
export function resetAllowedNetworks(): void {
  allowed = undefined;
}

const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}\b/g;
const IPV6_CANDIDATE = /[0-9A-Fa-f]*:[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*/g;

/**
 * `message` with every IP address replaced by `<address>`, except `keep` (an endpoint URL's own literal
 * host, which the merchant wrote): error texts of sockets name the address a host name resolved to.
 */
export function redactAddresses(message: string, keep?: string): string {
  const redact = (candidate: string) => (candidate === keep ? candidate : "<address>");
  return message
    .replace(IPV6_CANDIDATE, (candidate) => {
      const bare = candidate.replace(/:\d+$/, ""); // a trailing :port
      if (ipaddr.isValid(candidate)) return redact(candidate);
      return ipaddr.isValid(bare) && bare.includes("::") ? `${redact(bare)}${candidate.slice(bare.length)}` : candidate;
    })
    .replace(IPV4, redact);
}
