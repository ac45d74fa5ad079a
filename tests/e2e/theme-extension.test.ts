import { createHmac, timingSafeEqual } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, type Received } from "../services/webhooks/receiver";
import { expectNoPageErrors, screenshot, useAdminStack } from "./support/admin";
import {
  cardHeart,
  openStorefront,
  pageViolations,
  pressed,
  saveSweaterJacketAndTote,
  scriptReady,
  setEmbed,
} from "./support/online-store";

const stack = useAdminStack();
const receiver = await startReceiver();
let webhookSecret = "";

beforeAll(async () => {
  await setEmbed(stack, true);
  const created = await stack.api("/webhooks", {
    method: "POST",
    body: JSON.stringify({ url: receiver.url, events: ["item.added", "item.removed", "list.merged", "list.shared"] }),
  });
  expect(created.status).toBe(201);
  webhookSecret = ((await created.json()) as { secret: string }).secret;
}, 120_000);
afterAll(() => receiver.close());

/** The receiver's own check of docs/webhooks.md's signature scheme. */
function verified(received: Received): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(received.headers["x-service-signature"] ?? ""));
  if (!match) return false;
  const expected = createHmac("sha256", webhookSecret).update(`${match[1]}.`).update(received.body).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, "hex"));
}
const eventsReceived = () =>
  receiver.received.map(
    (request) => JSON.parse(request.body.toString("utf8")) as { type: string; data: Record<string, unknown> },
  );

async function customerList(customerId: string) {
  const page = (await (await stack.api(`/lists?customerId=${customerId}`)).json()) as { data: Array<{ id: string }> };
  if (!page.data.length) return null;
  return (await (await stack.api(`/lists/${page.data[0]!.id}`)).json()) as {
    count: number;
    items: Array<{ productId: string; titleSnapshot: string }>;
  };
}

const listCount = async () =>
  ((await (await stack.api("/lists?limit=100")).json()) as { data: Array<{ count: number }> }).data.reduce(
    (sum, list) => sum + list.count,
    0,
  );

