/**
 * The SDK (sdk/src) against the real web process on a socket, and its worker for webhook deliveries (issue 31):
 * the three calling modes' credentials, typed errors, pages to the end, an answer lost in transit (one effect),
 * rate limits, aborts, and the webhook verifier on the worker's own deliveries.
 */
import { createHmac, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Response as UndiciResponse } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import {
  createWishlistClient,
  isProblem,
  paginate,
  requestIdOf,
  verifyWebhook,
  WishlistApiError,
} from "../../sdk/src/index";
import { createList, createShopWithKey } from "../factories";
import { until } from "../support/poll";
import { useWebProcess } from "../support/web-process";
import { useWorker } from "../support/worker";
import { startReceiver } from "../services/webhooks/receiver";
import { countItems, eventsOf } from "../support/wishlist-rows";

Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  OUTBOX_RELAY_INTERVAL_MS: "50",
});
useWorker();

const { baseUrl } = await useWebProcess();

/** A local HTTP server answering as `respond` says, counting requests; closed at the end of the file. */
async function scripted(respond: (req: IncomingMessage, res: ServerResponse, index: number) => void) {
  const seen: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req);
    req.resume();
    req.on("end", () => respond(req, res, seen.length - 1));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe("calling modes", () => {
  it("calls private operations with the private key, and surfaces each answer's request id", async () => {
    const { shop, secret } = await createShopWithKey();
    const client = createWishlistClient({ baseUrl, privateKey: secret });
    const { data, response } = await client.GET("/shop");
    expect(data?.domain).toBe(shop.domain);
    expect(requestIdOf(response)).toMatch(/\S+/);
  });

  it("calls storefront operations with the public key and the shop's domain", async () => {
    const { shop } = await createShopWithKey();
    const client = createWishlistClient({ baseUrl, publicKey: shop.publicKey, shop: shop.domain });
    const aid = randomUUID();
    const saved = await client.POST("/storefront/wishlist/toggle", {
      params: { query: { aid } },
      body: { productId: "8100000001", handle: "harbor-coat" },
    });
    expect(saved.data).toMatchObject({ added: true, count: 1 });
    const { data } = await client.GET("/storefront/wishlist", { params: { query: { aid } } });
    expect(data?.items.map((item) => item.productId)).toEqual(["8100000001"]);
    // The public key opens no private operation.
    const error = await client.GET("/shop" as never).catch((failure: unknown) => failure);
    expect(isProblem(error, "forbidden")).toBe(true);
    expect((error as WishlistApiError).status).toBe(403);
  });

  it("refuses a private key in a browser, and a key of the wrong kind anywhere", () => {
    const globals = globalThis as { window?: unknown; document?: unknown };
    globals.window = {};
    globals.document = {};
    try {
      expect(() => createWishlistClient({ baseUrl, privateKey: "svc_sk_x" })).toThrow(/never reach a browser/);
    } finally {
      delete globals.window;
      delete globals.document;
    }
    expect(() => createWishlistClient({ baseUrl, publicKey: "svc_sk_secret", shop: "a.myshopify.com" })).toThrow(
      /never the private/,
    );
    expect(() => createWishlistClient({ baseUrl, privateKey: "svc_pk_public" })).toThrow(/svc_sk_/);
    expect(() => createWishlistClient({ baseUrl, publicKey: "svc_pk_x", shop: "" })).toThrow(/domain/);
    // An unset environment variable says so; a key in the wrong place is not printed beyond its prefix.
    const unset = process.env.NO_SUCH_WISHLIST_KEY as string;
    expect(() => createWishlistClient({ baseUrl, privateKey: unset })).toThrow(/svc_sk_.*got undefined/);
    expect(() => createWishlistClient({ baseUrl, publicKey: "svc_sk_topsecret", shop: "a.myshopify.com" })).toThrow(
      /^(?!.*topsecret)/,
    );
  });

  it("passes on answers of another Response class than the global one (a host that replaced it)", async () => {
    // @hono/node-server and Remix's installGlobals replace globalThis.Response in Node; the npm undici's class is
    // such another class.
    const { shop, secret } = await createShopWithKey();
    const client = createWishlistClient({
      baseUrl,
      privateKey: secret,
      fetch: async (request) => {
        const answer = await fetch(request);
        const body = await answer.arrayBuffer();
        return new UndiciResponse(body, {
          status: answer.status,
          headers: [...answer.headers],
        }) as unknown as Response;
      },
    });
    expect((await client.GET("/shop")).data?.domain).toBe(shop.domain);
    const missing = await client
      .GET("/lists/{id}", { params: { path: { id: "lst_01jd2x6c5ef0q8w3d0s8b2n7k4" } } })
      .catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 404, code: "not-found" });
  });

  it("sends app proxy calls under the proxy's path on the shop's domain, with no key", async () => {
    const server = await scripted((_req, res) =>
      res
        .writeHead(200, { "Content-Type": "application/json" })
        .end(JSON.stringify({ added: true, count: 1, itemId: "itm_x" })),
    );
    const client = createWishlistClient({ appProxy: true, baseUrl: `${server.url}/apps/service` });
    await client.POST("/storefront/wishlist/toggle", { body: { productId: "1", handle: "h" } });
    expect(server.seen[0]!.url).toBe("/apps/service/v1/storefront/wishlist/toggle");
    expect(server.seen[0]!.headers.authorization).toBeUndefined();
    expect(server.seen[0]!.headers["x-service-public-key"]).toBeUndefined();
  });
});

