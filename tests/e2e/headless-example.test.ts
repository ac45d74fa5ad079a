/**
 * The headless storefront example (examples/headless-storefront; issue 31, docs/decisions/058-headless-storefront-example.md)
 * in Debian's Chromium, as a shopper goes through it: its build served by `vite preview` with its storefront server,
 * the real web process, and the platform stand-in's storefront with its Storefront API. A guest hearts two products,
 * sees them counted and listed, adds one and then the list to the cart (the Storefront API's checkout URL, with the
 * guest's cart attribute), logs in as a demo customer and finds the guest's list merged into theirs, shares the
 * list, and another shopper opens it by its link. Each page is scanned with axe; screenshots go to docs/screenshots
 * under UPDATE_SCREENSHOTS=1.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateShopSettings } from "~/services/shops/shops.server";
import { DESKTOP_USER_AGENT, PAGE_TIMEOUT_MS } from "../../scripts/lib/chromium";
import {
  exampleEnvironment,
  previewHeadlessExample,
  buildHeadlessExample,
  spawnExampleVite,
  type HeadlessExampleSettings,
} from "../../scripts/lib/headless-example";
import { storefrontAccessTokenOf } from "../../stand-in/storefront-api";
import { expectNoPageErrors, screenshot, trackPageErrors, useAdminStack } from "./support/admin";
import { cleanUpAtFileEnd, freePort, killChild } from "../support/processes";

const stack = useAdminStack({ worker: false });
const outDir = mkdtempSync(path.join(tmpdir(), "headless-example-"));
let settings: HeadlessExampleSettings;
let example: Awaited<ReturnType<typeof previewHeadlessExample>>;
/** The guest's browser, then the same browser logged in: one shopper's journey through the tests below. */
let shopper: { context: BrowserContext; page: Page };

beforeAll(async () => {
  settings = {
    wishlistUrl: stack.appUrl,
    shopDomain: stack.shop.domain,
    publicKey: stack.shop.publicKey,
    privateKey: stack.secret,
    storefrontOrigin: stack.platform.storefrontOrigin,
    storefrontAccessToken: storefrontAccessTokenOf(stack.standInShop),
  };
  const port = await freePort();
  // The shop's public key answers the example's origin only once the merchant declares it.
  await updateShopSettings({ shopId: stack.shop.id, patch: { headlessOrigins: [`http://127.0.0.1:${port}`] } });
  buildHeadlessExample(settings, outDir);
  example = await previewHeadlessExample(settings, { outDir, port });
  cleanUpAtFileEnd(() => killChild(example.child));
  shopper = await openExample("/");
}, 180_000);
afterAll(async () => {
  await shopper?.context.close();
  if (example) await killChild(example.child);
  rmSync(outDir, { recursive: true, force: true });
});

async function openExample(pathAndQuery: string) {
  const context = await stack.browser.newContext({
    viewport: { width: 1280, height: 900 },
    userAgent: DESKTOP_USER_AGENT,
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: example.origin });
  context.setDefaultTimeout(PAGE_TIMEOUT_MS);
  const page = await context.newPage();
  trackPageErrors(page);
  await page.goto(`${example.origin}${pathAndQuery}`);
  return { context, page };
}

/** Serious and critical axe violations (WCAG 2.x A and AA), and a page without a main landmark or an h1. */
async function violations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  return results.violations
    .filter(
      (violation) =>
        violation.impact === "serious" ||
        violation.impact === "critical" ||
        ["landmark-one-main", "page-has-heading-one"].includes(violation.id),
    )
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}

const heart = (page: Page, title: string) => page.getByRole("button", { name: `Save ${title}`, exact: true });
/** The grid, once it shows the products and whether each is saved. */
const gridReady = (page: Page) => page.locator('ul.grid[aria-busy="false"]').waitFor();
const guestId = (page: Page) => page.evaluate(() => window.localStorage.getItem("wishlist-guest-id"));

