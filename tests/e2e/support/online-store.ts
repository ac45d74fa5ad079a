/**
 * Browser tests of the storefront: the local storefront of the platform stand-in (stand-in/online-store.ts)
 * renders the theme app extension's real Liquid and serves its real built script; its app proxy signs and
 * forwards the script's calls to the real web server (useAdminStack starts it all).
 */
import AxeBuilder from "@axe-core/playwright";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { expect } from "vitest";
import type { AdminStack } from "./admin";
import { screenshot, trackPageErrors } from "./admin";
import { DESKTOP_USER_AGENT, PAGE_TIMEOUT_MS } from "../../../scripts/lib/chromium";

/** Switches the app embed on or off as a merchant does, through the stand-in's theme editor. */
export async function setEmbed(stack: AdminStack, enabled: boolean) {
  const store = stack.shop.domain.replace(/\.myshopify\.com$/, "");
  const response = await fetch(`${stack.platform.origin}/store/${store}/themes/current/editor`, {
    method: "POST",
    body: new URLSearchParams(enabled ? { enabled: "on" } : {}),
    redirect: "manual",
  });
  expect(response.status).toBe(303);
}

/** A fresh shopper (a browser context of its own: storage, cookies) on a storefront page. */
export async function openStorefront(
  stack: AdminStack,
  pathAndQuery = "/",
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await stack.browser.newContext({
    viewport: { width: 1280, height: 900 },
    userAgent: DESKTOP_USER_AGENT,
  });
  // The share button copies the link: the browser lets the page write the clipboard.
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.platform.storefrontOrigin });
  context.setDefaultTimeout(PAGE_TIMEOUT_MS);
  const page = await context.newPage();
  trackPageErrors(page);
  await page.goto(`${stack.platform.storefrontOrigin}${pathAndQuery}`);
  return { context, page };
}

/** Logs in at the storefront's login page as the demo customer whose button matches `name`. */
export async function logIn(stack: AdminStack, page: Page, name: RegExp) {
  await page.goto(`${stack.platform.storefrontOrigin}/account/login`);
  await page.getByRole("button", { name }).click();
  await page.waitForURL(`${stack.platform.storefrontOrigin}/`);
  await scriptReady(page);
}

/**
 * On a product page: adds the product to the cart and checks out at the stand-in's checkout, which places the
 * order paid and sends the app orders/create and orders/paid (stand-in/orders.ts). Screenshots of the cart and
 * the confirmation when named. Resolves with the order as those webhooks carry it, once the app took both.
 */
export async function buyFromProductPage(
  stack: AdminStack,
  page: Page,
  screenshots?: { cart: string; confirmation: string },
) {
  const before = new Set(stack.platform.orders(stack.shop.domain).map((order) => order.id));
  await page.getByRole("button", { name: "Add to cart" }).click();
  await page.waitForURL(`${stack.platform.storefrontOrigin}/cart`);
  await expect.poll(() => page.getByRole("button", { name: "Check out" }).isVisible()).toBe(true);
  if (screenshots) await screenshot(page, screenshots.cart);
  await page.getByRole("button", { name: "Check out" }).click();
  await page.getByRole("heading", { name: /^Thank you/ }).waitFor();
  if (screenshots) await screenshot(page, screenshots.confirmation);
  const placed = stack.platform.orders(stack.shop.domain).filter((order) => !before.has(order.id));
  expect(placed).toHaveLength(1);
  const order = placed[0]!;
  await expect
    .poll(() =>
      stack.platform.sentWebhooks
        .filter((sent) => sent.subjectId === String(order.id))
        .map((sent) => [sent.topic, sent.status]),
    )
    .toEqual([
      ["orders/create", 200],
      ["orders/paid", 200],
    ]);
  return order;
}

/** The heart on a product card of the grid, found by the product's title. */
export const cardHeart = (page: Page, title: string) => page.getByRole("button", { name: `Add to wishlist: ${title}` });

/** Waits until the script has loaded the shopper's list (window.Wishlist.get resolves after it). */
export async function scriptReady(page: Page) {
  await page.waitForFunction("window.Wishlist !== undefined", undefined, { timeout: 90_000 });
  await page.evaluate("window.Wishlist.get()");
}

/**
 * A heart's settled state: its `aria-pressed`, or "busy" while its change is still under way. The heart shows
 * the change at once and takes no second press until the API answers, so a test (like a person) waits for the
 * settled state before pressing again.
 */
export async function pressed(button: Locator): Promise<string | null> {
  if ((await button.getAttribute("aria-busy")) === "true") return "busy";
  return button.getAttribute("aria-pressed");
}

/** Serious and critical accessibility violations of the whole page (axe-core, WCAG 2.x A and AA). */
export async function pageViolations(page: Page): Promise<string[]> {
  // The announcement fades in and out (0.2 s): measured mid-fade its text would fail contrast, a state no
  // shopper reads. The scan waits for it to be shown or hidden.
  await page.waitForFunction(
    `[...document.querySelectorAll(".wl-toast")].every((toast) => ["0", "1"].includes(getComputedStyle(toast).opacity))`,
    undefined,
    { timeout: 30_000 },
  );
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}

/**
 * A fresh guest who saved the sweater in Medium from its page, then the rain jacket and the sold-out tote from
 * the grid: a list with a variant, a product without options, and one that cannot be bought.
 */
export async function saveSweaterJacketAndTote(stack: AdminStack): Promise<{ context: BrowserContext; page: Page }> {
  const { context, page } = await openStorefront(stack, "/products/orchard-knit-sweater");
  await scriptReady(page);
  await page.getByLabel("Size").selectOption("Medium");
  await page.getByRole("button", { name: "Add to wishlist" }).click();
  await page.getByRole("button", { name: "Remove from wishlist" }).waitFor();
  await page.goto(`${stack.platform.storefrontOrigin}/collections/all`);
  await scriptReady(page);
  await cardHeart(page, "Summit Rain Jacket").click();
  await expect.poll(() => pressed(cardHeart(page, "Summit Rain Jacket"))).toBe("true");
  await cardHeart(page, "Pebble Canvas Tote").click();
  await expect
    .poll(() => page.evaluate("window.Wishlist.get().then((items) => items.filter((item) => item.id).length)"))
    .toBe(3);
  return { context, page };
}
