import { describe, expect, it } from "vitest";
import { freePort } from "../support/processes";

// Point this file's app at a port where no Redis listens, before any app module reads the environment.
process.env.REDIS_URL = `redis://127.0.0.1:${await freePort()}`;
const { BASE_URL, createTestApp } = await import("../support/http");
const app = await createTestApp();

describe("readiness when Redis is down", () => {
  it("answers a 503 problem naming Redis, with Retry-After, while the database is fine", async () => {
    const response = await app.request(`${BASE_URL}/readyz`);
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.json()).toMatchObject({
      type: "http://localhost:3000/problems/service-unavailable",
      title: "Service unavailable",
      status: 503,
      detail: "Not ready: redis unreachable.",
      instance: "/readyz",
      checks: { database: "ok", redis: "unreachable" },
    });
  });

  it("still answers /healthz 200: the process is up", async () => {
    const response = await app.request(`${BASE_URL}/healthz`);
    expect(response.status).toBe(200);
  });
});