describe("Storefront", { timeout: 240_000 }, () => {
  it("a guest saves from the grid, keeps them after a reload, shares the list, logs in and finds them merged once", async () => {
    const { context, page } = await openStorefront(stack, "/collections/all");
    await scriptReady(page);
    const shirt = cardHeart(page, "Aurora Linen Shirt");
    const coat = cardHeart(page, "Harbor Wool Coat");
    expect(await pressed(shirt)).toBe("false");
    await shirt.click();
    await expect.poll(() => pressed(shirt)).toBe("true");
    await page.getByRole("status").filter({ hasText: "Saved to your wishlist" }).waitFor();
    await coat.click();
    await expect
      .poll(() => page.evaluate("window.Wishlist.get().then((items) => items.filter((item) => item.id).length)"), {
        timeout: 90_000,
      })
      .toBe(2);
    await screenshot(page, "storefront-grid");

    await page.reload();
    await scriptReady(page);
    expect(await pressed(shirt)).toBe("true");
    expect(await pressed(coat)).toBe("true");
    expect(await pressed(cardHeart(page, "Meadow Sun Hat"))).toBe("false");

    // The wishlist page lists them and shares the list.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Wishlist" }).click();
    const items = page.locator(".wl-list > li");
    await expect
      .poll(() => items.allTextContents())
      .toEqual([expect.stringContaining("Harbor Wool Coat"), expect.stringContaining("Aurora Linen Shirt")]);
    await page.getByRole("button", { name: "Share wishlist" }).click();
    const link = page.getByRole("textbox", { name: "Link to your wishlist" });
    await expect
      .poll(() => link.inputValue())
      .toMatch(new RegExp(`^https://${stack.shop.domain.replace(/\./g, "\\.")}/pages/wishlist\\?share=`));
    await screenshot(page, "storefront-wishlist-page");
    const shared = new URL(await link.inputValue());

    // The link opens the shared view for someone else.
    const friend = await openStorefront(stack, `${shared.pathname}${shared.search}`);
    await friend.page.getByRole("heading", { name: "Shared wishlist" }).waitFor({ timeout: 90_000 });
    await expect.poll(() => friend.page.locator(".wl-list > li").count()).toBe(2);
    expect(await friend.page.getByRole("button", { name: /^Remove from wishlist/ }).count()).toBe(0);
    expectNoPageErrors(friend.page);
    await friend.context.close();

    // Logging in merges the guest list into the customer's, once; the guest id is dropped.
    await page.goto(`${stack.platform.storefrontOrigin}/account/login`);
    await page.getByRole("button", { name: /^Ada Lovelace/ }).click();
    await page.waitForURL(`${stack.platform.storefrontOrigin}/`);
    await scriptReady(page);
    expect(await page.evaluate('localStorage.getItem("wishlist:aid")')).toBeNull();
    expect(await pressed(cardHeart(page, "Aurora Linen Shirt"))).toBe("true");
    const merged = await customerList("7001");
    expect(merged?.count).toBe(2);
    expect(merged?.items.map((item) => item.titleSnapshot).sort()).toEqual(["Aurora Linen Shirt", "Harbor Wool Coat"]);
    // The guest's link ended at the login (it would show the customer's list): the shopper is told, and a
    // fresh browser holding the link is told it no longer exists (docs/decisions/033).
    await expect
      .poll(() => page.getByRole("status").textContent())
      .toBe("The link you shared before logging in no longer works. Share your wishlist again for a new link.");
    const late = await openStorefront(stack, `${shared.pathname}${shared.search}`);
    await late.page.getByText("This shared wishlist no longer exists.").waitFor({ timeout: 90_000 });
    expect(await late.page.locator(".wl-list > li").count()).toBe(0);
    expectNoPageErrors(late.page, [/HTTP 404 GET .*\/apps\/service\/v1\/storefront\/lists\//]);
    await late.context.close();
    await page.reload();
    await scriptReady(page);
    expect((await customerList("7001"))?.count).toBe(2);

    // The customer removes one from the wishlist page.
    await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
    await page.getByRole("button", { name: "Remove from wishlist: Aurora Linen Shirt" }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => items.count()).toBe(1);
    // The keyboard's focus goes on to the row now in its place, not back to the top of the page.
    expect(await page.evaluate("document.activeElement.getAttribute('aria-label')")).toBe(
      "Remove from wishlist: Harbor Wool Coat",
    );
    await expect.poll(async () => (await customerList("7001"))?.count).toBe(1);
    expectNoPageErrors(page);
    await context.close();

    // Every change reached the merchant's endpoint, signed.
    await expect
      .poll(() =>
        eventsReceived()
          .map((event) => event.type)
          .sort(),
      )
      .toEqual(["item.added", "item.added", "item.removed", "list.merged", "list.shared"]);
    expect(receiver.received.every(verified)).toBe(true);
    expect(eventsReceived().find((event) => event.type === "list.merged")?.data).toMatchObject({ mergedCount: 2 });
  });

  it("saves from a product page with the keyboard, announces it, and tells theme code (wishlist:change, window.Wishlist)", async () => {
    const { context, page } = await openStorefront(stack, "/products/canyon-leather-boots");
    await scriptReady(page);
    await page.evaluate(
      `window.__changes = []; document.addEventListener("wishlist:change", (event) => window.__changes.push(event.detail));`,
    );
    // Its label says what a press does, so it is a plain button, never "Remove from wishlist, pressed".
    const heart = page.getByRole("button", { name: "Add to wishlist" });
    const button = page.locator("[data-wishlist-product-page] button");
    expect(await pressed(heart)).toBeNull();
    // A second press while the save is under way is not dropped unseen: the button is busy and says so.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/apps/service/v1/storefront/wishlist/items**", async (route) => {
      await held;
      await route.continue();
    });
    await heart.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => button.getAttribute("aria-busy")).toBe("true");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Still saving your last change…");
    release();
    await page.getByRole("status").filter({ hasText: "Saved to your wishlist" }).waitFor();
    await page.unrouteAll();
    await expect.poll(() => button.getAttribute("aria-busy")).toBe("false");
    await page.getByRole("button", { name: "Remove from wishlist" }).waitFor();
    expect(await pressed(button)).toBeNull();
    expect(await pageViolations(page)).toEqual([]);
    await expect
      .poll(() => page.evaluate("window.__changes"))
      .toEqual([{ productId: "8100000004", handle: "canyon-leather-boots", added: true, count: 1 }]);
    const saved = (await page.evaluate("window.Wishlist.get()")) as Array<{ productId: string; variantId: string }>;
    expect(saved).toEqual([expect.objectContaining({ productId: "8100000004", variantId: "9100000004" })]);
    await screenshot(page, "storefront-product");

    // The API toggles it off again and the button follows.
    expect(await page.evaluate('window.Wishlist.toggle("8100000004", { handle: "canyon-leather-boots" })')).toBe(false);
    await page.getByRole("button", { name: "Add to wishlist" }).waitFor();
    expectNoPageErrors(page);
    await context.close();
  });

  it("keeps one item for a product a guest saved with its variant and the customer without; stops sharing; an empty list offers no share", async () => {
    // GIVEN customer Grace saved the shirt from the grid (no variant), then browses as a guest
    const { context, page } = await openStorefront(stack, "/account/login");
    await page.getByRole("button", { name: /^Grace Hopper/ }).click();
    await page.waitForURL(`${stack.platform.storefrontOrigin}/`);
    await scriptReady(page);
    await cardHeart(page, "Aurora Linen Shirt").click();
    await expect.poll(async () => (await customerList("7002"))?.count).toBe(1);
    await page.goto(`${stack.platform.storefrontOrigin}/account/logout`);
    // WHEN the guest saves the same shirt from its page (with its variant) and logs in as Grace
    await page.goto(`${stack.platform.storefrontOrigin}/products/aurora-linen-shirt`);
    await scriptReady(page);
    await page.getByRole("button", { name: "Add to wishlist" }).click();
    await page.getByRole("button", { name: "Remove from wishlist" }).waitFor();
    await expect
      .poll(() => page.evaluate("window.Wishlist.get().then((items) => items.filter((item) => item.id).length)"))
      .toBe(1);
    await page.goto(`${stack.platform.storefrontOrigin}/account/login`);
    await page.getByRole("button", { name: /^Grace Hopper/ }).click();
    await page.waitForURL(`${stack.platform.storefrontOrigin}/`);
    await scriptReady(page);

    // THEN the wishlist page lists the shirt once, with the guest's variant kept on Grace's item
    await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
    const rows = page.locator(".wl-list > li");
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining("Aurora Linen Shirt")]);
    const list = (await customerList("7002")) as unknown as { items: Array<{ variantId: string | null }> };
    expect(list.items).toEqual([expect.objectContaining({ variantId: "9100000001" })]);

    // Sharing, then stopping: the link stops working and the page says so
    await page.getByRole("button", { name: "Share wishlist" }).click();
    const link = page.getByRole("textbox", { name: "Link to your wishlist" });
    await expect.poll(() => link.inputValue()).toContain("?share=");
    const shared = new URL(await link.inputValue());
    await page.getByRole("button", { name: "Stop sharing" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Sharing stopped: the link no longer works.");
    expect(await link.isVisible()).toBe(false);
    expect(await page.getByRole("button", { name: "Stop sharing" }).isVisible()).toBe(false);
    const friend = await openStorefront(stack, `${shared.pathname}${shared.search}`);
    await friend.page.getByText("This shared wishlist no longer exists.").waitFor({ timeout: 90_000 });
    await friend.context.close();

    // One Remove removes the one item; the empty list offers no Share
    await page.getByRole("button", { name: "Remove from wishlist: Aurora Linen Shirt" }).click();
    await page.getByText("Your wishlist is empty").waitFor();
    expect(await page.getByRole("button", { name: "Share wishlist" }).isVisible()).toBe(false);
    await expect.poll(async () => (await customerList("7002"))?.count).toBe(0);
    expectNoPageErrors(page);
    await context.close();
  });

  it("replaces an anonymous id it could not have made (edited storage) instead of sending it", async () => {
    const { context, page } = await openStorefront(stack, "/collections/all");
    await page.evaluate('localStorage.setItem("wishlist:aid", "x&logged_in_customer_id=7001")');
    await page.reload();
    await scriptReady(page);
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    await cardHeart(page, "Pebble Canvas Tote").click();
    await expect.poll(() => pressed(cardHeart(page, "Pebble Canvas Tote"))).toBe("true");
    await expect
      .poll(() => page.evaluate("window.Wishlist.get().then((items) => items.filter((item) => item.id).length)"))
      .toBe(1);
    const aid = (await page.evaluate('localStorage.getItem("wishlist:aid")')) as string;
    expect(aid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(requests.filter((url) => url.includes("logged_in_customer_id"))).toEqual([]);
    expect((await customerList("7001"))?.items.map((item) => item.productId)).not.toContain("8100000008");
    expectNoPageErrors(page);
    await context.close();
  });

  it("rolls the heart back and says so when the backend fails, is down, or limits the rate", async () => {
    const { context, page } = await openStorefront(stack, "/collections/all");
    await scriptReady(page);
    const heart = cardHeart(page, "Meadow Sun Hat");
    const before = await listCount();
    const status = page.getByRole("status");

    await page.route("**/apps/service/v1/storefront/wishlist/items**", (route) =>
      route.fulfill({ status: 500, contentType: "application/problem+json", body: '{"status":500}' }),
    );
    await heart.click();
    await expect.poll(() => status.textContent()).toBe("Your wishlist could not be updated. Please try again.");
    expect(await pressed(heart)).toBe("false");

    await page.unrouteAll();
    await page.route("**/apps/service/v1/storefront/wishlist/items**", (route) => route.abort("connectionrefused"));
    await cardHeart(page, "Tidal Swim Shorts").click();
    await expect.poll(() => pressed(cardHeart(page, "Tidal Swim Shorts"))).toBe("false");
    expect(await status.textContent()).toBe("Your wishlist could not be updated. Please try again.");

    await page.unrouteAll();
    let calls = 0;
    await page.route("**/apps/service/v1/storefront/wishlist/items**", (route) => {
      calls += 1;
      return route.fulfill({
        status: 429,
        headers: { "Retry-After": "30" },
        contentType: "application/problem+json",
        body: "{}",
      });
    });
    await heart.click();
    await expect.poll(() => status.textContent()).toBe("Too many changes at once. Try again in 30 s.");
    expect(await pressed(heart)).toBe("false");
    // Until Retry-After has passed the script does not call again.
    await heart.click();
    // The seconds left count down from 30 (how far depends on the machine's pace between the two clicks).
    const again = /^Too many changes at once\. Try again in (\d+) s\.$/;
    await expect.poll(() => status.textContent()).toMatch(again);
    const left = Number(again.exec((await status.textContent()) ?? "")?.[1]);
    expect(left).toBeGreaterThanOrEqual(1);
    expect(left).toBeLessThanOrEqual(30);
    expect(calls).toBe(1);
    expect(await listCount()).toBe(before);
    expectNoPageErrors(page, [/HTTP 500 POST/, /HTTP 429 POST/, /net::ERR_CONNECTION_REFUSED/]);
    await context.close();
  });

  it("saves once on a double click and removes once on the next, with no error in between", async () => {
    const { context, page } = await openStorefront(stack, "/collections/all");
    await scriptReady(page);
    const heart = cardHeart(page, "Granite Chino Pants");
    const status = page.getByRole("status");
    const before = await listCount();
    // Each call takes a moment, as on a real network, so every further press lands while it is under way.
    await page.route("**/apps/service/v1/storefront/wishlist/items**", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await route.continue();
    });
    await heart.dblclick();
    await expect.poll(() => status.textContent()).toBe("Saved to your wishlist");
    expect(await pressed(heart)).toBe("true");
    expect(await listCount()).toBe(before + 1);

    await heart.click({ clickCount: 3 });
    await expect.poll(() => status.textContent()).toBe("Removed from your wishlist");
    expect(await pressed(heart)).toBe("false");
    expect(await page.evaluate("window.Wishlist.get()")).toEqual([]);
    expect(await listCount()).toBe(before);
    expectNoPageErrors(page);
    await context.close();
  });

  it("keeps the guest's one list when the browser's storage is cleared mid-visit", async () => {
    const { context, page } = await openStorefront(stack, "/collections/all");
    await scriptReady(page);
    const savedIds = () =>
      page.evaluate("window.Wishlist.get().then((items) => items.filter((item) => item.id).length)");
    const dress = cardHeart(page, "Willow Silk Dress");
    const tote = cardHeart(page, "Pebble Canvas Tote");
    await dress.click();
    await expect.poll(savedIds).toBe(1);
    const aid = await page.evaluate('localStorage.getItem("wishlist:aid")');
    expect(aid).toBeTruthy();

    await page.evaluate("localStorage.clear()");
    await dress.click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Removed from your wishlist");
    await tote.click();
    await expect.poll(savedIds).toBe(1);
    // The save wrote the same guest id back: after a reload the list is still there.
    expect(await page.evaluate('localStorage.getItem("wishlist:aid")')).toBe(aid);
    await page.reload();
    await scriptReady(page);
    expect(await pressed(tote)).toBe("true");
    expect(await pressed(dress)).toBe("false");
    expectNoPageErrors(page);
    await context.close();
  });

  it("selects the share link instead of saying it was copied when the browser refuses the clipboard", async () => {
    const { context, page } = await openStorefront(stack, "/collections/all");
    await context.addInitScript(() => {
      Object.defineProperty(navigator, "clipboard", {
        value: { writeText: () => Promise.reject(new DOMException("Write permission denied.", "NotAllowedError")) },
      });
    });
    await scriptReady(page);
    await cardHeart(page, "Lagoon Sunglasses").click();
    await expect
      .poll(() => page.evaluate("window.Wishlist.get().then((items) => items.filter((item) => item.id).length)"), {
        timeout: 90_000,
      })
      .toBe(1);
    await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
    await scriptReady(page);
    await page.getByRole("button", { name: "Share wishlist" }).click();
    const link = page.getByRole("textbox", { name: "Link to your wishlist" });
    await expect.poll(() => link.inputValue()).toContain("/pages/wishlist?share=");
    expect(await page.evaluate("document.activeElement.getAttribute('aria-label')")).toBe("Link to your wishlist");
    expect(await page.evaluate("document.getSelection().toString()")).toBe(await link.inputValue());
    expect(await page.getByRole("status").textContent()).not.toContain("Link copied");
    expectNoPageErrors(page);
    await context.close();
  });

  it("says the wishlist could not be loaded, not that it is empty, when the backend is down at load", async () => {
    const { context, page } = await openStorefront(stack, "/products/granite-chino-pants");
    await scriptReady(page);
    await page.locator("[data-wishlist-product-page] button").click();
    await expect
      .poll(() => page.evaluate("window.Wishlist.get().then((items) => items.filter((item) => item.id).length)"))
      .toBe(1);
    await page.route("**/apps/service/v1/storefront/wishlist?**", (route) => route.abort("connectionrefused"));
    await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
    await page.getByText("Your wishlist could not be loaded. Please reload the page to try again.").waitFor();
    expect(await page.getByText("Your wishlist is empty").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Share wishlist" }).count()).toBe(0);
    await page.unrouteAll();
    await page.reload();
    await expect.poll(() => page.locator(".wl-list > li").count()).toBe(1);
    expectNoPageErrors(page, [/net::ERR_CONNECTION_REFUSED/]);
    await context.close();
  });

  it("shows an error and saves nothing when the proxy signature is tampered with", async () => {
    const { context, page } = await openStorefront(stack, "/collections/all");
    await scriptReady(page);
    const before = await listCount();
    stack.platform.storefront.tamperSignatures = true;
    try {
      await cardHeart(page, "Ember Wool Scarf").click();
      await expect
        .poll(() => page.getByRole("status").textContent())
        .toBe("Your wishlist could not be updated. Please try again.");
      expect(await pressed(cardHeart(page, "Ember Wool Scarf"))).toBe("false");
    } finally {
      stack.platform.storefront.tamperSignatures = false;
    }
    expect(await listCount()).toBe(before);
    expectNoPageErrors(page, [/HTTP 401 POST .*\/apps\/service\/v1\/storefront\/wishlist\/items/]);
    await context.close();
  });

  it("asks a guest to log in when guest lists are off, and follows the shop's sharing setting", async () => {
    const patch = (body: object) =>
      stack.api("/shop/settings", { method: "PATCH", body: JSON.stringify(body) }).then((response) => {
        expect(response.status).toBe(200);
      });
    await patch({ guestEnabled: false, shareEnabled: false });
    try {
      const { context, page } = await openStorefront(stack, "/collections/all");
      await scriptReady(page);
      const before = await listCount();
      await cardHeart(page, "Lagoon Sunglasses").click();
      const status = page.getByRole("status");
      await expect.poll(() => status.textContent()).toBe("Log in to save items Log in");
      expect(await status.getByRole("link", { name: "Log in" }).getAttribute("href")).toBe("/account/login");
      expect(await pressed(cardHeart(page, "Lagoon Sunglasses"))).toBe("false");
      expect(await listCount()).toBe(before);

      // Sharing off: no share button, and shared links say why they do not open.
      await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
      await scriptReady(page);
      expect(await page.getByRole("button", { name: "Share wishlist" }).isVisible()).toBe(false);
      // The guest's wishlist page asks them to log in rather than calling their list empty.
      const pageItems = page.locator("[data-wishlist-items]");
      expect(await pageItems.textContent()).toBe("Log in to save items Log in");
      expect(await pageItems.getByRole("link", { name: "Log in" }).getAttribute("href")).toBe("/account/login");
      await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist?share=nosuchtoken`);
      await page.getByText("This shop does not share wishlists.").waitFor({ timeout: 90_000 });
      expectNoPageErrors(page, [/HTTP 403 GET .*\/storefront\/lists\/nosuchtoken/]);
      await context.close();
    } finally {
      await patch({ guestEnabled: true, shareEnabled: true });
    }

    const { context, page } = await openStorefront(stack, "/pages/wishlist?share=nosuchtoken");
    await page.getByText("This shared wishlist no longer exists.").waitFor({ timeout: 90_000 });
    // A token no link can carry (400) is as dead, not an error to try again.
    await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist?share=${"x".repeat(300)}`);
    await page.getByText("This shared wishlist no longer exists.").waitFor({ timeout: 90_000 });
    expectNoPageErrors(page, [
      /HTTP 404 GET .*\/storefront\/lists\/nosuchtoken/,
      /HTTP 400 GET .*\/storefront\/lists\/x{300}/,
    ]);
    await context.close();
  });

  it("follows the embed's settings saved in the theme: no card hearts, a header count, the star icon", async () => {
    const embed = Object.values(stack.standInShop.theme.blocks).find((block) =>
      block.type.includes("/blocks/app-embed/"),
    )!;
    // What the theme editor writes to the theme's settings for the embed (config/settings_data.json).
    embed.settings = { cards: false, badge: true, icon_style: "star", colour: "#005bd3" };
    try {
      const { context, page } = await openStorefront(stack, "/collections/all");
      await scriptReady(page);
      expect(await page.locator(".wl-card").count()).toBe(0);
      const badge = page.getByRole("link", { name: "Wishlist", exact: true }).and(page.locator(".wl-badge"));
      await badge.waitFor();
      expect(await badge.getAttribute("href")).toBe("/pages/wishlist");
      expect(await badge.locator("[data-wishlist-count]").textContent()).toBe("");

      await page.goto(`${stack.platform.storefrontOrigin}/products/willow-silk-dress`);
      await scriptReady(page);
      const heart = page.locator("[data-wishlist-product-page] button");
      await heart.click();
      await expect.poll(() => page.locator(".wl-badge [data-wishlist-count]").textContent()).toBe("1");
      // The embed's colour reaches the styles; the product block keeps its own icon setting (a heart).
      expect(await page.locator(".wl-badge").evaluate((element) => getComputedStyle(element).color)).toBe(
        "rgb(0, 91, 211)",
      );
      expect(
        await page.locator("#wishlist-icon").evaluate((template: HTMLTemplateElement) => template.innerHTML),
      ).toContain("M12 3l2.8");
      expectNoPageErrors(page);
      await context.close();
    } finally {
      embed.settings = {};
    }
  });

  it("shows a product deleted from the shop as no longer available, without a link, and still removes it", async () => {
    const { context, page } = await openStorefront(stack, "/products/lagoon-sunglasses");
    await scriptReady(page);
    await page.locator("[data-wishlist-product-page] button").click();
    await page.getByRole("button", { name: "Remove from wishlist" }).waitFor();
    expect(
      await page.evaluate(
        'window.Wishlist.toggle("8100000009", { handle: "ember-wool-scarf", title: "Ember Wool Scarf" })',
      ),
    ).toBe(true);
    // The merchant deletes the product: the stand-in sends the signed products/delete webhook.
    expect(await stack.platform.deleteProduct(stack.shop.domain, "8100000012")).toBe(200);

    await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
    const gone = page.locator(".wl-list > li", { hasText: "Lagoon Sunglasses" });
    await expect.poll(() => gone.textContent()).toContain("No longer available");
    expect(await gone.locator("a").count()).toBe(0);
    const kept = page.locator(".wl-list > li", { hasText: "Ember Wool Scarf" });
    expect(await kept.locator("a").getAttribute("href")).toBe("/products/ember-wool-scarf");
    expect(await kept.textContent()).not.toContain("No longer available");
    await screenshot(page, "storefront-unavailable");

    await page.getByRole("button", { name: "Remove from wishlist: Lagoon Sunglasses" }).click();
    await expect.poll(() => page.locator(".wl-list > li").count()).toBe(1);
    expectNoPageErrors(page);
    await context.close();
  });

  it("shows each saved product's image, price in the shop's money format, variant, availability and saved date, on the wishlist page and the shared page", async () => {
    // GIVEN a shop that writes prices "€1.234,50" (its money format carries markup, as many do)
    stack.standInShop.moneyFormat = '<span class="money">&euro;{{amount_with_comma_separator}}</span>';
    try {
      // WHEN a guest saves the sweater in Medium from its page, the rain jacket from the grid and the sold-out tote
      const { context, page } = await saveSweaterJacketAndTote(stack);
      const lookups: string[] = [];
      page.on("request", (request) => {
        if (/\/products\/[^/]+\.js$/.test(new URL(request.url()).pathname)) lookups.push(request.url());
      });
      await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);

      // THEN each row shows the product as the shop has it now, in the shop's money format
      const rows = page.locator(".wl-list > li");
      const today = new Intl.DateTimeFormat("en", { dateStyle: "medium" }).format(new Date());
      const described = (title: string) => rows.filter({ hasText: title });
      await expect.poll(() => rows.count()).toBe(3);
      const sweater = described("Orchard Knit Sweater");
      // Its variant picker (for "Add to cart") shows the saved variant, and which of the others are sold out.
      expect(await sweater.locator(".wl-info").innerText()).toBe(
        ["Orchard Knit Sweater", "Small", "Medium", "Large (Sold out)", "€1.234,50", "In stock", `Added ${today}`].join(
          "\n",
        ),
      );
      expect(await sweater.getByRole("combobox", { name: "Option: Orchard Knit Sweater" }).inputValue()).toBe(
        "9200000007",
      );
      const image = sweater.getByRole("img", { name: "Orchard Knit Sweater" });
      expect(await image.getAttribute("src")).toBe(
        `//${new URL(stack.platform.storefrontOrigin).host}/cdn/shop/files/orchard-knit-sweater.svg`,
      );
      await expect.poll(() => image.evaluate((element: HTMLImageElement) => element.naturalWidth)).toBeGreaterThan(0);
      expect(await sweater.getByRole("link", { name: "Orchard Knit Sweater" }).getAttribute("href")).toBe(
        "/products/orchard-knit-sweater?variant=9200000007",
      );
      // A product without options names no variant; a sold-out one says so and is still listed.
      expect(await described("Summit Rain Jacket").locator(".wl-info").innerText()).toBe(
        ["Summit Rain Jacket", "€64,00", "In stock", `Added ${today}`].join("\n"),
      );
      expect(await described("Pebble Canvas Tote").locator(".wl-info").innerText()).toBe(
        ["Pebble Canvas Tote", "€78,00", "Sold out", `Added ${today}`].join("\n"),
      );
      expect(await rows.getByRole("img").count()).toBe(3);
      expect(await pageViolations(page)).toEqual([]);
      await screenshot(page, "storefront-wishlist-details");
      // Each product is looked up once for the page, also when a removal redraws it.
      expect(lookups.length).toBe(3);
      await page.getByRole("button", { name: "Remove from wishlist: Summit Rain Jacket" }).click();
      await expect.poll(() => rows.count()).toBe(2);
      expect(lookups.length).toBe(3);

      // The shared page shows the same details, in the storefront's language
      await page.getByRole("button", { name: "Share wishlist" }).click();
      const link = page.getByRole("textbox", { name: "Link to your wishlist" });
      await expect.poll(() => link.inputValue()).toContain("?share=");
      const shared = new URL(await link.inputValue());
      const friend = await openStorefront(stack, `${shared.pathname}${shared.search}&locale=fr`);
      const sharedRows = friend.page.locator(".wl-list > li");
      await expect.poll(() => sharedRows.count(), { timeout: 90_000 }).toBe(2);
      const jour = new Intl.DateTimeFormat("fr", { dateStyle: "medium" }).format(new Date());
      expect(await sharedRows.filter({ hasText: "Orchard Knit Sweater" }).locator(".wl-info").innerText()).toBe(
        [
          "Orchard Knit Sweater",
          "Small",
          "Medium",
          "Large (Épuisé)",
          "€1.234,50",
          "En stock",
          `Ajouté le ${jour}`,
        ].join("\n"),
      );
      expect(await sharedRows.filter({ hasText: "Pebble Canvas Tote" }).locator(".wl-info").innerText()).toBe(
        ["Pebble Canvas Tote", "€78,00", "Épuisé", `Ajouté le ${jour}`].join("\n"),
      );
      expect(await sharedRows.getByRole("img", { name: "Orchard Knit Sweater" }).count()).toBe(1);
      expect(await friend.page.getByRole("button", { name: /^Retirer/ }).count()).toBe(0);
      expect(await pageViolations(friend.page)).toEqual([]);
      expectNoPageErrors(friend.page);
      await friend.context.close();

      // A product the shop no longer shows (its product JSON answers 404) keeps its name, without a link
      await page.route("**/products/pebble-canvas-tote.js", (route) => route.fulfill({ status: 404, body: "" }));
      await page.reload();
      const tote = described("Pebble Canvas Tote");
      await expect
        .poll(() => tote.locator(".wl-info").innerText())
        .toBe(["Pebble Canvas Tote", "No longer available", `Added ${today}`].join("\n"));
      expect(await tote.getByRole("link").count()).toBe(0);
      expect(await tote.getByRole("img").count()).toBe(0);
      await tote.getByRole("button", { name: "Remove from wishlist: Pebble Canvas Tote" }).waitFor();
      expectNoPageErrors(page, [/HTTP 404 GET .*\/products\/pebble-canvas-tote\.js/]);
      await context.close();
    } finally {
      delete stack.standInShop.moneyFormat;
    }
  });

  it("offers no Share to a shopper whose list is empty", async () => {
    const { context, page } = await openStorefront(stack, "/pages/wishlist");
    await scriptReady(page);
    await page.getByText("Your wishlist is empty").waitFor();
    expect(await page.getByRole("button", { name: "Share wishlist" }).count()).toBe(0);
    expectNoPageErrors(page);
    await context.close();
  });

  it("shows no label of the product page's button and no endless loading on the wishlist page while the app embed is off", async () => {
    await setEmbed(stack, false);
    try {
      const { context, page } = await openStorefront(stack, "/products/harbor-wool-coat");
      const block = page.locator("[data-wishlist-product-page]");
      await block.waitFor({ state: "attached" });
      // Without the embed no script runs: a button that could do nothing is not shown, nor both of its labels.
      expect(await block.getByText("Add to wishlist").isVisible()).toBe(false);
      expect(await block.getByText("Remove from wishlist").isVisible()).toBe(false);
      expect(await page.getByRole("button", { name: /wishlist/ }).count()).toBe(0);
      await context.close();
      // The wishlist page cannot load a list without the embed: it says so instead of loading for ever.
      const wishlistPage = await openStorefront(stack, "/pages/wishlist");
      await wishlistPage.page.getByText("The wishlist is not available in this shop right now.").waitFor();
      expect(await wishlistPage.page.getByText("Loading the wishlist…").count()).toBe(0);
      await wishlistPage.context.close();
    } finally {
      await setEmbed(stack, true);
    }
    const { context, page } = await openStorefront(stack, "/products/harbor-wool-coat");
    await scriptReady(page);
    const block = page.locator("[data-wishlist-product-page]");
    expect(await block.getByText("Add to wishlist").isVisible()).toBe(true);
    expect(await block.getByText("Remove from wishlist").isVisible()).toBe(false);
    expectNoPageErrors(page);
    await context.close();
  });

  it("adds no serious or critical accessibility violation to the storefront's pages", async () => {
    for (const pagePath of ["/collections/all", "/products/aurora-linen-shirt", "/pages/wishlist"]) {
      await setEmbed(stack, false);
      const without = await openStorefront(stack, pagePath);
      const baseline = await pageViolations(without.page);
      await without.context.close();
      await setEmbed(stack, true);
      const withEmbed = await openStorefront(stack, pagePath);
      await scriptReady(withEmbed.page);
      const added = (await pageViolations(withEmbed.page)).filter((violation) => !baseline.includes(violation));
      expect({ page: pagePath, added }).toEqual({ page: pagePath, added: [] });
      await withEmbed.context.close();
    }
  });
});
