import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { networkInterfaces } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, TEST_DATA_DIR } from "../../scripts/lib/databases";
import { freePort, startProcess, type RunningProcess } from "../support/processes";

// The development server (Vite in middleware mode inside our node:http server) as `npm run dev` starts it,
// on this file's database, without HOST: issue 11 item 3.
const TUNNEL_HOST = "wishlist-dev-tunnel.trycloudflare.com";

// Stand-ins for the database file and the demo key file in the git-ignored data directory.
const MARK = `sentinel-${randomBytes(6).toString("hex")}`;
const SECRET_FILES = [`${MARK}.db`, `${MARK}.json`, `${MARK}.db-wal`];
for (const file of SECRET_FILES) writeFileSync(path.join(TEST_DATA_DIR, file), `SQLite format 3\0${MARK}`);
const DATA = `/${path.relative(ROOT, TEST_DATA_DIR)}`; // /.data/test

// A Vite cache of its own: the file runs once per engine, possibly at the same time, and two dev servers
// optimising into one cache directory swap its files under each other.
const viteCache = path.join(ROOT, "node_modules", ".vite", `dev-server-test-${process.pid}`);

let web: RunningProcess;
let port: number;

beforeAll(async () => {
  port = await freePort();
  web = startProcess("server/index.ts", {
    NODE_ENV: "development",
    HOST: undefined,
    PORT: String(port),
    SHOPIFY_APP_URL: `https://${TUNNEL_HOST}`,
    VITE_CACHE_DIR: viteCache,
  });
  await web.waitForOutput(/web server listening/, 90_000);
}, 120_000);

afterAll(async () => {
  await web?.stop();
  for (const file of SECRET_FILES) rmSync(path.join(TEST_DATA_DIR, file), { force: true });
  rmSync(viteCache, { recursive: true, force: true });
});

