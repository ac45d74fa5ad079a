import { copyFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "@remix-run/node";
import { afterAll, describe, expect, inject, it } from "vitest";
import { ROOT, TEST_DATA_DIR, withAdminClient } from "../../scripts/lib/databases";

/**
 * /readyz while the database cannot be used, then once it can again, on the real engine of the run:
 *  - SQLite: the database file holds bytes that are not a database (a damaged file or a wrong path), then
 *    the real database is written back in its place. Set before any app module reads the environment.
 *  - PostgreSQL: the file's database stops accepting connections and its sessions are ended (as when the
 *    server is shutting down or the database is being restored), then accepts them again.
 */
const engine = inject("engine");
let takeDown: () => Promise<void>;
let bringBack: () => Promise<void>;
let cleanup = () => {};

if (engine === "sqlite") {
  const file = path.join(TEST_DATA_DIR, `damaged-${process.pid}-${Date.now()}.db`);
  writeFileSync(file, Buffer.alloc(8_192, 0x2a));
  const healthy = process.env.DATABASE_URL!.slice("file:".length);
  process.env.DATABASE_URL = `file:${file}`;
  takeDown = async () => {}; // down from the start
  bringBack = async () => copyFileSync(healthy, file); // in place: the open connection reads it next time
  cleanup = () => {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${file}${suffix}`, { force: true });
  };
} else {
  const database = new URL(process.env.DATABASE_URL!).pathname.slice(1);
  const allowConnections = (allow: boolean) =>
    withAdminClient(async (client) => {
      await client.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS ${allow}`);
      if (!allow) {
        await client.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
          [database],
        );
      }
    });
  takeDown = () => allowConnections(false);
  bringBack = () => allowConnections(true);
}
afterAll(async () => {
  await bringBack();
  cleanup();
});

// The web process's HTTP app on the production Remix build. Not through tests/support/http.ts: that
// prepares the database first, which a damaged SQLite file refuses; /readyz must still answer.
const { createHttpApp } = await import("~/api/http-app.server");
const { createRequestHandler } = await import("@remix-run/node");
const build = (await import(pathToFileURL(path.join(ROOT, "build/server/index.js")).href)) as ServerBuild;
const remix = createRequestHandler(build, "production");
const app = createHttpApp({ remix: (request) => remix(request) });
const BASE_URL = "http://localhost:3000";

async function readiness() {
  const response = await app.request(`${BASE_URL}/readyz`);
  return { response, body: await response.json() };
}

describe(`readiness when the database (${engine}) cannot be used`, () => {
  it("answers a 503 problem naming the database, with Retry-After, while Redis is fine; /healthz stays 200", async () => {
    await takeDown();
    const { response, body } = await readiness();
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("retry-after")).toBe("5");
    expect(body).toMatchObject({
      type: "http://localhost:3000/problems/service-unavailable",
      status: 503,
      detail: "Not ready: database unreachable.",
      instance: "/readyz",
      checks: { database: "unreachable", redis: "ok" },
    });
    expect((await app.request(`${BASE_URL}/healthz`)).status).toBe(200);
  });

  it("is ready again once the database is back, without a restart", async () => {
    await bringBack();
    let last = await readiness();
    for (const started = Date.now(); last.response.status !== 200 && Date.now() - started < 90_000;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      last = await readiness();
    }
    expect(last.response.status).toBe(200);
    expect(last.body).toEqual({ status: "ready", checks: { database: "ok", redis: "ok" } });
  });
});
