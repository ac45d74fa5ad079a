import type { IncomingHttpHeaders, Server } from "node:http";
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { serve } from "@hono/node-server";
import { afterAll, describe, expect, it } from "vitest";
import { resolveClientAddress } from "~/api/v1/client-address.server";
import type { V1Env } from "~/api/v1/context";
import { apiRoute } from "~/api/v1/route.server";
import { problemResponse } from "~/api/problem-response.server";
import { createShopWithKey } from "../factories";
import { getEnv } from "~/env.server";
import { signedProxyPath } from "../support/openapi-client";
import { createTestApp } from "../support/http";

// A storefront-mode route (all three modes) through the real middleware chain and Redis; the
// storefront endpoints themselves arrive with the storefront issue.
const storefront = new OpenAPIHono<V1Env>();
storefront.openapi(
  apiRoute({
    method: "get",
    path: "/storefront/probe",
    modes: ["private", "public", "proxy"],
    responses: {
      200: { description: "ok", content: { "application/json": { schema: z.object({ ok: z.boolean() }) } } },
    },
  }),
  (c) => c.json({ ok: true }, 200),
);
storefront.onError((error) => problemResponse(error));
const root = new OpenAPIHono<V1Env>().route("/v1", storefront).route("/proxy/v1", storefront);
const { shop } = await createShopWithKey();
const publicHeaders = { "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey };
const aid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

async function burst(count: number, call: () => Promise<Response> | Response) {
  const statuses: number[] = [];
  for (let index = 0; index < count; index++) statuses.push((await call()).status);
  return statuses;
}

describe("the storefront (shopper) bucket: 60 a minute per shopper within a shop", () => {
  it("limits one anonymous id, leaving another anonymous id its own budget", async () => {
    const first = await burst(60, () =>
      root.request(`http://x/v1/storefront/probe?aid=${aid(1)}`, { headers: publicHeaders }),
    );
    expect(first.every((status) => status === 200)).toBe(true);
    const over = await root.request(`http://x/v1/storefront/probe?aid=${aid(1)}`, { headers: publicHeaders });
    expect(over.status).toBe(429);
    expect(over.headers.get("x-ratelimit-limit-shopper")).toBe("60");
    expect(over.headers.get("x-ratelimit-remaining-shopper")).toBe("0");
    expect(over.headers.get("ratelimit-policy")).toBe('"shopper";q=60;w=60');
    const other = await root.request(`http://x/v1/storefront/probe?aid=${aid(2)}`, { headers: publicHeaders });
    expect(other.status).toBe(200);
    expect(other.headers.get("x-ratelimit-remaining-shopper")).toBe("59");
  });

  it("keys proxy calls by the signed customer id, not by aid", async () => {
    const call = (customer: string, anonymous: string) =>
      root.request(
        `http://x${signedProxyPath("/proxy/v1/storefront/probe", { shop: shop.domain, logged_in_customer_id: customer, aid: anonymous })}`,
      );
    const statuses = await burst(60, () => call("9001", aid(Math.floor(Math.random() * 1e6))));
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect((await call("9001", aid(3))).status).toBe(429);
    expect((await call("9002", aid(3))).status).toBe(200);
  });
});

describe("the storefront address bucket: a limit that rotating the anonymous id does not escape", async () => {
  const app = await createTestApp();
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once("listening", () => resolve())));
  const port = (server.address() as AddressInfo).port;
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const limit = getEnv().RATE_LIMIT_STOREFRONT_PER_ADDRESS_PER_MINUTE;

  /** A real request over TCP, from the given loopback address (every 127.x address is this machine). */
  function get(path: string, headers: Record<string, string>, from = "127.0.0.1") {
    return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const request = httpRequest(
        { host: "127.0.0.1", port, path, headers, localAddress: from, agent: false },
        (response) => {
          let body = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => (body += chunk));
          response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body }));
        },
      );
      request.on("error", reject);
      request.end();
    });
  }

  /** `count` requests, 20 at a time; `call` gets the request's index. */
  async function many(count: number, call: (index: number) => ReturnType<typeof get>) {
    const results: Awaited<ReturnType<typeof get>>[] = [];
    for (let start = 0; start < count; start += 20) {
      const batch = Array.from({ length: Math.min(20, count - start) }, (_, offset) => call(start + offset));
      results.push(...(await Promise.all(batch)));
    }
    return results;
  }

  it("refuses a public-key client that rotates aid (and X-Forwarded-For) once its address used the bucket", async () => {
    const { shop } = await createShopWithKey();
    const headers = (index: number) => ({
      "X-Service-Shop": shop.domain,
      "X-Service-Public-Key": shop.publicKey,
      // Not trusted: no proxy hops are configured, so the socket's address counts.
      "X-Forwarded-For": `203.0.113.${index % 250}`,
    });
    const results = await many(limit + 10, (index) =>
      get(`/v1/storefront/wishlist?aid=${aid(100_000 + index)}`, headers(index)),
    );
    const statuses = results.map((result) => result.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(limit);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
    const refused = results.find((result) => result.status === 429)!;
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect(refused.headers["x-ratelimit-limit-address"]).toBe(String(limit));
    expect(refused.headers["x-ratelimit-remaining-address"]).toBe("0");
    expect(refused.headers["ratelimit-policy"]).toBe(`"shopper";q=60;w=60, "address";q=${limit};w=60`);
    const problem = JSON.parse(refused.body);
    expect(problem).toMatchObject({
      type: "http://localhost:3000/problems/rate-limited",
      status: 429,
      bucket: "address",
    });

    // Another address has its own budget; the shopper bucket is untouched for a fresh anonymous id.
    const other = await get(`/v1/storefront/wishlist?aid=${aid(99)}`, headers(0), "127.0.0.2");
    expect(other.status).toBe(200);
    expect(other.headers["x-ratelimit-remaining-address"]).toBe(String(limit - 1));
    expect(other.headers["x-ratelimit-remaining-shopper"]).toBe("59");
  });

  it("counts app proxy guests by the address the platform forwards, not by the platform's own", async () => {
    const { shop } = await createShopWithKey();
    const call = (index: number, forwardedFor: string) =>
      get(
        signedProxyPath("/proxy/v1/storefront/wishlist", {
          shop: shop.domain,
          logged_in_customer_id: "",
          aid: aid(200_000 + index),
        }),
        { "X-Forwarded-For": forwardedFor },
      );
    // The shopper prepends addresses of its own choosing; only the entry the platform appended counts.
    const results = await many(limit + 5, (index) => call(index, `10.9.${index % 250}.1, 198.51.100.7`));
    expect(results.filter((result) => result.status === 200)).toHaveLength(limit);
    const refused = results.filter((result) => result.status === 429);
    expect(refused).toHaveLength(5);
    expect(JSON.parse(refused[0]!.body).bucket).toBe("address");

    // Another shopper behind the same platform servers is not affected.
    const neighbour = await call(limit + 10, "198.51.100.8");
    expect(neighbour.status).toBe(200);
    expect(neighbour.headers["x-ratelimit-remaining-address"]).toBe(String(limit - 1));
  });
});

