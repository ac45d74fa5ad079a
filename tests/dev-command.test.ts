import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, startProcess } from "./support/processes";

// `npm run dev` (scripts/dev.ts) as a new user runs it, on this file's database.
const dir = mkdtempSync(path.join(tmpdir(), "dev-command-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the dev command", () => {
  it("starts its own redis-server when none answers, migrates, seeds the demo shop and serves /readyz", async () => {
    const [port, redisPort, hmrPort, standInPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const demoFile = path.join(dir, "demo-shop.json");
    const dev = startProcess("scripts/dev.ts", {
      NODE_ENV: "development",
      PORT: String(port),
      HMR_PORT: String(hmrPort),
      PLATFORM_STAND_IN_PORT: String(standInPort),
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      DEMO_SHOP_FILE: demoFile,
    });
    try {
      await dev.waitForOutput(/starting a local redis-server child/);
      // The "web on" line (and the Admin URL after it) comes once the web server answers, not before.
      await dev.waitForOutput(/\[dev\] web on /, 150_000);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`).catch((error: unknown) => error);
      expect(health).toBeInstanceOf(Response);
      expect((health as Response).status).toBe(200);
      await dev.waitForOutput(/web server listening/, 60_000);
      await dev.waitForOutput(/worker ready/, 30_000);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);

      const demo = JSON.parse(readFileSync(demoFile, "utf8"));
      expect(demo).toMatchObject({
        shopDomain: "demo-shop.myshopify.com",
        apiBaseUrl: `http://localhost:${port}/v1`,
        privateKey: expect.stringMatching(/^svc_sk_/),
        publicKey: expect.stringMatching(/^svc_pk_/),
      });
      expect(dev.output()).toContain(`Private key  ${demo.privateKey}`);

      // The demo keys work against the freshly started app.
      const overview = await fetch(`http://127.0.0.1:${port}/v1/shop`, {
        headers: { Authorization: `Bearer ${demo.privateKey}` },
      });
      expect(overview.status).toBe(200);
      expect(await overview.json()).toMatchObject({ domain: "demo-shop.myshopify.com", publicKey: demo.publicKey });
      const withPublicKey = await fetch(`http://127.0.0.1:${port}/v1/shop`, {
        headers: { "X-Service-Shop": demo.shopDomain, "X-Service-Public-Key": demo.publicKey },
      });
      expect(withPublicKey.status).toBe(403); // a public key passes authentication, but not on a private path

      // The printed Admin URL opens the local admin, which frames the app's /app for the demo shop.
      await dev.waitForOutput(/Admin URL/);
      const adminUrl = /Admin URL\s+(\S+)/.exec(dev.output())?.[1];
      expect(adminUrl).toBe(`http://localhost:${standInPort}/store/demo-shop/apps/wishlist-service`);
      const admin = await fetch(adminUrl!.replace("localhost", "127.0.0.1"));
      expect(admin.status).toBe(200);
      expect(await admin.text()).toMatch(new RegExp(`<iframe[^>]+src="http://localhost:${port}/app\\?`));
    } finally {
      expect(await dev.stop(20_000)).toBe(0);
    }
    // The redis-server child went down with it.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    const probe = await import("ioredis").then(
      ({ Redis }) => new Redis(`redis://127.0.0.1:${redisPort}`, { lazyConnect: true, retryStrategy: () => null }),
    );
    probe.on("error", () => {});
    await expect(probe.connect()).rejects.toThrow();
    probe.disconnect();
  }, 240_000);

  it("exits 1 with install instructions when no Redis answers and redis-server is not installed", async () => {
    const redisPort = await freePort();
    const dev = startProcess("scripts/dev.ts", {
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      PORT: String(await freePort()),
      DEMO_SHOP_FILE: path.join(dir, "unused.json"),
      // An empty directory as PATH: no redis-server to be found (node itself is started by absolute path).
      PATH: mkdtempSync(path.join(dir, "empty-path-")),
    });
    const code = await new Promise<number | null>((resolve) => dev.child.once("exit", resolve));
    expect(code).toBe(1);
    expect(dev.output()).toContain(`Redis is not reachable at redis://127.0.0.1:${redisPort}`);
    expect(dev.output()).toContain("apt-get install redis-server");
  });
});
