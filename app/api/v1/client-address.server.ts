import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";
import ipaddr from "ipaddr.js";
import { getEnv } from "~/env.server";
import type { V1Env } from "./context";

/**
 * The client address the storefront's per-address rate limit counts (docs/decisions/008-rate-limit-keys.md).
 *
 * The chain of addresses is X-Forwarded-For followed by the socket's peer; each proxy in front of us appends
 * the address it received the request from. `trustedHops` (TRUSTED_PROXY_HOPS) proxies of our own are
 * trusted: the client is the entry that many places left of the peer. Entries further left were written
 * by the client itself and are never believed. With no trusted hops the peer is the client, and
 * X-Forwarded-For is ignored.
 *
 * An app proxy request (its signature verified) comes from the commerce platform's servers, which add the
 * shopper's address to X-Forwarded-For: the platform is one more trusted hop, so the shopper's address is
 * used rather than the platform's, which all shoppers of all shops share.
 *
 * IPv6 clients are counted per /64 (one subscriber's usual allocation), so rotating through the addresses
 * of one network does not escape the limit. Undefined when there is no socket (in-process requests).
 */
export function resolveClientAddress({
  peer,
  forwardedFor,
  trustedHops,
  viaAppProxy,
}: {
  peer: string | undefined;
  forwardedFor: string | undefined;
  trustedHops: number;
  viaAppProxy: boolean;
}): string | undefined {
  if (!peer) return undefined;
  const chain = [
    ...(forwardedFor ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean),
    peer,
  ];
  const hops = trustedHops + (viaAppProxy ? 1 : 0);
  // Walk left from the peer through the trusted hops; a malformed entry ends the walk at the hop that wrote it.
  let client = bucketOf(peer) ?? peer;
  for (let index = chain.length - 2; index >= Math.max(0, chain.length - 1 - hops); index--) {
    const address = bucketOf(chain[index]!);
    if (!address) break;
    client = address;
  }
  return client;
}

/** The address as counted: IPv4 (also when IPv4-mapped), or the /64 network of an IPv6 address. */
function bucketOf(text: string): string | undefined {
  if (!ipaddr.isValid(text)) return undefined;
  const address = ipaddr.process(text);
  if (address.kind() === "ipv4") return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(":")}::/64`;
}

export function clientAddress(c: Context<V1Env>): string | undefined {
  let peer: string | undefined;
  try {
    peer = getConnInfo(c).remote.address;
  } catch {
    return undefined; // in-process requests have no socket
  }
  return resolveClientAddress({
    peer,
    forwardedFor: c.req.header("x-forwarded-for"),
    trustedHops: getEnv().TRUSTED_PROXY_HOPS,
    viaAppProxy: c.get("caller")?.mode === "proxy",
  });
}
