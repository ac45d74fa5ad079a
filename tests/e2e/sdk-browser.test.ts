/**
 * The SDK's browser build (sdk/dist, `npm run sdk:build`) in Debian's Chromium against the real web process, from
 * a page on another origin as a headless storefront is (issue 31): the public key across origins (CORS from the
 * shop's headless origins), typed errors, the refusal of a private key (in the page and in a web worker), and the
 * webhook verifier on Web Crypto.
 */
import { createHmac, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { build } from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateShopSettings } from "~/services/shops/shops.server";
import { ROOT } from "../../scripts/lib/databases";
import { chromiumPath, CHROMIUM_ARGS } from "../../scripts/lib/chromium";
import { createShopWithKey } from "../factories";
import { useWebProcess } from "../support/web-process";
import { countItems } from "../support/wishlist-rows";

const { baseUrl } = await useWebProcess();

// The storefront's origin: a page and the SDK bundled as a storefront's build would (esbuild, from sdk/dist).
const bundle = await build({
  entryPoints: [path.join(ROOT, "sdk/dist/index.js")],
  bundle: true,
  format: "esm",
  platform: "browser",
  write: false,
  minify: true,
});
// A storefront's web worker (background sync, say) given a private key: it reports whether the SDK refused it.
const PRIVATE_KEY_WORKER = `import { createWishlistClient } from "/sdk.js";
addEventListener("message", ({ data: { baseUrl, secret } }) => {
  try {
    createWishlistClient({ baseUrl, privateKey: secret });
    postMessage("accepted");
  } catch (error) {
    postMessage(error.message);
  }
});`;
const storefront = createServer((req, res) => {
  if (req.url === "/sdk.js") {
    res.writeHead(200, { "Content-Type": "text/javascript" }).end(bundle.outputFiles[0]!.text);
    return;
  }
  if (req.url === "/private-key-worker.js") {
    res.writeHead(200, { "Content-Type": "text/javascript" }).end(PRIVATE_KEY_WORKER);
    return;
  }
  res
    .writeHead(200, { "Content-Type": "text/html" })
    .end("<!doctype html><title>Storefront</title><h1>Storefront</h1>");
});
await new Promise<void>((resolve) => storefront.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(storefront.address() as AddressInfo).port}`;

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  page = await browser.newPage();
  await page.goto(origin);
  await page.addScriptTag({ type: "module", content: 'import * as sdk from "/sdk.js"; window.sdk = sdk;' });
  await page.waitForFunction(() => "sdk" in window);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => storefront.close(() => resolve()));
});

type Sdk = typeof import("../../sdk/src/index");

describe("the SDK in Chromium", () => {
  it("saves and reads a guest's list with the public key from the storefront's origin", async () => {
    const { shop } = await createShopWithKey();
    await updateShopSettings({ shopId: shop.id, patch: { headlessOrigins: [origin] } });
    const aid = randomUUID();
    const result = await page.evaluate(
      async ({ baseUrl, shop, aid }) => {
        const { createWishlistClient } = (window as unknown as { sdk: Sdk }).sdk;
        const client = createWishlistClient({ baseUrl, publicKey: shop.publicKey, shop: shop.domain });
        const toggled = await client.POST("/storefront/wishlist/toggle", {
          params: { query: { aid } },
          body: { productId: "8100000011", handle: "harbor-coat" },
        });
        const read = await client.GET("/storefront/wishlist", { params: { query: { aid } } });
        return {
          toggled: toggled.data,
          products: read.data?.items.map((item) => item.productId),
          requestId: read.response.headers.get("X-Request-Id"),
        };
      },
      { baseUrl, shop: { publicKey: shop.publicKey, domain: shop.domain }, aid },
    );
    expect(result).toMatchObject({ toggled: { added: true, count: 1 }, products: ["8100000011"] });
    expect(result.requestId).toMatch(/\S+/);
    expect(await countItems(shop.id)).toBe(1);
  });

  it("throws typed problems, and refuses a private key in the browser", async () => {
    const { shop, secret } = await createShopWithKey();
    await updateShopSettings({ shopId: shop.id, patch: { headlessOrigins: [origin] } });
    const result = await page.evaluate(
      async ({ baseUrl, shop, secret }) => {
        const { createWishlistClient, isProblem, WishlistApiError } = (window as unknown as { sdk: Sdk }).sdk;
        let refused = "";
        try {
          createWishlistClient({ baseUrl, privateKey: secret });
        } catch (error) {
          refused = (error as Error).message;
        }
        const client = createWishlistClient({ baseUrl, publicKey: shop.publicKey, shop: shop.domain });
        const error = await client
          .GET("/storefront/lists/{shareToken}", { params: { path: { shareToken: "no-such-token" } } })
          .catch((failure: unknown) => failure);
        return {
          refused,
          typed: error instanceof WishlistApiError,
          notFound: isProblem(error, "not-found"),
          status: (error as { status?: number }).status,
        };
      },
      { baseUrl, shop: { publicKey: shop.publicKey, domain: shop.domain }, secret },
    );
    expect(result.refused).toMatch(/never reach a browser/);
    expect(result).toMatchObject({ typed: true, notFound: true, status: 404 });
  });

  it("refuses a private key in a web worker too: a worker's script reaches the browser as a page's does", async () => {
    const { secret } = await createShopWithKey();
    const answer = await page.evaluate(
      ({ baseUrl, secret }) =>
        new Promise<string>((resolve, reject) => {
          const worker = new Worker("/private-key-worker.js", { type: "module" });
          worker.addEventListener("message", ({ data }: MessageEvent<string>) => {
            worker.terminate();
            resolve(data);
          });
          worker.addEventListener("error", (event) => reject(new Error(event.message)));
          worker.postMessage({ baseUrl, secret });
        }),
      { baseUrl, secret },
    );
    expect(answer).toMatch(/never reach a browser/);
  });

  it("verifies webhook signatures with the browser's Web Crypto", async () => {
    const secret = `whsec_${randomUUID()}`;
    const body = JSON.stringify({
      id: "evt_1",
      type: "item.added",
      shopDomain: "a.myshopify.com",
      createdAt: "",
      data: {},
    });
    const t = Math.floor(Date.now() / 1000);
    // Signed here with Node's own HMAC: an implementation apart from the SDK's.
    const header = `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`;
    const outcomes = await page.evaluate(
      async ({ body, header, secret }) => {
        const { verifyWebhook } = (window as unknown as { sdk: Sdk }).sdk;
        return [
          await verifyWebhook(body, header, secret),
          await verifyWebhook(body.replace("evt_1", "evt_2"), header, secret),
          await verifyWebhook(new TextEncoder().encode(body), header, `${secret}x`),
          await verifyWebhook(body, header, secret, { now: Math.floor(Date.now() / 1000) + 3_600 }),
        ].map((outcome) => (outcome.ok ? `ok ${outcome.event.id}` : outcome.reason));
      },
      { body, header, secret },
    );
    expect(outcomes).toEqual(["ok evt_1", "bad-signature", "bad-signature", "stale"]);
  });
});