describe("errors", () => {
  it("throws problem documents as typed errors: branch on code", async () => {
    const { secret } = await createShopWithKey();
    const client = createWishlistClient({ baseUrl, privateKey: secret });
    const missing = await client
      .GET("/lists/{id}", { params: { path: { id: "lst_01jd2x6c5ef0q8w3d0s8b2n7k4" } } })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(WishlistApiError);
    expect(missing).toMatchObject({ status: 404, code: "not-found" });
    expect(isProblem(missing, "not-found")).toBe(true);
    expect((missing as WishlistApiError).requestId).toMatch(/\S+/);
    expect((missing as WishlistApiError).problem.title).toBeTruthy();
    const invalid = await client
      .GET("/lists/{id}", { params: { path: { id: "nope" } } })
      .catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 400, code: "invalid-id" });
    const unprocessable = await client
      .POST("/webhooks", { body: { url: "not a url", events: ["item.added"] } })
      .catch((error: unknown) => error);
    expect(unprocessable).toMatchObject({ status: 422, code: "validation-error" });
    expect((unprocessable as WishlistApiError).problem.errors?.length).toBeGreaterThan(0);
  });

  it("answers a rate-limited call with its Retry-After when the wait is longer than the client may wait", async () => {
    const { shop } = await createShopWithKey();
    const client = createWishlistClient({
      baseUrl,
      publicKey: shop.publicKey,
      shop: shop.domain,
      retry: { maxDelayMs: 200 },
    });
    const aid = randomUUID();
    let limited: unknown;
    for (let call = 0; call < 80 && !limited; call++) {
      await client
        .GET("/storefront/wishlist", { params: { query: { aid } } })
        .catch((error: unknown) => (limited = error));
    }
    expect(limited).toMatchObject({ status: 429, code: "rate-limited" });
    expect((limited as WishlistApiError).retryAfter).toBeGreaterThan(0);
  });
});

describe("pages", () => {
  it("iterates a paged operation to its end", async () => {
    const { shop, secret } = await createShopWithKey();
    const ids: string[] = [];
    for (let index = 0; index < 7; index++)
      ids.push((await createList(shop.id, { customerId: String(500 + index) })).id);
    const client = createWishlistClient({ baseUrl, privateKey: secret });
    const seen: string[] = [];
    for await (const list of paginate((cursor) => client.GET("/lists", { params: { query: { cursor, limit: 2 } } }))) {
      seen.push(list.id);
    }
    expect(seen.sort()).toEqual(ids.sort());
  });
});