/** A raw GET: the path goes on the wire exactly as written (no URL normalisation), with any Host. */
function get(rawPath: string, host = `localhost:${port}`) {
  return new Promise<{ status: number; type: string; body: Buffer }>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, method: "GET", path: rawPath, headers: { Host: host } });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode!,
          type: String(res.headers["content-type"] ?? ""),
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the development server", () => {
  it("listens on 127.0.0.1 only when HOST is not set", async () => {
    expect(web.output()).toMatch(/"host":"127\.0\.0\.1"/);
    const external = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && entry.family === "IPv4" && !entry.internal);
    if (external) {
      await expect(fetch(`http://${external.address}:${port}/healthz`)).rejects.toThrow();
    }
  });

  it("serves Vite's hot-reload socket on the web server's own port, and only to the app's own pages", async () => {
    /** A WebSocket upgrade on the web port: the status it gets (101 when Vite takes it). */
    const upgrade = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest({
          host: "127.0.0.1",
          port,
          path: "/",
          headers: {
            Host: `localhost:${port}`,
            Connection: "Upgrade",
            Upgrade: "websocket",
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": randomBytes(16).toString("base64"),
            ...headers,
          },
        });
        req.on("upgrade", (res, socket) => {
          socket.destroy();
          resolve(res.statusCode!);
        });
        req.on("response", (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on("error", reject);
        req.end();
      });
    // Vite's own reachability probe and a hot-reload client: upgraded on the web port (no second port).
    expect(await upgrade({ "Sec-WebSocket-Protocol": "vite-ping" })).toBe(101);
    expect(await upgrade({ "Sec-WebSocket-Protocol": "vite-hmr" })).toBe(101);
    // A page of another site opening the socket (a browser sends its Origin) without the token Vite writes
    // into the app's own pages: refused, so no other site can listen to the source the dev server sends.
    expect(await upgrade({ "Sec-WebSocket-Protocol": "vite-hmr", Origin: "https://evil.example" })).not.toBe(101);
    // The socket is only for a host the dev server accepts.
    expect(await upgrade({ "Sec-WebSocket-Protocol": "vite-hmr", Host: "evil.example" })).not.toBe(101);
  });

  const root = ROOT;
  const denied = [
    ...SECRET_FILES.map((file) => `${DATA}/${file}`),
    `/v1/..${DATA}/${MARK}.json`,
    `/v1/%2e%2e${DATA}/${MARK}.json`,
    `/v1/%2E%2E${DATA.replace(".data", "%2edata")}/${MARK}.db`,
    `/app/..${DATA}/${MARK}.db`,
    `/node_modules/..${DATA}/${MARK}.db`,
    `/@fs${ROOT}${DATA}/${MARK}.json`,
    `/@fs${ROOT}/node_modules/..${DATA}/${MARK}.db`,
    `${DATA}/${MARK}.json?raw`,
    `${DATA}/${MARK}.json?import`,
    "/.data/test",
    "/.data/demo-shop.json",
    "/.env",
    "/.env.example",
    "/.git/config",
    "/package.json",
    "/package-lock.json",
    "/prisma/schema.prisma",
    "/prisma/postgres/schema.prisma",
    "/README.md",
    "/tsconfig.json",
    "/vite.config.ts",
    "/scripts/dev.ts",
    "/server/web.ts",
    "/build/server/index.js",
    "/tests/setup/per-file.ts",
    "/app/env.server.ts",
    "/app/data/database.server.ts",
    "/app/api/v1/auth.server.ts",
    "/app/generated/kysely/database.ts",
    "/node_modules/.prisma/client/index.js",
    "/node_modules/prisma/package.json",
    `/@fs${root}/package.json`,
    `/@fs${root}/.data/test`,
    `/@fs${root}/app/env.server.ts`,
    `/@fs${root}/prisma/schema.prisma`,
    "/@fs/etc/passwd",
    "/@fs/etc/hostname",
    `/@id/${root}/package.json`,
    "/@id/.data/demo-shop.json",
    "/v1/../package.json",
    "/v1/../.data/demo-shop.json",
    "/v1/%2e%2e/package.json",
    "/%2e%2e/package.json",
    "/app/%2e%2e/package.json",
    "/app/..%2fpackage.json",
    "/node_modules/..%2f.env.example",
    "/node_modules/%2e%2e/prisma/schema.prisma",
    "/app/root.tsx/../../package.json",
    "/%2e%64ata/test",
    "/package.json?import",
    "/package.json?raw",
    "/prisma/schema.prisma?raw",
    "/app/env.server.ts?raw",
    "/favicon.svg/../package.json",
    "/docs/admin.md",
    "/docs/screenshots/../admin.md",
    "/docs/decisions/001-two-database-engines.md",
  ];

  it.each(denied)("does not serve %s", async (rawPath) => {
    const answer = await get(rawPath);
    expect([403, 404], `${rawPath} answered ${answer.status}`).toContain(answer.status);
    const text = answer.body.toString("utf8");
    // None of the project's files, whatever the status: no package manifest, schema, source or database.
    expect(text).not.toContain('"wishlist-service"');
    expect(text).not.toContain("datasource db");
    expect(text).not.toContain("SQLite format 3");
    expect(text).not.toContain(MARK);
    expect(text).not.toContain("local-dev-service-secret");
    expect(text).not.toContain("root:x:0:0");
  });

  it("still serves a page and every module it loads, the bundler's client and public files", async () => {
    const page = await get("/");
    expect(page.status).toBe(200);
    const html = page.body.toString("utf8");
    expect(html).toContain("<h1>Wishlist service</h1>");

    // Follow the module graph from the page as a browser would: every import must load.
    const seen = new Set<string>();
    const queue = [...html.matchAll(/(?:src|href)="(\/[^"]+)"|(?:from |import\()"(\/[^"]+)"/g)]
      .map((match) => match[1] ?? match[2]!)
      .filter((url) => !url.startsWith("//") && /^\/(app|node_modules|@)/.test(url));
    expect(queue.length).toBeGreaterThan(2);
    while (queue.length > 0) {
      const url = queue.shift()!.replaceAll("&amp;", "&");
      if (seen.has(url)) continue;
      seen.add(url);
      const module = await get(url);
      expect(module.status, url).toBe(200);
      if (/javascript/.test(module.type)) {
        for (const match of module.body.toString("utf8").matchAll(/(?:from |import\(|import )"(\/[^"]+)"/g)) {
          queue.push(match[1]!);
        }
      }
    }
    const deps = `/${path.relative(ROOT, viteCache)}/deps/`; // the pre-bundled dependencies
    expect([...seen].some((url) => url.startsWith(deps))).toBe(true);
    expect([...seen]).toEqual(expect.arrayContaining(["/@vite/client", "/app/root.tsx"]));

    expect((await get("/favicon.svg")).status).toBe(200);
    // The guides' screenshots, which /help shows.
    expect((await get("/docs/screenshots/home.png")).status).toBe(200);
    expect((await get(`/@fs${path.join(root, "node_modules/vite/dist/client/env.mjs")}`)).status).toBe(200);
    // The app's own routes still answer through the same server.
    expect((await get("/healthz")).status).toBe(200);
    expect((await get("/problems/not-found")).status).toBe(200);
  });

  it("accepts the app URL's host (the platform CLI's tunnel) and still refuses other hosts", async () => {
    const viaTunnel = await get("/@vite/client", TUNNEL_HOST);
    expect(viaTunnel.status).toBe(200);
    expect(viaTunnel.type).toMatch(/javascript/);
    expect((await get("/app/root.tsx", TUNNEL_HOST)).status).toBe(200);
    const page = await get("/", TUNNEL_HOST);
    expect(page.status).toBe(200);

    const other = await get("/@vite/client", "attacker.example");
    expect(other.status).toBe(403);
  });
});
