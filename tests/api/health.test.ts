import { describe, expect, it } from "vitest";
import { BASE_URL, createTestApp } from "../support/http";

const app = await createTestApp();

describe("health and readiness", () => {
  it("GET /healthz answers 200 while the process is up", async () => {
    const response = await app.request(`${BASE_URL}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("GET /favicon.ico answers 204 No Content (the app has no icon), cached for a day", async () => {
    const response = await app.request(`${BASE_URL}/favicon.ico`);
    expect(response.status).toBe(204);
    expect(response.headers.get("cache-control")).toBe("public, max-age=86400");
  });

  it("GET /readyz answers 200 when the database and Redis both answer", async () => {
    const response = await app.request(`${BASE_URL}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ready", checks: { database: "ok", redis: "ok" } });
  });

  it("echoes a well-formed X-Request-Id and generates one otherwise", async () => {
    const echoed = await app.request(`${BASE_URL}/healthz`, { headers: { "X-Request-Id": "req-123.abc" } });
    expect(echoed.headers.get("x-request-id")).toBe("req-123.abc");

    const generated = await app.request(`${BASE_URL}/healthz`, { headers: { "X-Request-Id": "bad id with spaces" } });
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
