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

/** Why an address is refused, or null when a delivery may connect to it. */
export function refusalReason(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return `${address} is not an IP address`;
  }
  for (const [network, bits] of allowedNetworks()) {
    if (parsed.kind() === network.kind() && parsed.match(network, bits)) return null;
  }
  const range = parsed.range();
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
