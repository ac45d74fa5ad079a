import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { chromiumPath, CHROMIUM_ARGS, DESKTOP_USER_AGENT, PAGE_TIMEOUT_MS } from "../../scripts/lib/chromium";
import { ROOT } from "../../scripts/lib/databases";
import { demoShopData } from "../../stand-in/demo-data";
import { until } from "../support/poll";
import { freePort, startProcess } from "../support/processes";

// `npm run dev` (scripts/dev.ts) as a new user runs it, on this file's database.
const dir = mkdtempSync(path.join(tmpdir(), "dev-command-"));
const viteCache = path.join(ROOT, "node_modules", ".vite", `dev-command-test-${process.pid}`);
const exampleViteCache = path.join(ROOT, "node_modules", ".vite", `dev-command-test-example-${process.pid}`);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(viteCache, { recursive: true, force: true });
  rmSync(exampleViteCache, { recursive: true, force: true });
});

describe("the dev command", () => {
  it("starts its own redis-server when none answers, migrates, seeds the demo shop and serves /readyz", async () => {
    const [port, redisPort, standInPort, storefrontPort, smtpPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const demoFile = path.join(dir, "demo-shop.json");
    const dev = startProcess("scripts/dev.ts", {
      NODE_ENV: "development",
      PORT: String(port),
      PLATFORM_STAND_IN_PORT: String(standInPort),
      PLATFORM_STOREFRONT_PORT: String(storefrontPort),
      DEV_SMTP_PORT: String(smtpPort),
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      DEMO_SHOP_FILE: demoFile,
      // A first start, as on a fresh clone: Vite bundles the browser dependencies from nothing (its cache
      // must sit under node_modules/.vite, the one hidden path the dev server lets the browser load).
      VITE_CACHE_DIR: viteCache,
    });
    try {
      await dev.waitForOutput(/starting a local redis-server child/);
      // The "web on" line (and the Admin URL after it) comes once the web server answers, not before.
      await dev.waitForOutput(/\[dev\] web on /, 150_000);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`).catch((error: unknown) => error);
      expect(health).toBeInstanceOf(Response);
      expect((health as Response).status).toBe(200);
      await dev.waitForOutput(/web server listening/, 90_000);
      await dev.waitForOutput(/worker ready/, 90_000);
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

      // The demo guest saved without titles: the worker names the items from the stand-in's catalogue.
      const privately = async (apiPath: string) =>
        (await fetch(`http://127.0.0.1:${port}/v1${apiPath}`, {
          headers: { Authorization: `Bearer ${demo.privateKey}` },
        }).then((response) => response.json())) as Record<string, unknown>;
      const lists = (await privately("/lists?limit=100")).data as Array<{ id: string; owner: { type: string } }>;
      const guestList = lists.find((list) => list.owner.type === "anonymous")!;
      const started = Date.now();
      let titles: string[] = [];
      while (Date.now() - started < 60_000) {
        const items = (await privately(`/lists/${guestList.id}`)).items as Array<{ titleSnapshot: string }>;
        titles = items.map((item) => item.titleSnapshot);
        if (titles.length > 0 && titles.every(Boolean)) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const catalogue = demoShopData({ domain: demo.shopDomain, accessToken: "" }).products.map((p) => p.title);
      expect(titles.length).toBeGreaterThan(0);
      for (const title of titles) expect(catalogue).toContain(title);

      // The printed Admin URL opens the local admin, which frames the app's /app for the demo shop.
      await dev.waitForOutput(/Admin URL/);
      const adminUrl = /Admin URL\s+(\S+)/.exec(dev.output())?.[1];
      expect(adminUrl).toBe(`http://localhost:${standInPort}/store/demo-shop/apps/wishlist-service`);
      const admin = await fetch(adminUrl!.replace("localhost", "127.0.0.1"));
      expect(admin.status).toBe(200);
      expect(await admin.text()).toMatch(new RegExp(`<iframe[^>]+src="http://localhost:${port}/app\\?`));

      // A newcomer's first visits in a browser: the pages hydrate, with no page error, and Vite finds no
      // dependency it had not bundled at start (finding one reloads the page mid-hydration).
      const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
      try {
        const page = await browser.newPage({ userAgent: DESKTOP_USER_AGENT });
        page.setDefaultTimeout(PAGE_TIMEOUT_MS);
        const errors: string[] = [];
        page.on("pageerror", (error) => errors.push(error.message));
        page.on("console", (message) => {
          if (message.type() === "error") errors.push(`console: ${message.text()}`);
        });
        // Hydrated: the server's HTML alone shows the headings, the client router only exists once React ran.
        const hydrated = async (heading: string) => {
          const frame = await (await page.waitForSelector("#app-frame")).contentFrame();
          await frame!.getByRole("heading", { name: heading }).waitFor({ timeout: 120_000 });
          await frame!.waitForFunction("window.__remixRouter !== undefined", undefined, { timeout: 120_000 });
        };
        await page.goto(adminUrl!);
        await hydrated("Setup guide");
        await page.goto(`${adminUrl}/analytics`);
        await hydrated("Saves per day");
        expect(errors).toEqual([]);
        expect(dev.output()).not.toContain("new dependencies optimized");
      } finally {
        await browser.close();
      }

      // The printed Storefront URL serves the demo shop's online store.
      const storefrontUrl = /Storefront\s+(\S+)/.exec(dev.output())?.[1];
      expect(storefrontUrl).toBe(`http://localhost:${storefrontPort}/`);
      const storefront = await fetch(`http://127.0.0.1:${storefrontPort}/collections/all`);
      expect(storefront.status).toBe(200);
      expect(await storefront.text()).toContain("Aurora Linen Shirt");

      // The headless storefront example (`npm run example`, in another terminal) starts on what this wrote: the
      // demo file names the stand-in's Storefront API, which answers with its token, and the demo shop's public
      // key answers the example's origins.
      const recorded = JSON.parse(readFileSync(demoFile, "utf8"));
      expect(recorded.storefrontOrigin).toBe(`http://localhost:${storefrontPort}`);
      const storefrontApi = await fetch(`http://127.0.0.1:${storefrontPort}/api/2026-07/graphql.json`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-shopify-storefront-access-token": recorded.storefrontAccessToken,
        },
        body: JSON.stringify({ query: "{ shop { name } }" }),
      });
      expect(await storefrontApi.json()).toEqual({ data: { shop: { name: "Demo Shop" } } });
      const settings = (await privately("/shop")).settings as { headlessOrigins: string[] };
      expect(settings.headlessOrigins).toEqual(["http://localhost:5173", "http://127.0.0.1:5173"]);
      const examplePort = await freePort();
      // npm's script, as the README runs it.
      const npmExample = spawn("npm", ["run", "example", "--", "--port", String(examplePort)], {
        cwd: ROOT,
        env: { ...process.env, DEMO_SHOP_FILE: demoFile, VITE_CACHE_DIR: exampleViteCache },
        stdio: "ignore",
        detached: true,
      });
      try {
        await until(
          () =>
            fetch(`http://127.0.0.1:${examplePort}/session`).then(
              (response) => response.json(),
              () => null,
            ),
          (session) => session !== null,
          "the example's dev server answering",
        ).then((session) => expect(session).toEqual({ customer: null }));
        const page = await fetch(`http://127.0.0.1:${examplePort}/`);
        expect(await page.text()).toContain('<script type="module" src="/src/main.tsx"></script>');
      } finally {
        process.kill(-npmExample.pid!, "SIGTERM");
      }

      // The printed Mailbox URL lists what reaches the local SMTP server on DEV_SMTP_PORT.
      const mailboxUrl = /Mailbox\s+(\S+)/.exec(dev.output())?.[1];
      expect(mailboxUrl).toBe(`http://localhost:${standInPort}/mailbox`);
      expect(dev.output()).toContain(`SMTP on 127.0.0.1:${smtpPort}`);
      const mailbox = await fetch(`http://127.0.0.1:${standInPort}/mailbox.json`);
      expect(await mailbox.json()).toMatchObject({ smtp: { port: smtpPort }, messages: expect.any(Array) });
    } finally {
      expect(await dev.stop(60_000)).toBe(0);
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

  it.each([
    [
      "PORT",
      "the web server's",
      (port: number) => `port ${port} is already in use: stop the other process or set PORT`,
    ],
    [
      "PLATFORM_STAND_IN_PORT",
      "the local admin's",
      (port: number) =>
        `port ${port} (the local admin) is in use: stop the other process or set PLATFORM_STAND_IN_PORT`,
    ],
    [
      "DEV_SMTP_PORT",
      "the local mailbox's",
      (port: number) => `port ${port} (the local mailbox) is in use: stop the other process or set DEV_SMTP_PORT`,
    ],
  ])("exits 1 naming %s when %s port is taken, and announces no URL", async (variable, _what, message) => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const takenPort = (taken.address() as AddressInfo).port;
    try {
      const dev = startProcess("scripts/dev.ts", {
        PORT: String(await freePort()),
        PLATFORM_STAND_IN_PORT: String(await freePort()),
        PLATFORM_STOREFRONT_PORT: String(await freePort()),
        DEV_SMTP_PORT: String(await freePort()),
        DEMO_SHOP_FILE: path.join(dir, `taken-${variable}.json`),
        [variable]: String(takenPort),
      });
      const code = await new Promise<number | null>((resolve) => dev.child.once("exit", resolve));
      expect(code).toBe(1);
      expect(dev.output()).toContain(message(takenPort));
      expect(dev.output()).not.toContain("Admin URL");
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

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
