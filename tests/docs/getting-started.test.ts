/**
 * docs/getting-started.md, step by step, as a reader follows it (issue 31): the demo shop's file as
 * `npm run dev` writes it, `.env` from the guide's command, then the guide's programs against the real web
 * process and worker: an item saved with the private key and read back, the browser page refused until its
 * origin is allowed and then saving with the public key (in Chromium), and a webhook endpoint registered
 * whose delivery the receiver verifies.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { createWishlistClient } from "../../sdk/src/index";
import { chromiumPath, CHROMIUM_ARGS, PAGE_TIMEOUT_MS } from "../../scripts/lib/chromium";
import { ROOT } from "../../scripts/lib/databases";
import { DEMO_SHOP_DOMAIN, seedDemoShop } from "../../scripts/lib/demo-shop";
import { findShopByDomain } from "~/services/shops/shops.server";
import { readEnvFile, runExampleOk, startExample, useService } from "../support/examples";
import { until } from "../support/poll";
import { freePort } from "../support/processes";
import { itemsOf } from "../support/wishlist-rows";

const { baseUrl } = await useService();

// The service's clone (its .data/demo-shop.json) and the reader's project, side by side.
const dir = mkdtempSync(path.join(tmpdir(), "getting-started-"));
const service = path.join(dir, "wishlist-service");
const project = path.join(dir, "wishlist-quickstart");
mkdirSync(project);
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the getting started guide", () => {
  it("goes from the demo shop's keys to a saved item, a page saving with the public key, and a verified webhook", async () => {
    // Step 1: the file `npm run dev` writes (the same seed), here for a service at baseUrl.
    await seedDemoShop({ appUrl: baseUrl, file: path.join(service, ".data/demo-shop.json") });
    const shopId = (await findShopByDomain(DEMO_SHOP_DOMAIN))!.id;

    // Step 3: .env from the guide's command.
    const written = spawnSync("bash", [path.join(ROOT, "docs/getting-started/write-env.sh")], {
      cwd: project,
      env: { ...process.env, SERVICE: service },
      encoding: "utf8",
    });
    expect(written.stderr).toBe("");
    const env = readEnvFile(path.join(project, ".env"));
    expect(env).toEqual({
      WISHLIST_URL: baseUrl,
      WISHLIST_SHOP: DEMO_SHOP_DOMAIN,
      WISHLIST_PRIVATE_KEY: expect.stringMatching(/^svc_sk_/),
      WISHLIST_PUBLIC_KEY: expect.stringMatching(/^svc_pk_/),
    });

    // Step 4: saved with the private key, read back; a second run saves nothing more.
    const saved = await runExampleOk("getting-started/save-item.ts", env);
    expect(saved.stdout).toMatch(/^saved: itm_\w+ 8100000010 willow-silk-dress\n/);
    expect(saved.stdout).toMatch(/customer 7001, list lst_\w+, 1 saved:\n- 8100000010 willow-silk-dress \(added /);
    expect((await itemsOf(shopId, "7001")).map((item) => item.productId)).toEqual(["8100000010"]);
    const again = await runExampleOk("getting-started/save-item.ts", env);
    expect(again.stdout).toMatch(/^already saved: itm_\w+ 8100000010/);
    expect(await itemsOf(shopId, "7001")).toHaveLength(1);

    // Step 5: the page, refused while its origin is not allowed, then saving for a guest.
    const pagePort = await freePort();
    const origin = `http://localhost:${pagePort}`;
    const pageServer = startExample("getting-started/serve-page.ts", { ...env, PORT: String(pagePort) });
    try {
      await pageServer.waitForOutput(new RegExp(`open ${origin}`));
      const script = await (await fetch(`http://127.0.0.1:${pagePort}/page.js`)).text();
      expect(script).toContain(env.WISHLIST_PUBLIC_KEY);
      expect(script).not.toContain(env.WISHLIST_PRIVATE_KEY);

      browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
      const page = await browser.newPage();
      page.setDefaultTimeout(PAGE_TIMEOUT_MS);
      await page.goto(origin);
      await page.getByRole("status").getByText("Failed to fetch").waitFor();

      const allowed = await runExampleOk("getting-started/allow-origin.ts", env, [origin]);
      // The page's origin joins those the shop already had (the demo seed declares the headless example's).
      const listed = allowed.stdout
        .replace(/^headlessOrigins: /, "")
        .trim()
        .split(", ");
      expect(listed.at(-1)).toBe(origin);
      expect(new Set(listed).size).toBe(listed.length);
      await page.reload();
      await page.getByRole("status").getByText("0 saved").waitFor();
      await page.getByRole("button", { name: "Save to wishlist" }).click();
      await page.getByRole("status").getByText("1 saved").waitFor();
      expect(await page.getByRole("listitem").allTextContents()).toEqual(["meadow-sun-hat"]);
      const guestItems = (await itemsOf(shopId)).filter((item) => item.productId === "8100000003");
      expect(guestItems).toHaveLength(1);
    } finally {
      await pageServer.stop();
    }

    // Step 6: an endpoint registered (its secret appended to .env), a delivery verified by the receiver.
    const receiverPort = await freePort();
    const registered = await runExampleOk("getting-started/register-webhook.ts", env, [
      `http://localhost:${receiverPort}/webhooks`,
    ]);
    expect(registered.stdout).toMatch(/^WEBHOOK_SECRET=whsec_\S+\n$/);
    expect(registered.output).toMatch(/endpoint whe_\w+ receives item\.added, item\.removed at http:\/\/localhost/);
    appendFileSync(path.join(project, ".env"), registered.stdout);
    const withSecret = readEnvFile(path.join(project, ".env"));
    const receiver = startExample("getting-started/receive-webhooks.ts", { ...withSecret, PORT: String(receiverPort) });
    try {
      await receiver.waitForOutput(/receiving on http:\/\/localhost:\d+\/webhooks/);
      await runExampleOk("getting-started/save-item.ts", withSecret, ["8100000005", "tidal-swim-shorts"]);
      await receiver.waitForOutput(/verified item\.added evt_\w+: \{.*"customerId":"7001".*"productId":"8100000005"/);
      expect(receiver.output()).not.toContain("refused");

      const wishlist = createWishlistClient({ baseUrl, privateKey: env.WISHLIST_PRIVATE_KEY! });
      const { data: endpoints } = await wishlist.GET("/webhooks");
      const endpoint = endpoints![0]!;
      const deliveries = await until(
        async () => (await wishlist.GET("/webhooks/{id}/deliveries", { params: { path: { id: endpoint.id } } })).data!,
        (page) => page.data.length > 0,
        "the delivery in the endpoint's log",
      );
      expect(deliveries.data[0]).toMatchObject({ eventType: "item.added", status: "succeeded", statusCode: 204 });
    } finally {
      await receiver.stop();
    }
  });
});
