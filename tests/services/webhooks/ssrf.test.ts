import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { resetEnvCache } from "~/env.server";
import { redactAddresses, refusalReason, resetAllowedNetworks } from "~/services/webhooks/ssrf.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { createServer } from "node:net";
import { createShopWithKey, createWebhookEndpoint } from "../../factories";
import { startReceiver } from "./receiver";
import { useWorker } from "../../support/worker";
import { findAttempts } from "../../support/webhook-rows";
import { apiHarness } from "../../support/harness";

// Plain http is allowed (to reach a local receiver), but no network is allowlisted: production's SSRF rules.
Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  OUTBOX_RELAY_INTERVAL_MS: "20",
  WEBHOOK_RETRY_UNIT_MS: "60000",
});
delete process.env.WEBHOOK_ALLOWED_NETWORKS;
resetEnvCache();
resetAllowedNetworks();

const { clientFor } = await apiHarness();

/** Any address a name could have resolved to here: what the delivery log must never show for a name. */
const LOOPBACK_ADDRESSES = /127\.0\.0\.1|::1|::ffff/;

/**
 * A shop with an endpoint at `url`, one event for it, and its first delivery as stored and as
 * GET /v1/webhooks/{id}/deliveries returns it (polled with a generous bound).
 */
async function firstDelivery(url: string) {
  const { shop, secret } = await createShopWithKey();
  const api = clientFor(secret);
  const { endpoint } = await createWebhookEndpoint(shop.id, url);
  await toggleItem({
    shopId: shop.id,
    owner: { kind: "anonymous", anonymousId: randomUUID() },
    item: { productId: "1", handle: "one" },
  });
  const started = Date.now();
  let delivery = null;
  while (!delivery && Date.now() - started < 90_000) {
    delivery = (await findAttempts(database(), shop.id, endpoint.id))[0] ?? null;
    if (!delivery) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(delivery).toMatchObject({ status: "failed", statusCode: null, attempt: 1 });
  const listed = await api.GET("/webhooks/{id}/deliveries", { params: { path: { id: endpoint.id } } });
  expect(listed.response.status).toBe(200);
  const served = listed.data!.data[0]!;
  expect(served.error).toBe(delivery!.error);
  return delivery!;
}

describe("destination address policy", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "carrierGradeNat"],
    ["169.254.169.254", "linkLocal"],
    ["0.0.0.0", "unspecified"],
    ["255.255.255.255", "broadcast"],
    ["224.0.0.1", "multicast"],
    ["::1", "loopback"],
    ["fd00::1", "uniqueLocal"],
    ["fe80::1", "linkLocal"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
  ])("refuses %s (%s)", (address, range) => {
    expect(refusalReason(address)).toBe(`${address} is a ${range} address`);
  });

  it.each(["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"])("allows the public address %s", (address) => {
    expect(refusalReason(address)).toBeNull();
  });

  // Every IPv6 form that carries an IPv4 address: judged as the IPv4 address it reaches, or refused whole.
  it.each([
    // IPv4-compatible ::/96 (deprecated, RFC 4291): refused whatever it carries, in each spelling.
    ["::127.0.0.1", "ipv4Compatible"],
    ["::7f00:1", "ipv4Compatible"],
    ["0:0:0:0:0:0:10.0.0.1", "ipv4Compatible"],
    ["::8.8.8.8", "ipv4Compatible"],
    // IPv4-mapped ::ffff:0:0/96: the IPv4 address it carries, in each spelling.
    ["::ffff:7f00:1", "loopback"],
    ["0:0:0:0:0:ffff:a9fe:a9fe", "linkLocal"],
    ["::ffff:192.168.0.1", "private"],
    // NAT64's well-known prefix (RFC 6052): the IPv4 address it carries.
    ["64:ff9b::127.0.0.1", "loopback"],
    ["64:ff9b::a00:1", "private"],
    ["64:ff9b::169.254.169.254", "linkLocal"],
    // NAT64's local-use prefix (RFC 8215), IPv4-translated, 6to4 and Teredo: refused whatever they carry.
    ["64:ff9b:1::808:808", "rfc6052"],
    ["64:ff9b:1:7f00:1::", "rfc6052"],
    ["::ffff:0:127.0.0.1", "rfc6145"],
    ["::ffff:0:808:808", "rfc6145"],
    ["2002:7f00:1::1", "6to4"],
    ["2002:808:808::1", "6to4"],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "teredo"],
    // The rest of ipaddr.js's IPv6 ranges that are not global unicast.
    ["::", "unspecified"],
    ["ff02::1", "multicast"],
    ["fec0::1", "deprecatedSiteLocal"],
    ["100::1", "discard"],
    ["2001:2::1", "benchmarking"],
    ["2001:db8::1", "reserved"],
    ["5f00::1", "segmentRouting"],
  ])("refuses the IPv6 form %s (%s)", (address, range) => {
    expect(refusalReason(address)).toBe(`${address} is a ${range} address`);
  });

  it.each(["::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "64:ff9b::5db8:d70e"])(
    "allows %s, which reaches a public IPv4 address",
    (address) => {
      expect(refusalReason(address)).toBeNull();
    },
  );

  it.each([
    ["connect ECONNREFUSED 10.0.0.5:443", undefined, "connect ECONNREFUSED <address>:443"],
    ["connect ECONNREFUSED ::1:8080", undefined, "connect ECONNREFUSED <address>"],
    ["connect ECONNREFUSED fd00::12", undefined, "connect ECONNREFUSED <address>"],
    ["socket hang up at 2001:db8::1 and 192.168.0.2", undefined, "socket hang up at <address> and <address>"],
    ["203.0.113.9 is a private address", "203.0.113.9", "203.0.113.9 is a private address"],
    ["took 10:20:30 at 1.5 ms", undefined, "took 10:20:30 at 1.5 ms"],
  ])("redacts addresses from %j (keeping the URL's own literal %s)", (message, keep, expected) => {
    expect(redactAddresses(message, keep)).toBe(expected);
  });

  it("allows an address inside WEBHOOK_ALLOWED_NETWORKS", () => {
    process.env.WEBHOOK_ALLOWED_NETWORKS = "10.0.0.0/8";
    resetEnvCache();
    resetAllowedNetworks();
    try {
      expect(refusalReason("10.9.8.7")).toBeNull();
      expect(refusalReason("192.168.1.1")).toBe("192.168.1.1 is a private address");
    } finally {
      delete process.env.WEBHOOK_ALLOWED_NETWORKS;
      resetEnvCache();
      resetAllowedNetworks();
    }
  });
});

