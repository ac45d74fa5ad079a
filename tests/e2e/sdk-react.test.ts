/**
 * The SDK's React bindings (sdk/dist/react.js, `WishlistProvider` and `useWishlist`) in Debian's Chromium, on a page of
 * another origin with the public key, against the real web process (issue 31): a heart shows as saved before the API
 * answers, stays saved once it has, and is rolled back, with the error shown, when the API refuses the toggle.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { build } from "esbuild";
import { chromium, type Browser, type Page, type Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateShopSettings } from "~/services/shops/shops.server";
import { ROOT } from "../../scripts/lib/databases";
import { chromiumPath, CHROMIUM_ARGS } from "../../scripts/lib/chromium";
import { createShopWithKey } from "../factories";
import { until } from "../support/poll";
import { useWebProcess } from "../support/web-process";
import { countItems } from "../support/wishlist-rows";

const { baseUrl } = await useWebProcess();

// A storefront's page, built as a storefront's build would: React, the client and the bindings from sdk/dist.
const APP = `
import { createElement as h } from "react";
import { createRoot } from "react-dom/client";
import { createWishlistClient, isProblem } from "@wishlist-service/sdk";
import { WishlistProvider, useWishlist } from "@wishlist-service/sdk/react";

const PRODUCTS = [
  { productId: "8100000001", handle: "harbor-coat", title: "Harbor Coat" },
  // A product id the API refuses (not a platform id): its toggle fails with 400 and is rolled back.
  { productId: "not-a-product", handle: "broken", title: "Broken product" },
];

function Heart({ product }) {
  const wishlist = useWishlist();
  const saved = wishlist.has(product.productId);
  return h("button", {
    "aria-pressed": saved ? "true" : "false",
    "aria-label": (saved ? "Remove " : "Save ") + product.title,
    onClick: () => void wishlist.toggle(product),
  }, saved ? "♥" : "♡");
}

function Count() {
  const { list, loading, error } = useWishlist();
  return h("p", null,
    h("output", { "aria-label": "Saved" }, loading && !list ? "…" : String(list ? list.count : 0)),
    error ? h("span", { role: "alert" }, isProblem(error) ? error.code : "failed") : null);
}

const params = new URLSearchParams(location.search);
const client = createWishlistClient({ baseUrl: params.get("api"), publicKey: params.get("key"), shop: params.get("shop") });
createRoot(document.getElementById("root")).render(
  h(WishlistProvider, { client, anonymousId: params.get("aid") },
    h("main", null, h(Count), ...PRODUCTS.map((product) => h(Heart, { key: product.productId, product })))),
);
`;

const bundle = await build({
  stdin: { contents: APP, resolveDir: ROOT, loader: "js" },
  bundle: true,
  format: "esm",
  platform: "browser",
  write: false,
  minify: true,
  define: { "process.env.NODE_ENV": '"production"' },
  alias: {
    "@wishlist-service/sdk/react": path.join(ROOT, "sdk/dist/react.js"),
    "@wishlist-service/sdk": path.join(ROOT, "sdk/dist/index.js"),
  },
});
const storefront = createServer((req, res) => {
  if (req.url === "/app.js") {
    res.writeHead(200, { "Content-Type": "text/javascript" }).end(bundle.outputFiles[0]!.text);
    return;
  }
  res
    .writeHead(200, { "Content-Type": "text/html" })
    .end(
      '<!doctype html><html lang="en"><title>Storefront</title><div id="root"></div><script type="module" src="/app.js"></script>',
    );
});
await new Promise<void>((resolve) => storefront.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(storefront.address() as AddressInfo).port}`;

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => storefront.close(() => resolve()));
});

/** A guest's page of a new shop whose headless origins include the storefront's. */
async function openStorefront(): Promise<{ page: Page; shopId: string }> {
  const { shop } = await createShopWithKey();
  await updateShopSettings({ shopId: shop.id, patch: { headlessOrigins: [origin] } });
  const page = await browser.newPage();
  const query = new URLSearchParams({ api: baseUrl, key: shop.publicKey, shop: shop.domain, aid: randomUUID() });
  await page.goto(`${origin}/?${query}`);
  await expect.poll(() => page.getByLabel("Saved").textContent(), { timeout: 90_000 }).toBe("0");
  return { page, shopId: shop.id };
}

describe("the SDK's React bindings in Chromium", () => {
  it("shows a save at once, keeps it once the API has answered, and removes it the same way", async () => {
    const { page, shopId } = await openStorefront();
    // Hold the toggle at the browser's network boundary, to see the page before the API has answered.
    const held: Route[] = [];
    await page.route("**/v1/storefront/wishlist/toggle**", (route) => void held.push(route));

    await page.getByRole("button", { name: "Save Harbor Coat" }).click();
    const heart = page.getByRole("button", { name: "Remove Harbor Coat" });
    await expect.poll(() => heart.getAttribute("aria-pressed"), { timeout: 90_000 }).toBe("true");
    expect(await page.getByLabel("Saved").textContent()).toBe("1");
    await until(
      () => held.length,
      (count) => count === 1,
      "the toggle held",
    );
    expect(await countItems(shopId)).toBe(0);

    await held[0]!.continue();
    await page.unroute("**/v1/storefront/wishlist/toggle**");
    await until(
      () => countItems(shopId),
      (count) => count === 1,
      "the save stored",
    );
    expect(await heart.getAttribute("aria-pressed")).toBe("true");
    expect(await page.getByRole("alert").count()).toBe(0);

    await heart.click();
    await page.getByRole("button", { name: "Save Harbor Coat" }).waitFor({ timeout: 90_000 });
    await until(
      () => countItems(shopId),
      (count) => count === 0,
      "the removal stored",
    );
    await expect.poll(() => page.getByLabel("Saved").textContent(), { timeout: 90_000 }).toBe("0");
    await page.close();
  });

  it("rolls a refused toggle back and shows the problem, keeping the other saves", async () => {
    const { page, shopId } = await openStorefront();
    await page.getByRole("button", { name: "Save Harbor Coat" }).click();
    await until(
      () => countItems(shopId),
      (count) => count === 1,
      "the first save stored",
    );

    await page.getByRole("button", { name: "Save Broken product" }).click();
    // Refused by the API (400): the heart goes back to unsaved, the error is shown, the other save stays.
    await expect.poll(() => page.getByRole("alert").textContent(), { timeout: 90_000 }).toBe("validation-error");
    expect(await page.getByRole("button", { name: "Save Broken product" }).getAttribute("aria-pressed")).toBe("false");
    expect(await page.getByRole("button", { name: "Remove Harbor Coat" }).getAttribute("aria-pressed")).toBe("true");
    expect(await page.getByLabel("Saved").textContent()).toBe("1");
    expect(await countItems(shopId)).toBe(1);
    await page.close();
  });
});