/** The shopper's default list as the service has it, read with the private key. */
async function listOf(shopperQuery: string) {
  const response = await stack.api(`/storefront/wishlist?${shopperQuery}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as {
    count: number;
    cartAttribute: string | null;
    items: Array<{ productId: string }>;
  };
}

/** Runs `click`, and answers the checkout URL the page then opened on the stand-in's storefront. */
async function checkoutUrlOf(page: Page, click: () => Promise<void>): Promise<URL> {
  const opened = page.waitForRequest((request) => request.url().startsWith(`${stack.platform.storefrontOrigin}/cart/`));
  await click();
  const url = new URL((await opened).url());
  await page.waitForURL(`${stack.platform.storefrontOrigin}/cart`);
  return url;
}

describe("the headless storefront example, as a shopper goes through it", () => {
  it("a guest hearts two products: the hearts stay pressed, the header counts them, the service holds them", async () => {
    const { page } = shopper;
    await gridReady(page);
    await expect.poll(() => page.locator(".card").count()).toBe(12);
    await heart(page, "Aurora Linen Shirt").click();
    await heart(page, "Summit Rain Jacket").click();
    await expect.poll(() => heart(page, "Summit Rain Jacket").getAttribute("aria-pressed")).toBe("true");
    await expect.poll(() => page.getByRole("link", { name: "Wishlist (2)" }).isVisible()).toBe(true);

    const aid = await guestId(page);
    await expect
      .poll(async () => (await listOf(`aid=${aid}`)).items.map((item) => item.productId))
      .toEqual(["8100000006", "8100000001"]);
    // A reload reads them back from the service.
    await page.reload();
    await gridReady(page);
    expect(await heart(page, "Aurora Linen Shirt").getAttribute("aria-pressed")).toBe("true");
    expect(await heart(page, "Meadow Sun Hat").getAttribute("aria-pressed")).toBe("false");
    expect(await violations(page)).toEqual([]);
    await screenshot(page, "headless-example-grid");
    expectNoPageErrors(page);
  });

  it("the lists page shows them with the Storefront API's prices; one, then all, go to the cart with the guest's cart attribute", async () => {
    const { page } = shopper;
    const aid = await guestId(page);
    const { cartAttribute } = await listOf(`aid=${aid}`);
    expect(cartAttribute).toMatch(/^lst_\w+\.\S+$/);

    await page.getByRole("link", { name: "Wishlist (2)" }).click();
    await page.getByRole("heading", { name: "Your wishlist", level: 1 }).waitFor();
    const items = page.locator(".item");
    await expect
      .poll(() => items.allInnerTexts())
      .toEqual([
        expect.stringMatching(/^Summit Rain Jacket\s+\$64\.00/),
        expect.stringMatching(/^Aurora Linen Shirt\s+\$29\.00/),
      ]);
    expect(await violations(page)).toEqual([]);
    await screenshot(page, "headless-example-lists");

    const one = await checkoutUrlOf(page, () =>
      page.getByRole("button", { name: "Add to cart: Aurora Linen Shirt" }).click(),
    );
    expect(one.pathname).toBe("/cart/9100000001:1");
    expect(one.searchParams.get("attributes[_wishlist_list]")).toBe(cartAttribute);
    await page.goBack();
    await page.getByRole("button", { name: "Add all to cart: Wishlist" }).click();
    await page.waitForURL(`${stack.platform.storefrontOrigin}/cart`);
    // The stand-in's cart: the shirt twice (once alone, once with the list), the jacket once, and the attribute.
    const cart = (await page.evaluate(() => fetch("/cart.js").then((response) => response.json()))) as {
      attributes: Record<string, string>;
      items: Array<{ title: string; quantity: number }>;
    };
    expect(cart.items.map((item) => [item.title, item.quantity]).sort()).toEqual([
      ["Aurora Linen Shirt", 2],
      ["Summit Rain Jacket", 1],
    ]);
    expect(cart.attributes).toEqual({ _wishlist_list: cartAttribute });
    expectNoPageErrors(page);
  });

  it("logging in as a demo customer merges the guest's list into the customer's, and the hearts then save to theirs", async () => {
    const { page } = shopper;
    // Grace saved the sun hat earlier, elsewhere, and keeps a named list (the shop lets shoppers have several).
    const saved = await stack.api("/storefront/wishlist/toggle?customerId=7002", {
      method: "POST",
      body: JSON.stringify({ productId: "8100000003", handle: "meadow-sun-hat" }),
    });
    expect(saved.status).toBe(200);
    await updateShopSettings({ shopId: stack.shop.id, patch: { multipleLists: true } });
    const gifts = await stack.api("/storefront/wishlists?customerId=7002", {
      method: "POST",
      body: JSON.stringify({ name: "Gifts" }),
    });
    expect(gifts.status).toBe(201);
    const giftsId = ((await gifts.json()) as { id: string }).id;
    const scarf = await stack.api("/storefront/wishlist/toggle?customerId=7002", {
      method: "POST",
      body: JSON.stringify({ productId: "8100000009", handle: "ember-wool-scarf", listId: giftsId }),
    });
    expect(scarf.status).toBe(200);

    // Back from the stand-in's cart to the storefront.
    await page.goto(`${example.origin}/`);
    const aid = await guestId(page);
    expect(aid).toMatch(/^[0-9a-f-]{36}$/);
    await page.getByRole("link", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Log in", level: 1 }).waitFor();
    expect(await violations(page)).toEqual([]);
    await page.getByLabel("Demo customer").selectOption({ label: "Grace Hopper (grace@example.com)" });
    await page.getByLabel("Password").fill("any password");
    await page.getByRole("button", { name: "Log in" }).click();

    await page.getByRole("heading", { name: "Your wishlist", level: 1 }).waitFor();
    await expect
      .poll(() => page.getByRole("status").innerText())
      .toBe("Welcome back, Grace. 2 items you saved before logging in are now in your wishlist.");
    expect(await page.locator(".site-account").innerText()).toMatch(/^Logged in as Grace Hopper/);
    await expect.poll(() => page.getByRole("link", { name: "Wishlist (3)" }).isVisible()).toBe(true);
    const section = (name: string) => page.getByRole("region", { name: new RegExp(`^${name} \\(`) });
    await expect
      .poll(() => section("Wishlist").locator(".item__title").allInnerTexts())
      .toEqual(["Meadow Sun Hat", "Summit Rain Jacket", "Aurora Linen Shirt"]);
    await expect.poll(() => section("Gifts").locator(".item__title").allInnerTexts()).toEqual(["Ember Wool Scarf"]);
    // The service: Grace's list holds all three; the guest's list is gone.
    expect((await listOf("customerId=7002")).count).toBe(3);
    expect((await listOf(`aid=${aid}`)).count).toBe(0);
    expect(await violations(page)).toEqual([]);
    await screenshot(page, "headless-example-merged");
    // Removing from a named list, through the storefront's server.
    await section("Gifts").getByRole("button", { name: "Remove: Ember Wool Scarf" }).click();
    await expect.poll(() => section("Gifts").innerText()).toContain("Nothing saved here yet");
    const lists = (await (await stack.api("/storefront/wishlists?customerId=7002")).json()) as {
      data: Array<{ name: string; count: number }>;
    };
    expect(lists.data.map((list) => [list.name, list.count])).toEqual([
      ["Wishlist", 3],
      ["Gifts", 0],
    ]);

    // Through the storefront's server now: Grace's hearts, and a save lands on her list.
    await page.getByRole("link", { name: "Products" }).click();
    await gridReady(page);
    expect(await heart(page, "Meadow Sun Hat").getAttribute("aria-pressed")).toBe("true");
    await heart(page, "Tidal Swim Shorts").click();
    await expect.poll(async () => (await listOf("customerId=7002")).count).toBe(4);
    await expect.poll(() => page.getByRole("link", { name: "Wishlist (4)" }).isVisible()).toBe(true);
    expectNoPageErrors(page);
  });

  it("the customer shares the list, and another shopper opens it by its link and can add it to their cart", async () => {
    const { page } = shopper;
    await page.getByRole("link", { name: "Wishlist (4)" }).click();
    await page.getByRole("button", { name: "Share: Wishlist" }).click();
    const link = await page.getByLabel("Share link").inputValue();
    expect(link).toMatch(new RegExp(`^${example.origin}/shared/\\S+$`));
    await page.getByRole("button", { name: "Copy link" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);

    const other = await openExample(new URL(link).pathname);
    try {
      await other.page.getByRole("heading", { name: "A shared wishlist: Wishlist", level: 1 }).waitFor();
      await expect
        .poll(() => other.page.locator(".item__title").allInnerTexts())
        .toEqual(["Tidal Swim Shorts", "Meadow Sun Hat", "Summit Rain Jacket", "Aurora Linen Shirt"]);
      // Nothing of it is theirs to remove.
      expect(await other.page.getByRole("button", { name: /^Remove/ }).count()).toBe(0);
      expect(await violations(other.page)).toEqual([]);
      await screenshot(other.page, "headless-example-shared");
      const all = await checkoutUrlOf(other.page, () =>
        other.page.getByRole("button", { name: "Add all to cart: Wishlist" }).click(),
      );
      expect(all.pathname).toBe("/cart/9100000005:1,9100000003:1,9100000006:1,9100000001:1");
      expect([...all.searchParams.keys()]).toEqual([]);
      expectNoPageErrors(other.page);
    } finally {
      await other.context.close();
    }
  });
});

describe("the example's storefront server", () => {
  const post = (pathname: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${example.origin}${pathname}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: example.origin, ...headers },
      body: JSON.stringify(body),
    });

  it("names the customer itself: a customer's calls without a session are refused, and a session's carry its own customer", async () => {
    const anonymous = await fetch(`${example.origin}/wishlist/v1/storefront/wishlist`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("content-type")).toBe("application/problem+json");

    const login = await post("/session/login", { email: "alan@example.com", password: "x" });
    expect(login.status).toBe(200);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    expect(login.headers.get("set-cookie")).toMatch(/HttpOnly; SameSite=Lax/);
    // A customer id of someone else's in the query or the body is replaced by the session's (Alan, 7003).
    const toggled = await fetch(`${example.origin}/wishlist/v1/storefront/wishlist/toggle?customerId=7002`, {
      method: "POST",
      headers: { cookie, origin: example.origin, "content-type": "application/json" },
      body: JSON.stringify({ productId: "8100000012", handle: "lagoon-sunglasses", customerId: "7002" }),
    });
    expect(toggled.status).toBe(200);
    expect((await listOf("customerId=7003")).items.map((item) => item.productId)).toEqual(["8100000012"]);
    expect((await listOf("customerId=7002")).items.map((item) => item.productId)).not.toContain("8100000012");

    // The merge is the login's: the browser cannot call it through the server.
    const identify = await fetch(`${example.origin}/wishlist/v1/storefront/identify`, {
      method: "POST",
      headers: { cookie, origin: example.origin, "content-type": "application/json" },
      body: JSON.stringify({ anonymousId: "5b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c11" }),
    });
    expect(identify.status).toBe(404);
    const logout = await fetch(`${example.origin}/session/logout`, {
      method: "POST",
      headers: { cookie, origin: example.origin },
    });
    expect(logout.status).toBe(204);
    expect(
      (await fetch(`${example.origin}/session`, { headers: { cookie } }).then((r) => r.json())) as unknown,
    ).toEqual({
      customer: null,
    });
  });

  it("refuses a write from another origin, an unknown customer, and a public key's merge reaches the service as a 403", async () => {
    const foreign = await post(
      "/session/login",
      { email: "ada@example.com", password: "x" },
      { origin: "http://evil.example" },
    );
    expect(foreign.status).toBe(403);
    const unknown = await post("/session/login", { email: "nobody@example.com", password: "x" });
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as { detail: string }).detail).toBe("Unidentified customer");
    // Why the merge runs on the server: the service refuses it to the public key a browser holds.
    const publicMerge = await fetch(`${stack.appUrl}/v1/storefront/identify`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-service-shop": settings.shopDomain,
        "x-service-public-key": settings.publicKey,
      },
      body: JSON.stringify({ anonymousId: "5b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c11" }),
    });
    expect(publicMerge.status).toBe(403);
  });
});

describe("`npm run example`", () => {
  it("does not start, and says to start `npm run dev`, when the wishlist service does not answer", async () => {
    const closed = await freePort();
    const child = spawnExampleVite(
      ["--port", String(await freePort())],
      exampleEnvironment({ ...settings, wishlistUrl: `http://127.0.0.1:${closed}` }),
    );
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(output).toContain(`the wishlist service does not answer at http://127.0.0.1:${closed}`);
    expect(output).toContain("Start `npm run dev` in another terminal");
  });

  it("says the same when it has no settings and no demo shop file", async () => {
    const child = spawnExampleVite(["--port", String(await freePort())], {
      DEMO_SHOP_FILE: path.join(outDir, "missing.json"),
      WISHLIST_URL: "",
      WISHLIST_PRIVATE_KEY: "",
    });
    let output = "";
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(output).toMatch(
      /has no wishlistUrl, shopDomain, publicKey, privateKey, storefrontOrigin, storefrontAccessToken: start `npm run dev` in another terminal first/,
    );
  });
});
