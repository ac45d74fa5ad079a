import { OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { V1Env } from "~/api/v1/context";
import { apiRoute } from "~/api/v1/route.server";
import { problemResponse } from "~/lib/problem-response.server";
import { createShopWithKey } from "../factories";
import { signedProxyPath } from "../support/api";

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