describe("retries", () => {
  it("applies a POST once when its answer is lost: the retry carries the same Idempotency-Key", async () => {
    const { shop } = await createShopWithKey();
    // A relay to the real web process that, for the first request, lets the server act and then cuts the
    // connection before the answer reaches the client.
    const keys: string[] = [];
    const relay = await scripted(async (req, res, index) => {
      keys.push(String(req.headers["idempotency-key"]));
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && !["host", "connection", "content-length"].includes(name))
          headers.set(name, value);
      }
      const upstream = await fetch(`${baseUrl}${req.url}`, { method: req.method, headers, body: bodies[index] });
      const text = await upstream.text();
      if (index === 0) {
        res.socket?.destroy();
        return;
      }
      res.writeHead(upstream.status, Object.fromEntries(upstream.headers)).end(text);
    });
    const bodies: string[] = [];
    const client = createWishlistClient({
      baseUrl: relay.url,
      publicKey: shop.publicKey,
      shop: shop.domain,
      retry: { minDelayMs: 10 },
      // Keeps each body for the relay (which reads requests as they come).
      fetch: async (request) => {
        bodies.push(await request.clone().text());
        return fetch(request);
      },
    });
    const aid = randomUUID();
    const { data, response } = await client.POST("/storefront/wishlist/toggle", {
      params: { query: { aid } },
      body: { productId: "8100000002", handle: "harbor-scarf" },
    });
    // A toggle applied twice would have removed the product again.
    expect(data).toMatchObject({ added: true, count: 1 });
    expect(response.headers.get("idempotent-replayed")).toBe("true");
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(await countItems(shop.id)).toBe(1);
    expect((await eventsOf(shop.id, "item.added")).length).toBe(1);
  });

  it("waits as Retry-After says on 503 and 429, then succeeds; each POST keeps its key", async () => {
    const server = await scripted((_req, res, index) => {
      if (index === 0) return res.writeHead(503, { "Retry-After": "1" }).end();
      if (index === 1) return res.writeHead(429, { "Retry-After": "1" }).end();
      res
        .writeHead(201, { "Content-Type": "application/json" })
        .end(JSON.stringify({ added: true, count: 1, itemId: "itm_x" }));
    });
    const client = createWishlistClient({ baseUrl: server.url, publicKey: "svc_pk_x", shop: "a.myshopify.com" });
    const started = Date.now();
    const { data } = await client.POST("/storefront/wishlist/toggle", { body: { productId: "1", handle: "h" } });
    expect(data).toMatchObject({ added: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(server.seen).toHaveLength(3);
    const keys = new Set(server.seen.map((req) => req.headers["idempotency-key"]));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/\S/);
  });

  it("gives up after its retries, and never retries a refusal", async () => {
    const server = await scripted((_req, res, index) => {
      if (index < 3) return res.writeHead(503).end();
      res
        .writeHead(409, { "Content-Type": "application/problem+json" })
        .end(JSON.stringify({ type: "http://x/problems/list-full", title: "Wishlist full", status: 409 }));
    });
    const client = createWishlistClient({
      baseUrl: server.url,
      publicKey: "svc_pk_x",
      shop: "a.myshopify.com",
      retry: { retries: 2, minDelayMs: 5 },
    });
    await expect(client.GET("/storefront/wishlist")).rejects.toMatchObject({ status: 503 });
    expect(server.seen).toHaveLength(3);
    await expect(
      client.POST("/storefront/wishlist/toggle", { body: { productId: "1", handle: "h" } }),
    ).rejects.toMatchObject({ status: 409, code: "list-full" });
    expect(server.seen).toHaveLength(4);
  });

  it("stops at once when its signal aborts, also while waiting to retry", async () => {
    const server = await scripted((_req, res) => res.writeHead(503, { "Retry-After": "20" }).end());
    const client = createWishlistClient({
      baseUrl: server.url,
      publicKey: "svc_pk_x",
      shop: "a.myshopify.com",
      retry: { maxDelayMs: 60_000 },
    });
    const controller = new AbortController();
    const call = client.GET("/storefront/wishlist", { signal: controller.signal });
    // Aborted once the first answer (503, retry after 20 s) has come: the client is then waiting to retry.
    await until(
      () => server.seen.length,
      (seen) => seen >= 1,
      "the first attempt reaching the server",
    );
    const started = Date.now();
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    // Well under the 20 s the server asked to wait: the wait itself was cut short.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(server.seen).toHaveLength(1);
  });
});

