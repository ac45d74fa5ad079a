import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { connect } from "node:net";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_BODY_LIMIT_BYTES, OTHER_BODY_LIMIT_BYTES } from "~/api/body-limit.server";
import { createUpload } from "~/services/transfers/uploads.server";
import { createShopWithKey } from "../factories";
import { LINGER_BYTES, LINGER_IDLE_MS, LINGER_MS } from "../../server/lingering-close";
import { rawCall, signedProxyPath } from "../support/openapi-client";
import { BASE_URL } from "../support/http";
import { freePort, startProcess, type RunningProcess } from "../support/processes";
import { apiHarness } from "../support/harness";

const { app, validator } = await apiHarness();
const { shop, secret } = await createShopWithKey();
const privateAuth = { Authorization: `Bearer ${secret}` };
const publicAuth = { "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey };
const type = (slug: string) => `http://localhost:3000/problems/${slug}`;

/** Well-formed ids for the path parameters of body routes: the body rules answer before any lookup. */
const PATH_IDS: Record<string, string> = {
  "{listId}": "lst_01jabcdefghjkmnpqrstvwxyz0",
  "{itemId}": "itm_01jabcdefghjkmnpqrstvwxyz0",
};

/** Every operation of the served document that takes a request body (issue 11 item 12: ten; issue 28: four more). */
const document = (await (await app.request(`${BASE_URL}/openapi.json`)).json()) as {
  paths: Record<string, Record<string, { requestBody?: { required?: boolean } }>>;
};
const bodyRoutes = Object.entries(document.paths).flatMap(([template, operations]) =>
  Object.entries(operations)
    .filter(([, operation]) => operation.requestBody)
    .map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${template}`,
      method: method.toUpperCase(),
      // Path parameters are ids of the list above; the assertion below catches one it lacks.
      path: `/v1${template.replace(/\{[A-Za-z]+\}/g, (name) => PATH_IDS[name] ?? name)}`,
      required: operation.requestBody?.required === true,
      operation,
    })),
);
const requiredBodyRoutes = bodyRoutes.filter((route) => route.required);
const optionalBodyRoutes = bodyRoutes.filter((route) => !route.required);

/** A body that is generated while it is sent, in chunks, with no Content-Length. */
function chunkedBody(totalBytes: number, chunkBytes = 64 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= totalBytes) return controller.close();
      const chunk = new Uint8Array(Math.min(chunkBytes, totalBytes - sent)).fill(0x20);
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

describe("body routes", () => {
  it("are the ten operations of the contract that require a JSON body, and the four of named lists (issue 28)", () => {
    expect(requiredBodyRoutes.map((route) => route.name).sort()).toEqual(
      [
        "DELETE /storefront/wishlist/items",
        "PATCH /shop/settings",
        "PATCH /storefront/wishlist/items/{itemId}",
        "PATCH /storefront/wishlists/{listId}",
        "POST /exports",
        "POST /imports",
        "POST /imports/upload",
        "POST /keys",
        "POST /storefront/identify",
        "POST /storefront/wishlist/items",
        "POST /storefront/wishlist/items/{itemId}/move",
        "POST /storefront/wishlist/toggle",
        "POST /storefront/wishlists",
        "POST /webhooks",
      ].sort(),
    );
    for (const route of bodyRoutes) expect(route.path, route.name).not.toContain("{");
  });
});

describe("an empty or oddly typed JSON body (issue 11 item 12)", () => {
  it.each(requiredBodyRoutes.map((route) => [route.name, route] as const))(
    "%s: an empty body sent as JSON is a 400 problem, never a 500",
    async (_name, route) => {
      const response = await rawCall(app, validator, route.path, {
        method: route.method,
        headers: { ...privateAuth, "Content-Type": "application/json" },
        body: "",
      });
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(await response.json()).toMatchObject({
        type: type("body-required"),
        detail: expect.stringContaining("A JSON body is required"),
      });
    },
  );

  it("where the body is optional, an empty body sent as JSON is no body", async () => {
    for (const route of optionalBodyRoutes) {
      const aid = randomUUID();
      const call = (init: RequestInit) =>
        rawCall(app, validator, `${route.path}?aid=${aid}`, { method: route.method, ...init });
      const none = await call({ headers: publicAuth });
      const empty = await call({ headers: { ...publicAuth, "Content-Type": "application/json" }, body: "" });
      expect(empty.status, `${route.name}: ${await empty.clone().text()}`).toBe(none.status);
      expect(empty.status, route.name).toBeLessThan(500);
    }
  });

  it.each(
    bodyRoutes.flatMap((route) =>
      ["application/json;;;", "application/json; charset", "application/json; =utf-8", "application/json;a=b;;"].map(
        (contentType) => [route.name, contentType, route] as const,
      ),
    ),
  )("%s: Content-Type %j (malformed parameters) is a 415 problem", async (_name, contentType, route) => {
    const response = await rawCall(app, validator, route.path, {
      method: route.method,
      headers: { ...privateAuth, "Content-Type": contentType },
      body: "{}",
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ type: type("unsupported-media-type") });
  });

  it("still takes JSON with well-formed parameters, and an empty body sent with another type is a 415", async () => {
    const ok = await rawCall(app, validator, "/v1/keys", {
      method: "POST",
      headers: { ...privateAuth, "Content-Type": 'application/json; charset="utf-8"' },
      body: JSON.stringify({ label: "parameters" }),
    });
    expect(ok.status).toBe(201);
    const empty = await rawCall(app, validator, "/v1/keys", {
      method: "POST",
      headers: { ...privateAuth, "Content-Type": "text/plain" },
      body: "",
    });
    expect(empty.status).toBe(415);
  });
});

describe("request body caps (issue 11 item 4)", () => {
  it("refuses a chunked /v1 body past the cap while it streams, before authentication, with a 413 problem", async () => {
    const response = await app.request(`${BASE_URL}/v1/storefront/wishlist/toggle`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: chunkedBody(API_BODY_LIMIT_BYTES + 1),
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toMatchObject({
      type: type("payload-too-large"),
      status: 413,
      maxBytes: API_BODY_LIMIT_BYTES,
    });
  });

  it("applies the same cap on the app proxy and documents 413 on every body route", async () => {
    const response = await app.request(
      `${BASE_URL}${signedProxyPath("/proxy/v1/storefront/wishlist/toggle", { shop: shop.domain, logged_in_customer_id: "" })}`,
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: chunkedBody(API_BODY_LIMIT_BYTES + 1024),
        duplex: "half",
      } as RequestInit,
    );
    expect(response.status).toBe(413);
    for (const route of bodyRoutes) {
      const responses = (route.operation as { responses: Record<string, { description: string }> }).responses;
      expect(responses["413"]?.description, route.name).toBeTruthy();
    }
  });

  it("takes the largest legitimate body: settings with many storefront texts just under the cap", async () => {
    // As many texts as a shop may store (40 of its 50 locales, 50 texts each, under 128 KiB of JSON text),
    // in two-byte characters: over 200 KiB on the wire.
    const texts = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`text_${i}`, "é".repeat(48)]));
    const locale = (i: number) => `${"abcdefghij"[Math.floor(i / 10)]}${"abcdefghij"[i % 10]}`;
    const strings = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [locale(i), texts]));
    const body = JSON.stringify({
      strings,
      headlessOrigins: Array.from({ length: 50 }, (_, i) => `https://h${i}.example.com`),
    });
    expect(Buffer.byteLength(body)).toBeGreaterThan(200 * 1024);
    expect(Buffer.byteLength(body)).toBeLessThan(API_BODY_LIMIT_BYTES);
    const response = await rawCall(app, validator, "/v1/shop/settings", {
      method: "PATCH",
      headers: { ...privateAuth, "Content-Type": "application/json" },
      body: Readable.toWeb(Readable.from([Buffer.from(body)])) as ReadableStream,
      duplex: "half",
    } as RequestInit);
    expect(response.status, await response.clone().text()).toBe(200);
    expect((await response.json()).strings[locale(39)].text_49).toBe("é".repeat(48));
  });

  it.each(["/webhooks/app/uninstalled", "/webhooks/customers/redact", "/webhooks/any/future/topic"])(
    "caps platform webhook bodies (%s) before any handler reads them",
    async (path) => {
      const response = await app.request(`${BASE_URL}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Shopify-Topic": "app/uninstalled" },
        body: chunkedBody(OTHER_BODY_LIMIT_BYTES + 1),
        duplex: "half",
      } as RequestInit);
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({
        type: type("payload-too-large"),
        maxBytes: OTHER_BODY_LIMIT_BYTES,
      });
    },
  );

  it("leaves signed upload URLs their own 50 MB cap: a 2 MB file is stored", async () => {
    const { upload, target } = await createUpload({
      shopId: shop.id,
      baseUrl: BASE_URL,
      filename: "big.csv",
      contentType: "text/csv",
    });
    expect(upload.id).toMatch(/^upl_/);
    const size = 2 * 1024 * 1024;
    const response = await app.request(target.url, {
      method: "PUT",
      headers: target.headers,
      body: chunkedBody(size),
      duplex: "half",
    } as RequestInit);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({ size });
  });
});

describe("Cache-Control (issue 11 item 11)", () => {
  it("is no-store on every /v1 and /proxy/v1 answer (secrets, shopper data, errors), not on the API document", async () => {
    const created = await rawCall(app, validator, "/v1/keys", {
      method: "POST",
      headers: { ...privateAuth, "Content-Type": "application/json" },
      body: JSON.stringify({ label: "cache" }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");

    const aid = randomUUID();
    const answers = await Promise.all([
      app.request(`${BASE_URL}/v1/shop`, { headers: privateAuth }),
      app.request(`${BASE_URL}/v1/storefront/wishlist?aid=${aid}`, { headers: publicAuth }),
      app.request(`${BASE_URL}/v1/shop`),
      app.request(`${BASE_URL}/v1/no/such/path`, { headers: privateAuth }),
      app.request(
        `${BASE_URL}${signedProxyPath("/proxy/v1/storefront/wishlist", { shop: shop.domain, logged_in_customer_id: "42" })}`,
      ),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 401, 404, 200]);
    for (const answer of answers) expect(answer.headers.get("cache-control"), answer.url).toBe("no-store");

    for (const path of ["/v1/openapi.json", "/openapi.json"]) {
      const openApi = await app.request(`${BASE_URL}${path}`);
      expect(openApi.status).toBe(200);
      expect(openApi.headers.get("cache-control") ?? "").not.toContain("no-store");
    }
  });
});

// The real web process: memory while a large body streams in, the Content-Length fast path, and clients
// that hang up mid-body, on a socket.
describe("the web process under oversized and aborted bodies", () => {
  let web: RunningProcess;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    web = startProcess("server/index.ts", { NODE_ENV: "test", PORT: String(port), HOST: "127.0.0.1" });
    await web.waitForOutput(/web server listening/, 60_000);
  }, 90_000);
  afterAll(async () => {
    await web?.stop(60_000);
  });

  const rssMiB = () => {
    const status = readFileSync(`/proc/${web.child.pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
  };

  /** Sends `total` bytes (or none, with a declared length), stops when the answer comes; resolves with it. */
  function send(
    path: string,
    options: { total: number; contentLength?: number; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: IncomingMessage["headers"]; body: string; sent: number }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { "Content-Type": "application/json", ...options.headers };
      if (options.contentLength !== undefined) headers["Content-Length"] = String(options.contentLength);
      const req = httpRequest({ host: "127.0.0.1", port, method: "POST", path, headers });
      let sent = 0;
      let answered = false;
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!answered && sent < options.total) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        if (!answered && options.contentLength === undefined) req.end();
      };
      req.on("response", (res) => {
        answered = true;
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (data: string) => (body += data));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body, sent }));
      });
      // Once the server has answered and closed, the rest of the upload fails: that is expected.
      req.on("error", (error) => {
        if (!answered) reject(error);
      });
      req.flushHeaders();
      pump();
    });
  }

  it("answers 413 to a 200 MB chunked body after reading a small part of it, and its memory does not grow with it", async () => {
    const total = 200 * 1024 * 1024;
    const before = rssMiB();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB())), 5);
    try {
      const answer = await send("/v1/storefront/wishlist/toggle", { total, headers: publicAuth });
      expect(answer.status).toBe(413);
      expect(answer.headers["content-type"]).toBe("application/problem+json");
      expect(JSON.parse(answer.body)).toMatchObject({ type: expect.stringMatching(/payload-too-large$/) });
      // Refused while streaming: the client was stopped long before it sent the whole body.
      expect(answer.sent).toBeLessThan(total / 4);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rssMiB());
    expect(peak - before).toBeLessThan(48);
    // The same for a platform webhook path.
    const webhook = await send("/webhooks/app/uninstalled", { total: 20 * 1024 * 1024 });
    expect(webhook.status).toBe(413);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it("answers 413 from a declared Content-Length alone, without waiting for a byte of the body", async () => {
    const answer = await send("/v1/storefront/wishlist/toggle", {
      total: 0,
      contentLength: 100 * 1024 * 1024,
      headers: publicAuth,
    });
    expect(answer.status).toBe(413);
    expect(answer.sent).toBe(0);
    expect(JSON.parse(answer.body)).toMatchObject({ maxBytes: API_BODY_LIMIT_BYTES });
    const webhook = await send("/webhooks/app/uninstalled", { total: 0, contentLength: OTHER_BODY_LIMIT_BYTES + 1 });
    expect(webhook.status).toBe(413);
  });

  /**
   * A client that sends its whole declared body at a steady pace and reads the answer only once it has sent
   * it all, as many HTTP libraries do. Resolves with what it read, or the socket error it got instead.
   */
  function sendAllThenRead(
    path: string,
    total: number,
    options: { seconds: number; chunked?: boolean; method?: string },
  ) {
    return new Promise<{ answer: string; error?: string; sent: number }>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port });
      const received: Buffer[] = [];
      let error: string | undefined;
      socket.pause(); // read nothing until the body is sent
      socket.on("data", (data: Buffer) => received.push(data));
      socket.on("error", (cause: NodeJS.ErrnoException) => (error ??= cause.code ?? cause.message));
      socket.on("close", () => resolve({ answer: Buffer.concat(received).toString("utf8"), error, sent }));
      const head = [
        `${options.method ?? "POST"} ${path} HTTP/1.1`,
        "Host: 127.0.0.1",
        "Content-Type: application/json",
        options.chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${total}`,
        ...Object.entries(publicAuth).map(([name, value]) => `${name}: ${value}`),
      ];
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      const pause = (options.seconds * 1000) / Math.ceil(total / chunk.length);
      const write = (data: Buffer | string) => new Promise<void>((done) => socket.write(data, () => done()));
      let sent = 0;
      socket.once("connect", async () => {
        await write(`${head.join("\r\n")}\r\n\r\n`);
        while (sent < total && !error) {
          const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
          sent += piece.length;
          await write(
            options.chunked
              ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")])
              : piece,
          );
          await new Promise((done) => setTimeout(done, pause));
        }
        if (options.chunked && !error) await write("0\r\n\r\n");
        socket.end(); // then read the answer; the server closes or keeps the connection as it likes
        socket.resume();
      });
    });
  }

  it("lets a client that sends a 20 MB body for a few seconds read the 413 instead of a connection reset", async () => {
    const { answer, error } = await sendAllThenRead("/v1/storefront/wishlist/toggle", 20 * 1024 * 1024, { seconds: 3 });
    expect(error).toBeUndefined();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain("payload-too-large");
    // Chunked, refused part-way through: the same.
    const chunked = await sendAllThenRead("/v1/storefront/wishlist/toggle", 20 * 1024 * 1024, {
      seconds: 3,
      chunked: true,
    });
    expect(chunked.error).toBeUndefined();
    expect(chunked.answer).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("reads what follows an early answer only within bounds: a client sending 100 MB is cut off near 64 MiB", async () => {
    const { sent, error } = await sendAllThenRead("/v1/storefront/wishlist/toggle", 100 * 1024 * 1024, { seconds: 3 });
    expect(error).toBeDefined();
    expect(sent).toBeGreaterThan(LINGER_BYTES);
    expect(sent).toBeLessThan(100 * 1024 * 1024);
    // A GET or HEAD may carry a body too: the same bounds, on any path.
    for (const method of ["GET", "HEAD"]) {
      const cut = await sendAllThenRead("/healthz", 100 * 1024 * 1024, { seconds: 3, method });
      expect(cut.error, method).toBeDefined();
      expect(cut.sent, method).toBeLessThan(100 * 1024 * 1024);
    }
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it("ends a connection whose client stops sending the rest of an answered body", async () => {
    // A GET that declares 1 GB and sends 1 KB, then nothing: answered at once, then closed once idle.
    const socket = connect({ host: "127.0.0.1", port });
    let answer = "";
    socket.on("data", (data: Buffer) => (answer += data.toString("utf8")));
    const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now())));
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const sentAt = Date.now();
    socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000000\r\n\r\n${" ".repeat(1024)}`);
    const closedAt = await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    // Not before the idle bound, and long before Node's own five-minute request timeout.
    expect(closedAt - sentAt).toBeGreaterThanOrEqual(LINGER_IDLE_MS);
    expect(closedAt - sentAt).toBeLessThan(LINGER_MS);
  });

  /** A request whose client sends part of the body, then hangs up; resolves once the server logged it. */
  async function abortMidBody(method: string, path: string, headers: Record<string, string>) {
    const requestId = `abort-${randomUUID()}`;
    const declared = 64 * 1024;
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      method,
      path,
      headers: {
        ...headers,
        "Content-Type": "application/json",
        "X-Request-Id": requestId,
        ...(headers["Transfer-Encoding"] ? {} : { "Content-Length": String(declared) }),
      },
    });
    req.on("error", () => {}); // the hang-up is the point
    req.on("response", (res) => res.resume());
    req.write('{"label": "');
    req.write(" ".repeat(8 * 1024));
    // Hang up once the request is on the wire (the server has its headers and part of its body).
    await new Promise<void>((resolve) => req.once("socket", (socket) => socket.once("connect", () => resolve())));
    await new Promise<void>((resolve) => req.socket!.write("", () => resolve()));
    req.destroy();
    const started = Date.now();
    for (;;) {
      const line = web
        .output()
        .split("\n")
        .find((entry) => entry.includes(requestId) && entry.includes('"msg":"request"'));
      if (line) return JSON.parse(line) as { status: number };
      if (Date.now() - started > 20_000) throw new Error(`no request log for ${requestId}:\n${web.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it("reads a body of a declared length from the socket as the Fetch Request would read it, chunked ones too", async () => {
    // A body of a declared length is read from the Node request (body.server.ts); a chunked one through the
    // Fetch Request. Both answer alike, a byte order mark is dropped, and Idempotency-Key fingerprints the text.
    const base = `http://127.0.0.1:${port}/v1/storefront/wishlist/toggle`;
    const anonymousId = randomUUID();
    const json = JSON.stringify({ productId: "7001", handle: "bom", anonymousId });
    const headers = { ...publicAuth, "Content-Type": "application/json" };
    const sized = await fetch(base, { method: "POST", headers, body: `\uFEFF${json}` });
    expect(sized.status, await sized.clone().text()).toBe(200);
    expect(await sized.json()).toMatchObject({ added: true, count: 1 });
    const chunked = await fetch(base, {
      method: "POST",
      headers,
      body: Readable.toWeb(Readable.from([Buffer.from(json.slice(0, 10)), Buffer.from(json.slice(10))])) as never,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status, await chunked.clone().text()).toBe(200);
    expect(await chunked.json()).toMatchObject({ added: false, count: 0 });
    const malformed = await fetch(base, { method: "POST", headers, body: Buffer.from([0x7b, 0xff, 0x7d]) });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).type).toMatch(/\/problems\/malformed-json$/);

    const keyed = { ...headers, "Idempotency-Key": `edge-${randomUUID()}` };
    const first = await fetch(base, { method: "POST", headers: keyed, body: json });
    const again = await fetch(base, { method: "POST", headers: keyed, body: json });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    const otherBody = await fetch(base, { method: "POST", headers: keyed, body: json.replace("7001", "7002") });
    expect(otherBody.status).toBe(422);
  });

  it("answers a POST without a body as browsers send it (Content-Length: 0, no Content-Type) as no body, never a 500", async () => {
    // What the SDK's `client.POST("/storefront/wishlist/share")` sends from a browser or from Node: the optional
    // body routes answer it as they answer a request with no body at all (in-process, no Node request).
    const routes = optionalBodyRoutes.filter((route) => ["POST", "PUT", "PATCH"].includes(route.method));
    expect(routes.map((route) => route.name)).toContain("POST /storefront/wishlist/share");
    for (const route of routes) {
      const aid = randomUUID();
      const none = await rawCall(app, validator, `${route.path}?aid=${aid}`, {
        method: route.method,
        headers: publicAuth,
      });
      // Node's fetch, as a browser's, sends `Content-Length: 0` with a POST, PUT or PATCH that has no body.
      const sent = await fetch(`http://127.0.0.1:${port}${route.path}?aid=${randomUUID()}`, {
        method: route.method,
        headers: publicAuth,
      });
      expect(sent.status, `${route.name}: ${await sent.clone().text()}`).toBe(none.status);
      expect(sent.status, route.name).toBeLessThan(500);
    }
  });

  it("answers a client that hangs up mid-body with a 4xx on every body route, never a 500 or an error log", async () => {
    const statuses: Record<string, number> = {};
    for (const route of bodyRoutes) {
      statuses[route.name] = (await abortMidBody(route.method, route.path, privateAuth)).status;
    }
    statuses["chunked POST /keys"] = (
      await abortMidBody("POST", "/v1/keys", { ...privateAuth, "Transfer-Encoding": "chunked" })
    ).status;
    for (const [name, status] of Object.entries(statuses)) expect(status, name).toBe(400);
    expect(web.output()).not.toContain("unhandled error");
    expect(web.output()).not.toMatch(/"level":(50|60)/);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });
});