describe("deliveries to refused destinations (real worker, no allowlist)", () => {
  useWorker();

  it("never connects to a loopback literal, nor to a name that resolves to loopback", async () => {
    const receiver = await startReceiver();
    try {
      const cases = [
        { url: `http://127.0.0.1:${receiver.port}/hooks`, error: "127.0.0.1 is a loopback address" },
        { url: `http://[::1]:${receiver.port}/hooks`, error: "::1 is a loopback address" },
        // IPv4-compatible: the URL parser writes [::127.0.0.1] as [::7f00:1].
        { url: `http://[::127.0.0.1]:${receiver.port}/hooks`, error: "::7f00:1 is a ipv4Compatible address" },
        {
          url: `http://localhost:${receiver.port}/hooks`,
          error: "localhost resolves to an address that is not public",
        },
      ];
      for (const { url, error } of cases) {
        const delivery = await firstDelivery(url);
        expect(delivery.error).toContain(error);
      }
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it("does not reveal, in the delivery log or its API, the private address a name resolved to", async () => {
    const delivery = await firstDelivery("http://localhost:9/hooks");
    expect(delivery.error).toBe(
      "DESTINATION_REFUSED: localhost resolves to an address that is not public; deliveries go to public addresses only",
    );
    expect(delivery.error).not.toMatch(LOOPBACK_ADDRESSES);
    expect(delivery.error).not.toMatch(/loopback|private/);
  });
});

describe("connection errors of an allowed name (real worker, loopback allowlisted)", () => {
  useWorker({ WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128" });

  it("logs why the connection failed without the address the name resolved to", async () => {
    // A port that nothing listens on: the connection is refused.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const delivery = await firstDelivery(`http://localhost:${port}/hooks`);
    expect(delivery.error).toMatch(/^ECONNREFUSED: /);
    expect(delivery.error).not.toMatch(LOOPBACK_ADDRESSES);
  });
});
