import { afterAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { createShopWithKey } from "../factories";
import { until } from "../support/poll";
import { freePort, startProcess, type RunningProcess } from "../support/processes";

// Two real web processes on this file's database and Redis prefix, as behind a load balancer.
const servers: RunningProcess[] = [];
const ports: number[] = [];
for (let index = 0; index < 2; index++) {
  const port = await freePort();
  const server = startProcess("server/index.ts", {
    NODE_ENV: "test",
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
  });
  servers.push(server);
  ports.push(port);
}
await Promise.all(
  ports.map((port) =>
    until(
      () =>
        fetch(`http://127.0.0.1:${port}/healthz`).then(
          (response) => response.ok,
          () => false,
        ),
      Boolean,
      `the web process on port ${port} answering /healthz`,
    ),
  ),
);
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

const url = (index: number, path: string) => `http://127.0.0.1:${ports[index % 2]}${path}`;

describe("rate limits across two app processes", () => {
  it("counts 600 a minute per shop exactly, whichever process answers, then 429 with Retry-After", async () => {
    const { secret } = await createShopWithKey();
    const headers = { Authorization: `Bearer ${secret}` };
    const remaining: number[] = [];
    for (let batch = 0; batch < 30; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, index) => fetch(url(batch * 20 + index, "/v1/shop"), { headers })),
      );
      for (const response of responses) {
        expect(response.status).toBe(200);
        expect(response.headers.get("x-ratelimit-limit-shop")).toBe("600");
        remaining.push(Number(response.headers.get("x-ratelimit-remaining-shop")));
        await response.arrayBuffer();
      }
    }
    // Every request consumed exactly one unit of one shared counter.
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 600 }, (_, index) => index));

    for (const index of [0, 1]) {
      const over = await fetch(url(index, "/v1/shop"), { headers });
      expect(over.status).toBe(429);
      const retryAfter = Number(over.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(over.headers.get("ratelimit-policy")).toBe('"shop";q=600;w=60');
      expect(over.headers.get("ratelimit")).toBe(`"shop";r=0;t=${retryAfter}`);
      expect(await over.json()).toMatchObject({
        type: `http://localhost:${ports[index]}/problems/rate-limited`,
        status: 429,
        bucket: "shop",
      });
    }

    // Another shop has its own budget.
    const other = await createShopWithKey();
    expect((await fetch(url(0, "/v1/shop"), { headers: { Authorization: `Bearer ${other.secret}` } })).status).toBe(
      200,
    );
  });
});

describe("idempotency across two app processes", () => {
  it("creates one key for 10 parallel identical POSTs spread over both processes", async () => {
    const { shop, secret } = await createShopWithKey();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        fetch(url(index, "/v1/keys"), {
          method: "POST",
          headers: {
            Authorization: `Bearer ${secret}`,
            "Content-Type": "application/json",
            "Idempotency-Key": "multi",
          },
          body: JSON.stringify({ label: "multi-process" }),
        }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    const keys = await database()
      .selectFrom("ApiKey")
      .select("id")
      .where("shopId", "=", shop.id)
      .where("label", "=", "multi-process")
      .execute();
    expect(keys).toHaveLength(1);
    const replay = await fetch(url(1, "/v1/keys"), {
      method: "POST",
      headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json", "Idempotency-Key": "multi" },
      body: JSON.stringify({ label: "multi-process" }),
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });
});
