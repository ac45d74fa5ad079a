import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { prisma } from "~/db.server";
import { resetEnvCache } from "~/env.server";
import { refusalReason, resetAllowedNetworks } from "~/services/webhooks/ssrf.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { createShop, createWebhookEndpoint } from "../factories";
import { startReceiver } from "./receiver";
import { useWorker } from "../support/worker";

// Plain http is allowed (to reach a local receiver), but no network is allowlisted: production's SSRF rules.
Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  OUTBOX_RELAY_INTERVAL_MS: "20",
  WEBHOOK_RETRY_UNIT_MS: "60000",
});
delete process.env.WEBHOOK_ALLOWED_NETWORKS;
resetEnvCache();
resetAllowedNetworks();

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
        { url: `http://localhost:${receiver.port}/hooks`, error: "localhost resolves to a refused address" },
      ];
      for (const { url, error } of cases) {
        const shop = await createShop();
        const { endpoint } = await createWebhookEndpoint(shop.id, url);
        await toggleItem({
          shopId: shop.id,
          owner: { kind: "anonymous", anonymousId: randomUUID() },
          item: { productId: "1", handle: "one" },
        });
        const started = Date.now();
        let delivery = null;
        while (!delivery && Date.now() - started < 10_000) {
          delivery = await prisma.webhookDelivery.findFirst({ where: { endpointId: endpoint.id } });
          if (!delivery) await new Promise((resolve) => setTimeout(resolve, 25));
        }
        expect(delivery).toMatchObject({ status: "failed", statusCode: null, attempt: 1 });
        expect(delivery!.error).toContain(error);
      }
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });
});
