/**
 * docs/recipes/webhook-receivers.md (issue 31): the Node receiver and the edge handler (run in Node through
 * serve-edge.ts, a Request in and a Response out) take a real delivery from the service's worker, and answer
 * as the recipe's table says to the same delivery again, tampered with, re-signed at an old time, unsigned,
 * and to another path.
 */
import { createHmac, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createWishlistClient } from "../../sdk/src/index";
import { createShopWithKey } from "../factories";
import { readEnvText, runExampleOk, startExample, useService } from "../support/examples";
import { until } from "../support/poll";
import { freePort } from "../support/processes";

const { baseUrl } = await useService();

interface Delivery {
  body: Buffer<ArrayBuffer>;
  headers: Record<string, string>;
  answered: number;
}

/**
 * Between the worker and a receiver: keeps each delivery's bytes and headers as sent, passes it on, and gives
 * the worker the receiver's answer.
 */
async function recordingRelay(target: string) {
  const deliveries: Delivery[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const name of ["content-type", "user-agent", "x-service-event", "x-service-delivery", "x-service-signature"]) {
      headers[name] = String(request.headers[name]);
    }
    const body = Buffer.concat(chunks);
    const answer = await fetch(`${target}${request.url}`, { method: "POST", headers, body });
    deliveries.push({ body, headers, answered: answer.status });
    response.writeHead(answer.status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, deliveries };
}

describe.each([
  ["the Node receiver", "recipes/node-receiver.ts"],
  ["the edge handler", "recipes/serve-edge.ts"],
])("%s", (_name, file) => {
  it("accepts a real delivery once, and refuses it tampered with, re-signed long ago or unsigned", async () => {
    const { shop, secret } = await createShopWithKey();
    const port = await freePort();
    const receiverUrl = `http://127.0.0.1:${port}`;
    const relay = await recordingRelay(receiverUrl);
    const env = { WISHLIST_URL: baseUrl, WISHLIST_PRIVATE_KEY: secret };
    const registered = await runExampleOk("getting-started/register-webhook.ts", env, [
      `${relay.url}/webhooks`,
      "item.added",
    ]);
    const webhookSecret = readEnvText(registered.stdout).WEBHOOK_SECRET!;
    const receiver = startExample(file, { WEBHOOK_SECRET: webhookSecret, PORT: String(port) });
    try {
      await receiver.waitForOutput(/receiving on http:\/\/localhost:\d+\/webhooks/);

      // A real delivery: a save, relayed by the worker, signed with the endpoint's secret.
      const store = createWishlistClient({ baseUrl, publicKey: shop.publicKey, shop: shop.domain });
      await store.POST("/storefront/wishlist/items", {
        params: { query: { aid: randomUUID() } },
        body: { productId: "8100000009", handle: "ember-wool-scarf" },
      });
      await until(
        () => relay.deliveries.length,
        (count) => count > 0,
        "the worker's delivery",
      );
      const [delivery] = relay.deliveries;
      const event = JSON.parse(delivery!.body.toString("utf8")) as { id: string; type: string };
      expect(event.type).toBe("item.added");
      expect(delivery!.answered).toBe(204);
      await receiver.waitForOutput(new RegExp(`accepted item\\.added ${event.id}\\n`));
      await receiver.waitForOutput(new RegExp(`handled item\\.added ${event.id}\\n`));

      const post = (body: Buffer<ArrayBuffer> | string, headers: Record<string, string>, path = "/webhooks") =>
        fetch(`${receiverUrl}${path}`, { method: "POST", headers, body }).then((answer) => answer.status);
      // The same delivery again (a retry or a redelivery): acknowledged, not taken twice.
      expect(await post(delivery!.body, delivery!.headers)).toBe(200);
      await receiver.waitForOutput(new RegExp(`duplicate ${event.id}\\n`));
      // Tampered with: one product id changed, the signature kept.
      const tampered = delivery!.body.toString("utf8").replace("8100000009", "8100000008");
      expect(await post(tampered, delivery!.headers)).toBe(400);
      await receiver.waitForOutput(/refused: bad-signature\n/);
      // Re-signed with the right secret, an hour ago: a recorded delivery replayed later.
      const old = Math.floor(Date.now() / 1000) - 3_600;
      const signature = createHmac("sha256", webhookSecret).update(`${old}.`).update(delivery!.body).digest("hex");
      expect(
        await post(delivery!.body, { ...delivery!.headers, "x-service-signature": `t=${old},v1=${signature}` }),
      ).toBe(400);
      await receiver.waitForOutput(/refused: stale\n/);
      const { "x-service-signature": _signature, ...unsigned } = delivery!.headers;
      expect(await post(delivery!.body, unsigned)).toBe(400);
      await receiver.waitForOutput(/refused: malformed-signature\n/);
      expect(await post(delivery!.body, delivery!.headers, "/elsewhere")).toBe(404);

      // Taken once, whatever came after.
      expect(receiver.output().match(/accepted /g)).toHaveLength(1);
      expect(receiver.output().match(/handled /g)).toHaveLength(1);
      const wishlist = createWishlistClient({ baseUrl, privateKey: secret });
      const [endpoint] = (await wishlist.GET("/webhooks")).data!;
      // The worker logs the attempt once the answer is in: wait for it there.
      const log = await until(
        async () =>
          (await wishlist.GET("/webhooks/{id}/deliveries", { params: { path: { id: endpoint!.id } } })).data!.data,
        (attempts) => attempts.length > 0,
        "the attempt in the delivery log",
      );
      expect(log.map(({ eventId, status, statusCode }) => ({ eventId, status, statusCode }))).toEqual([
        { eventId: event.id, status: "succeeded", statusCode: 204 },
      ]);
    } finally {
      await receiver.stop();
    }
  });
});