describe("webhooks", () => {
  it("verifies the worker's deliveries, and refuses tampered, stale, re-signed and malformed ones", async () => {
    const receiver = await startReceiver();
    afterAll(() => receiver.close());
    const { shop, secret } = await createShopWithKey();
    const client = createWishlistClient({ baseUrl, privateKey: secret });
    const { data: endpoint } = await client.POST("/webhooks", { body: { url: receiver.url, events: ["item.added"] } });
    const store = createWishlistClient({ baseUrl, publicKey: shop.publicKey, shop: shop.domain });
    await store.POST("/storefront/wishlist/toggle", {
      params: { query: { aid: randomUUID() } },
      body: { productId: "8100000003", handle: "harbor-hat" },
    });
    const [delivery] = await receiver.waitFor(1);
    const header = String(delivery!.headers["x-service-signature"]);
    const webhookSecret = endpoint!.secret;

    const verified = await verifyWebhook(delivery!.body, header, webhookSecret);
    expect(verified).toMatchObject({ ok: true, event: { type: "item.added", shopDomain: shop.domain } });
    // The same from the body as text, as an edge worker's request.text() gives it.
    expect((await verifyWebhook(delivery!.body.toString("utf8"), header, webhookSecret)).ok).toBe(true);

    const tampered = Buffer.from(delivery!.body.toString("utf8").replace("8100000003", "8100000004"));
    expect(await verifyWebhook(tampered, header, webhookSecret)).toEqual({ ok: false, reason: "bad-signature" });
    expect(await verifyWebhook(delivery!.body, header, "whsec_another")).toEqual({
      ok: false,
      reason: "bad-signature",
    });
    const t = Number(/t=(\d+)/.exec(header)![1]);
    expect(await verifyWebhook(delivery!.body, header, webhookSecret, { now: t + 301 })).toEqual({
      ok: false,
      reason: "stale",
    });
    expect(
      (await verifyWebhook(delivery!.body, header, webhookSecret, { now: t + 301, toleranceSeconds: 600 })).ok,
    ).toBe(true);
    // Re-signed with the right secret at an old time (a replay someone recorded and re-dated): stale.
    const old = t - 3_600;
    const resigned = `t=${old},v1=${createHmac("sha256", webhookSecret).update(`${old}.`).update(delivery!.body).digest("hex")}`;
    expect(await verifyWebhook(delivery!.body, resigned, webhookSecret)).toEqual({ ok: false, reason: "stale" });
    // The old signature under a new timestamp: bad.
    expect(await verifyWebhook(delivery!.body, header.replace(/t=\d+/, `t=${t + 1}`), webhookSecret)).toEqual({
      ok: false,
      reason: "bad-signature",
    });
    for (const malformed of [undefined, "", "v1=abc", `t=${t}`, `t=x,v1=${"0".repeat(64)}`]) {
      expect(await verifyWebhook(delivery!.body, malformed, webhookSecret)).toEqual({
        ok: false,
        reason: "malformed-signature",
      });
    }
  });
});
