import { OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { V1Env } from "~/api/v1/context";
import { apiRoute } from "~/api/v1/route.server";
import { createShopWithKey } from "../factories";

// The mechanism on a route defined for this test: v1 has no deprecated operation yet.
const app = new OpenAPIHono<V1Env>();
const since = new Date("2026-09-01T00:00:00Z");
const sunset = new Date("2027-03-01T00:00:00Z");
app.openapi(
  apiRoute({
    method: "get",
    path: "/old-thing",
    modes: ["private"],
    deprecation: { since, sunset, link: "https://example.com/changelog#old-thing" },
    responses: {
      200: { description: "ok", content: { "application/json": { schema: z.object({ ok: z.boolean() }) } } },
    },
  }),
  (c) => c.json({ ok: true }, 200),
);
app.openapi(
  apiRoute({
    method: "get",
    path: "/current-thing",
    modes: ["private"],
    responses: {
      200: { description: "ok", content: { "application/json": { schema: z.object({ ok: z.boolean() }) } } },
    },
  }),
  (c) => c.json({ ok: true }, 200),
);
const { secret } = await createShopWithKey();
// Mounted under /v1 as the real API is.
const root = new OpenAPIHono<V1Env>().route("/v1", app);
const call = (path: string) =>
  root.request(`http://localhost:3000/v1${path}`, { headers: { Authorization: `Bearer ${secret}` } });

describe("deprecation headers driven by route definitions", () => {
  it("sends Deprecation (RFC 9745), Sunset (RFC 8594) and a deprecation Link on a deprecated route", async () => {
    const response = await call("/old-thing");
    expect(response.status).toBe(200);
    expect(response.headers.get("deprecation")).toBe(`@${since.getTime() / 1000}`);
    expect(response.headers.get("sunset")).toBe("Mon, 01 Mar 2027 00:00:00 GMT");
    expect(response.headers.get("link")).toBe('<https://example.com/changelog#old-thing>; rel="deprecation"');
  });

  it("sends none on a current route, and marks only the deprecated operation in the OpenAPI document", async () => {
    const response = await call("/current-thing");
    expect(response.headers.get("deprecation")).toBeNull();
    const document = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
    expect(document.paths?.["/old-thing"]?.get?.deprecated).toBe(true);
    expect(document.paths?.["/current-thing"]?.get?.deprecated).toBeUndefined();
  });
});