describe("the client address", () => {
  const resolve = (peer: string | undefined, forwardedFor?: string, trustedHops = 0, viaAppProxy = false) =>
    resolveClientAddress({ peer, forwardedFor, trustedHops, viaAppProxy });

  it("is the socket's peer unless proxy hops are trusted", () => {
    expect(resolve("192.0.2.10", "203.0.113.1")).toBe("192.0.2.10");
    expect(resolve("::ffff:192.0.2.10")).toBe("192.0.2.10");
    expect(resolve(undefined, "203.0.113.1")).toBeUndefined();
  });

  it("believes exactly the trusted hops, never what the client wrote further left", () => {
    expect(resolve("10.0.0.2", "6.6.6.6, 203.0.113.1", 1)).toBe("203.0.113.1");
    expect(resolve("10.0.0.2", "6.6.6.6, 203.0.113.1, 10.0.0.1", 2)).toBe("203.0.113.1");
    expect(resolve("10.0.0.2", "203.0.113.1", 3)).toBe("203.0.113.1");
    expect(resolve("10.0.0.2", "not-an-ip, 10.0.0.1", 2)).toBe("10.0.0.1");
    expect(resolve("10.0.0.2", "", 1)).toBe("10.0.0.2");
  });

  it("takes the app proxy's forwarded shopper address, one hop behind the trusted ones", () => {
    expect(resolve("23.227.38.1", "6.6.6.6, 198.51.100.7", 0, true)).toBe("198.51.100.7");
    expect(resolve("10.0.0.2", "198.51.100.7, 23.227.38.1", 1, true)).toBe("198.51.100.7");
  });

  it("counts IPv6 clients per /64 network", () => {
    expect(resolve("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(resolve("2001:db8:1:2:bbbb::9")).toBe("2001:db8:1:2::/64");
    expect(resolve("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
  });
});
