/**
 * The shopper's journey beyond one list (issue 28): add to cart and add all to cart from the wishlist page and
 * the shared page (the stand-in's Ajax Cart API), named lists through the heart's list picker and the page's
 * tabs, notes and quantities, undo, and the visitor's privacy answer (the Customer Privacy API). Real web
 * server, worker, database and Redis; the storefront is the stand-in's, rendering the extension's real Liquid
 * and built scripts.
 */
import type { BrowserContext, Page } from "playwright-core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { expectNoPageErrors, screenshot, useAdminStack } from "./support/admin";
import {
  cardHeart,
  logIn,
  openStorefront,
  pageViolations,
  pressed,
  saveSweaterJacketAndTote,
  scriptReady,
  setEmbed,
} from "./support/online-store";

const stack = useAdminStack();

beforeAll(async () => {
  await setEmbed(stack, true);
}, 120_000);

const settings = (body: object) =>
  stack.api("/shop/settings", { method: "PATCH", body: JSON.stringify(body) }).then((response) => {
    expect(response.status).toBe(200);
  });
afterEach(() => settings({ multipleLists: false }));

interface CartJson {
  item_count: number;
  items: Array<{ variant_id: number; quantity: number; product_title: string }>;
}
const cartOf = async (page: Page) =>
  (await page.evaluate("fetch('/cart.js').then((response) => response.json())")) as CartJson;
const cartLines = async (page: Page) =>
  (await cartOf(page)).items.map((item) => `${item.variant_id} x${item.quantity}`).sort();

/** The items of a customer's lists, by list name, through the private API. */
async function customerLists(customerId: string) {
  const page = (await (await stack.api(`/lists?customerId=${customerId}&limit=100`)).json()) as {
    data: Array<{ id: string; name: string }>;
  };
  const lists: Record<string, Array<{ titleSnapshot: string; note: string | null; quantity: number }>> = {};
  for (const list of page.data) {
    const detail = (await (await stack.api(`/lists/${list.id}`)).json()) as {
      items: Array<{ titleSnapshot: string; note: string | null; quantity: number }>;
    };
    lists[list.name] = detail.items;
  }
  return lists;
}

describe("Shoppers' lists in the theme", { timeout: 300_000 }, () => {
  it("adds a saved item and then the whole list to the cart with the saved quantities, skipping what is sold out; a friend buys from the shared page", async () => {
    // GIVEN a guest saved the sweater in Medium, the rain jacket and the sold-out tote, and wants two jackets
    const { context, page } = await saveSweaterJacketAndTote(stack);
    await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
    const rows = page.locator(".wl-list > li");
    await expect.poll(() => rows.count()).toBe(3);
    const quantity = page.getByRole("spinbutton", { name: "Quantity: Summit Rain Jacket" });
    await quantity.fill("2");
    await quantity.press("Tab");
    await page.getByRole("status").filter({ hasText: "Change saved" }).waitFor();
    // A note with markup is kept and shown as the text it is.
    const note = page.getByRole("textbox", { name: "Note: Summit Rain Jacket" });
    await note.fill('<b>for Sam</b> <img src=x onerror="window.__xss=1">');
    await note.press("Tab");
    await page.getByRole("status").filter({ hasText: "Change saved" }).waitFor();
    // Out of range quantities are refused in the page, before any call.
    await quantity.fill("100");
    await quantity.press("Tab");
    await page.getByRole("status").filter({ hasText: "Choose a quantity from 1 to 99." }).waitFor();
    expect(await quantity.inputValue()).toBe("2");

    // The sold-out tote cannot be added; its button says so by being unavailable.
    const tote = rows.filter({ hasText: "Pebble Canvas Tote" });
    expect(await tote.getByRole("button", { name: "Add to cart: Pebble Canvas Tote" }).isDisabled()).toBe(true);

    // WHEN the guest adds the sweater in Small (the picker changes what is bought, not what is saved)
    await page.getByRole("combobox", { name: "Option: Orchard Knit Sweater" }).selectOption("Small");
    await page.getByRole("button", { name: "Add to cart: Orchard Knit Sweater" }).click();
    await page.getByRole("status").filter({ hasText: "Added to your cart: 1." }).waitFor();
    expect(await cartLines(page)).toEqual(["9100000007 x1"]);
    // ... and then everything
    await page.getByRole("combobox", { name: "Option: Orchard Knit Sweater" }).selectOption("Medium");
    await page.getByRole("button", { name: "Add all to cart" }).click();

    // THEN the cart holds what was saved, with its quantities; the tote was skipped and the shopper told
    await page
      .getByRole("status")
      .filter({ hasText: "Added to your cart: 2. Not added (sold out or unavailable): 1." })
      .waitFor();
    expect(await cartLines(page)).toEqual(["9100000007 x1", "9100000006 x2", "9200000007 x1"].sort());
    await screenshot(page, "storefront-add-all-to-cart");
    await page.getByRole("link", { name: "View cart" }).click();
    await page.getByRole("heading", { name: "Your cart" }).waitFor();
    expect(await page.locator("[data-cart-line='9100000006'] [data-quantity]").textContent()).toBe("2");
    expect(await page.evaluate("window.__xss")).toBeUndefined();

    // A friend opening the shared link adds the list to their own cart, quantities included, and sees the note as text
    await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
    await page.getByRole("button", { name: "Share wishlist" }).click();
    const link = page.getByRole("textbox", { name: "Link to your wishlist" });
    await expect.poll(() => link.inputValue()).toContain("?share=");
    await page.getByRole("button", { name: "Copy link" }).waitFor();
    const shared = new URL(await link.inputValue());
    const friend = await openStorefront(stack, `${shared.pathname}${shared.search}`);
    const sharedRows = friend.page.locator(".wl-list > li");
    await expect.poll(() => sharedRows.count(), { timeout: 90_000 }).toBe(3);
    const jacket = sharedRows.filter({ hasText: "Summit Rain Jacket" });
    expect(await jacket.locator(".wl-item-note").textContent()).toBe(
      '<b>for Sam</b> <img src=x onerror="window.__xss=1">',
    );
    expect(await jacket.locator("b, img[src=x]").count()).toBe(0);
    expect(await jacket.locator(".wl-qty").textContent()).toBe("Quantity: 2");
    expect(await friend.page.getByRole("button", { name: /^Remove from wishlist/ }).count()).toBe(0);
    await friend.page.getByRole("button", { name: "Add to cart: Summit Rain Jacket" }).click();
    await friend.page.getByRole("status").filter({ hasText: "Added to your cart: 1." }).waitFor();
    expect(await cartLines(friend.page)).toEqual(["9100000006 x2"]);
    await friend.page.getByRole("button", { name: "Add all to cart" }).click();
    await friend.page
      .getByRole("status")
      .filter({ hasText: "Added to your cart: 2. Not added (sold out or unavailable): 1." })
      .waitFor();
    expect(await cartLines(friend.page)).toEqual(["9100000006 x4", "9200000007 x1"]);
    expect(await pageViolations(friend.page)).toEqual([]);
    await screenshot(friend.page, "storefront-shared-add-to-cart");
    expectNoPageErrors(friend.page);
    expect(await friend.page.evaluate("window.__xss")).toBeUndefined();
    await friend.context.close();
    expectNoPageErrors(page);
    await context.close();
  });

  it("with named lists on, the heart opens a list picker used by keyboard alone; the page shows tabs to rename, move, note, delete, and undo a removal", async () => {
    await settings({ multipleLists: true });
    const { context, page } = await openStorefront(stack);
    await logIn(stack, page, /^Katherine Johnson/);
    await page.goto(`${stack.platform.storefrontOrigin}/collections/all`);
    await scriptReady(page);

    // The heart opens the picker: a modal dialog holding the focus, the lists as checkboxes, a field for a new one.
    const heart = cardHeart(page, "Meadow Sun Hat");
    await heart.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Save to a list" });
    await dialog.waitFor();
    await expect.poll(() => page.evaluate("document.activeElement.closest('dialog') !== null")).toBe(true);
    expect(await dialog.getByRole("checkbox", { name: "Wishlist" }).isChecked()).toBe(false);
    // The default list, by keyboard
    await page.keyboard.press("Space");
    await dialog.getByRole("status").filter({ hasText: "Saved to Wishlist" }).waitFor();
    // A new list, created inline, holds the product at once, and has the focus
    await dialog.getByRole("textbox", { name: "New list" }).focus();
    await page.keyboard.type("Gifts for Sam");
    await page.keyboard.press("Enter");
    await expect.poll(() => dialog.getByRole("checkbox", { name: "Gifts for Sam" }).isChecked()).toBe(true);
    await dialog.getByRole("status").filter({ hasText: "Saved to Gifts for Sam" }).waitFor();
    expect(await page.evaluate("document.activeElement.parentElement.textContent.trim()")).toBe("Gifts for Sam");
    // Each press of Space changes the list the focus is on, and the focus stays there
    await page.keyboard.press("Space");
    await dialog.getByRole("status").filter({ hasText: "Removed from Gifts for Sam" }).waitFor();
    expect(await page.evaluate("document.activeElement.parentElement.textContent.trim()")).toBe("Gifts for Sam");
    await page.keyboard.press("Space");
    await dialog.getByRole("status").filter({ hasText: "Saved to Gifts for Sam" }).waitFor();
    expect(await dialog.getByRole("checkbox", { name: "Wishlist" }).isChecked()).toBe(true);
    expect(await dialog.getByRole("checkbox", { name: "Gifts for Sam" }).isChecked()).toBe(true);
    // The same name in another case is refused, and says why
    await dialog.getByRole("textbox", { name: "New list" }).fill("GIFTS FOR SAM");
    await page.keyboard.press("Enter");
    await dialog.getByRole("status").filter({ hasText: "You already have a list with this name." }).waitFor();
    expect(await pageViolations(page)).toEqual([]);
    await screenshot(page, "storefront-list-picker");
    // Tab stays in the dialog; Escape closes it and the focus goes back to the heart
    for (let press = 0; press < 8; press += 1) {
      await page.keyboard.press("Tab");
      expect(await page.evaluate("document.activeElement.closest('dialog') !== null")).toBe(true);
    }
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await page.evaluate("document.activeElement.getAttribute('aria-label')")).toBe(
      "Add to wishlist: Meadow Sun Hat",
    );
    expect(await pressed(heart)).toBe("true");
    // Saved to the named list only, another product still fills its heart
    await cardHeart(page, "Ember Wool Scarf").click();
    await dialog.getByRole("checkbox", { name: "Gifts for Sam" }).check();
    await dialog.getByRole("status").filter({ hasText: "Saved to Gifts for Sam" }).waitFor();
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect.poll(() => pressed(cardHeart(page, "Ember Wool Scarf"))).toBe("true");
    expect(await cardHeart(page, "Ember Wool Scarf").getAttribute("aria-haspopup")).toBe("dialog");
    // After a reload the hearts remember every list, and the header counts the products
    await page.reload();
    await scriptReady(page);
    expect(await pressed(cardHeart(page, "Ember Wool Scarf"))).toBe("true");
    expect(await page.locator(".wl-badge [data-wishlist-count]").textContent()).toBe("2");
    expect(await customerLists("7004")).toEqual({
      Wishlist: [expect.objectContaining({ titleSnapshot: "Meadow Sun Hat" })],
      "Gifts for Sam": [
        expect.objectContaining({ titleSnapshot: "Ember Wool Scarf" }),
        expect.objectContaining({ titleSnapshot: "Meadow Sun Hat" }),
      ],
    });

    // The wishlist page: one tab per list, arrow keys move between them
    await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
    const tabs = page.getByRole("tablist", { name: "Your lists" });
    await tabs.getByRole("tab", { name: "Wishlist (1)", selected: true }).waitFor();
    await tabs.getByRole("tab", { name: "Wishlist (1)" }).focus();
    await page.keyboard.press("ArrowRight");
    await tabs.getByRole("tab", { name: "Gifts for Sam (2)", selected: true }).waitFor();
    await page.keyboard.press("Home");
    await tabs.getByRole("tab", { name: "Wishlist (1)", selected: true }).waitFor();
    await page.keyboard.press("End");
    await tabs.getByRole("tab", { name: "Gifts for Sam (2)", selected: true }).waitFor();
    const panel = page.getByRole("tabpanel", { name: "Gifts for Sam (2)" });
    await expect.poll(() => panel.locator(".wl-list > li").count()).toBe(2);
    // A note, kept on the item
    const note = panel.getByRole("textbox", { name: "Note: Ember Wool Scarf" });
    await note.fill("size M for Sam");
    await note.press("Tab");
    await page.getByRole("status").filter({ hasText: "Change saved" }).waitFor();
    // Rename
    await page.getByRole("button", { name: "Rename list" }).click();
    await page.getByRole("textbox", { name: "Rename list" }).fill("Birthday");
    await page.keyboard.press("Enter");
    await tabs.getByRole("tab", { name: "Birthday (2)", selected: true }).waitFor();
    // The address names the list shown: a reload comes back to it
    await page.reload();
    await tabs.getByRole("tab", { name: "Birthday (2)", selected: true }).waitFor();
    const birthday = page.getByRole("tabpanel", { name: "Birthday (2)" });
    // Each item can go to another of the lists
    // The hat is on the default list already: the move is refused, and the page says why
    await birthday.getByRole("combobox", { name: "Move to…: Meadow Sun Hat" }).selectOption({ label: "Wishlist" });
    await page.getByRole("status").filter({ hasText: "That list already holds this product." }).waitFor();
    expect(await birthday.getByRole("combobox", { name: "Move to…: Meadow Sun Hat" }).inputValue()).toBe("");
    // Remove the scarf, then undo: it comes back with its note
    await birthday.getByRole("button", { name: "Remove from wishlist: Ember Wool Scarf" }).click();
    await expect.poll(() => page.locator(".wl-list > li").count()).toBe(1);
    await page.getByRole("status").getByRole("button", { name: "Undo" }).click();
    await tabs.getByRole("tab", { name: "Birthday (2)" }).waitFor();
    await expect
      .poll(async () => (await customerLists("7004")).Birthday?.map((item) => item.note))
      .toContain("size M for Sam");
    await expect.poll(() => page.locator(".wl-list > li").count()).toBe(2);
    expect(await pageViolations(page)).toEqual([]);
    await screenshot(page, "storefront-list-tabs");
    // Move the scarf to the default list
    await page.getByRole("combobox", { name: "Move to…: Ember Wool Scarf" }).selectOption({ label: "Wishlist" });
    await tabs.getByRole("tab", { name: "Wishlist (2)" }).waitFor();
    // Delete the list after confirming; the default list is shown again and has no Delete
    page.once("dialog", (prompt) => {
      expect(prompt.message()).toBe("Delete the list “Birthday” and everything on it?");
      void prompt.accept();
    });
    await page.getByRole("button", { name: "Delete list" }).click();
    await tabs.getByRole("tab", { name: "Wishlist (2)", selected: true }).waitFor();
    expect(await tabs.getByRole("tab").count()).toBe(1);
    expect(await page.getByRole("button", { name: "Delete list" }).count()).toBe(0);
    expect(await customerLists("7004")).toEqual({
      Wishlist: [
        expect.objectContaining({ titleSnapshot: "Ember Wool Scarf", note: "size M for Sam" }),
        expect.objectContaining({ titleSnapshot: "Meadow Sun Hat" }),
      ],
    });
    // The refused duplicate name and move
    expectNoPageErrors(page, [/HTTP 409 POST .*\/storefront\/wishlists$/, /HTTP 409 POST .*\/move$/]);
    await context.close();
  });

  it("a guest's whole journey: saves to two lists, writes a note, adds a list to the cart, shares it, logs in and finds the lists merged", async () => {
    await settings({ multipleLists: true });
    const { context, page } = await openStorefront(stack, "/collections/all");
    await scriptReady(page);
    // 1. Two lists: the shirt on the wishlist and on a new "Gifts for Sam", the scarf on the gifts only
    await cardHeart(page, "Aurora Linen Shirt").click();
    const dialog = page.getByRole("dialog", { name: "Save to a list" });
    await dialog.getByRole("checkbox", { name: "Wishlist" }).check();
    await dialog.getByRole("status").filter({ hasText: "Saved to Wishlist" }).waitFor();
    await dialog.getByRole("textbox", { name: "New list" }).fill("Gifts for Sam");
    await dialog.getByRole("button", { name: "Create" }).click();
    await expect.poll(() => dialog.getByRole("checkbox", { name: "Gifts for Sam" }).isChecked()).toBe(true);
    await screenshot(page, "journey-1-two-lists");
    await dialog.getByRole("button", { name: "Done" }).click();
    await cardHeart(page, "Ember Wool Scarf").click();
    await dialog.getByRole("checkbox", { name: "Gifts for Sam" }).check();
    await dialog.getByRole("status").filter({ hasText: "Saved to Gifts for Sam" }).waitFor();
    await dialog.getByRole("button", { name: "Done" }).click();

    // 2. A note on the gifts list
    await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
    const tabs = page.getByRole("tablist", { name: "Your lists" });
    await tabs.getByRole("tab", { name: "Gifts for Sam (2)" }).click();
    const gifts = page.getByRole("tabpanel", { name: "Gifts for Sam (2)" });
    await expect.poll(() => gifts.locator(".wl-list > li").count()).toBe(2);
    const note = gifts.getByRole("textbox", { name: "Note: Ember Wool Scarf" });
    await note.fill("size M for Sam");
    await note.press("Tab");
    await page.getByRole("status").filter({ hasText: "Change saved" }).waitFor();
    await screenshot(page, "journey-2-note");

    // 3. The whole gifts list into the cart
    await page.getByRole("button", { name: "Add all to cart" }).click();
    await page.getByRole("status").filter({ hasText: "Added to your cart: 2." }).waitFor();
    expect(await cartLines(page)).toEqual(["9100000001 x1", "9100000009 x1"]);
    await expect.poll(() => page.locator("[data-cart-count]").textContent()).toBe("2");
    await screenshot(page, "journey-3-add-all-to-cart");

    // 4. Sharing the gifts list only: a friend sees its two items and the note
    await page.getByRole("button", { name: "Share wishlist" }).click();
    const link = page.getByRole("textbox", { name: "Link to your wishlist" });
    await expect.poll(() => link.inputValue()).toContain("?share=");
    const shared = new URL(await link.inputValue());
    const friend = await openStorefront(stack, `${shared.pathname}${shared.search}`);
    const sharedRows = friend.page.locator(".wl-list > li");
    await expect.poll(() => sharedRows.count(), { timeout: 90_000 }).toBe(2);
    await friend.page.getByRole("heading", { name: "Gifts for Sam" }).waitFor();
    expect(await sharedRows.filter({ hasText: "Ember Wool Scarf" }).locator(".wl-item-note").textContent()).toBe(
      "size M for Sam",
    );
    await screenshot(friend.page, "journey-4-shared-list");
    await friend.context.close();

    // 5. Logging in: both lists become the customer's, the note kept
    await logIn(stack, page, /^Alan Turing/);
    expect(await page.evaluate('localStorage.getItem("wishlist:aid")')).toBeNull();
    // (saved from product cards, the products' one variant each: what a cart permalink needs)
    expect(await customerLists("7003")).toEqual({
      Wishlist: [expect.objectContaining({ titleSnapshot: "Aurora Linen Shirt", variantId: "9100000001" })],
      "Gifts for Sam": [
        expect.objectContaining({ titleSnapshot: "Ember Wool Scarf", note: "size M for Sam" }),
        expect.objectContaining({ titleSnapshot: "Aurora Linen Shirt" }),
      ],
    });
    await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
    await tabs.getByRole("tab", { name: "Gifts for Sam (2)" }).waitFor();
    await tabs.getByRole("tab", { name: "Wishlist (1)", selected: true }).waitFor();
    await screenshot(page, "journey-5-merged-at-login");
    expectNoPageErrors(page);
    await context.close();
  });

  describe("the visitor's privacy answer", () => {
    async function withConsent(state: string): Promise<{ context: BrowserContext; page: Page }> {
      const opened = await openStorefront(stack, "/collections/all");
      await opened.context.addCookies([
        { name: "standin_consent", value: state, url: stack.platform.storefrontOrigin },
      ]);
      await opened.page.reload();
      await scriptReady(opened.page);
      return opened;
    }

    it("keeps a guest's list in memory only while preferences storage is refused, and says so", async () => {
      const { context, page } = await withConsent("denied");
      // An id stored on an earlier visit (consent given then, refused now) is removed, not read
      await page.evaluate('localStorage.setItem("wishlist:aid", "8e6f2c1a-4b3d-4e5f-9a7b-0c1d2e3f4a5b")');
      await page.reload();
      await scriptReady(page);
      expect(await page.evaluate('localStorage.getItem("wishlist:aid")')).toBeNull();
      await cardHeart(page, "Granite Chino Pants").click();
      await expect.poll(() => pressed(cardHeart(page, "Granite Chino Pants"))).toBe("true");
      await page
        .getByRole("status")
        .filter({ hasText: "Saved for this visit only: log in to keep your wishlist." })
        .waitFor();
      expect(await page.evaluate('localStorage.getItem("wishlist:aid")')).toBeNull();
      // Still works for the page: removal finds the guest
      await cardHeart(page, "Granite Chino Pants").click();
      await expect.poll(() => pressed(cardHeart(page, "Granite Chino Pants"))).toBe("false");
      await cardHeart(page, "Granite Chino Pants").click();
      await expect.poll(() => pressed(cardHeart(page, "Granite Chino Pants"))).toBe("true");
      // A new page starts without the list
      await page.reload();
      await scriptReady(page);
      expect(await pressed(cardHeart(page, "Granite Chino Pants"))).toBe("false");
      await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
      await page.getByText("Saved for this visit only: log in to keep your wishlist.").waitFor();
      expectNoPageErrors(page);
      await context.close();
    });

    it("does not merge a guest list whose id is left in the browser of a customer who refused storage, and removes the id", async () => {
      // A guest (storage allowed) saves the chinos, in a browser of their own
      const guest = await withConsent("not-required");
      await cardHeart(guest.page, "Granite Chino Pants").click();
      await expect.poll(() => guest.page.evaluate('localStorage.getItem("wishlist:aid")')).toMatch(/^[0-9a-f-]{36}$/);
      const aid = (await guest.page.evaluate('localStorage.getItem("wishlist:aid")')) as string;
      await guest.context.close();
      // A customer who refused storage has that id left in their browser
      const { context, page } = await withConsent("denied");
      await logIn(stack, page, /^Grace Hopper/);
      await page.evaluate(`localStorage.setItem("wishlist:aid", "${aid}")`);
      await page.reload();
      await scriptReady(page);
      expect(await page.evaluate('localStorage.getItem("wishlist:aid")')).toBeNull();
      expect(await pressed(cardHeart(page, "Granite Chino Pants"))).toBe("false");
      expectNoPageErrors(page);
      await context.close();
    });

    it("keeps a save made before the privacy API answered, once it answers that storage is allowed", async () => {
      const { context, page } = await openStorefront(stack, "/");
      // The platform's loader takes its time: the API answers 2 s after the script asks.
      await context.addInitScript(`window.Shopify = new Proxy({}, {
        set(target, key, value) {
          target[key] = key === "loadFeatures" ? (features, done) => setTimeout(() => value(features, done), 2000) : value;
          return true;
        },
      });`);
      await page.goto(`${stack.platform.storefrontOrigin}/products/tidal-swim-shorts`);
      await page.waitForFunction("window.Wishlist !== undefined");
      await page.getByRole("button", { name: "Add to wishlist" }).click();
      await page.getByRole("button", { name: "Remove from wishlist" }).waitFor();
      await expect.poll(() => page.evaluate('localStorage.getItem("wishlist:aid")')).toMatch(/^[0-9a-f-]{36}$/);
      await page.reload();
      await scriptReady(page);
      await page.getByRole("button", { name: "Remove from wishlist" }).waitFor();
      expectNoPageErrors(page);
      await context.close();
    });

    it("keeps the list once the visitor accepts in the shop's banner, and never affects a logged-in customer", async () => {
      const { context, page } = await withConsent("pending");
      await cardHeart(page, "Lagoon Sunglasses").click();
      await expect.poll(() => pressed(cardHeart(page, "Lagoon Sunglasses"))).toBe("true");
      expect(await page.evaluate('localStorage.getItem("wishlist:aid")')).toBeNull();
      await page.getByRole("region", { name: "Cookie consent" }).getByRole("button", { name: "Accept" }).click();
      await expect.poll(() => page.evaluate('localStorage.getItem("wishlist:aid")')).toMatch(/^[0-9a-f-]{36}$/);
      await page.reload();
      await scriptReady(page);
      expect(await pressed(cardHeart(page, "Lagoon Sunglasses"))).toBe("true");

      // Logging in merges the kept guest list, as always
      await logIn(stack, page, /^Edsger Dijkstra/);
      expect(await pressed(cardHeart(page, "Lagoon Sunglasses"))).toBe("true");
      // A customer who refuses later keeps their list: it is theirs on the server, nothing in the browser
      await context.addCookies([{ name: "standin_consent", value: "denied", url: stack.platform.storefrontOrigin }]);
      await page.reload();
      await scriptReady(page);
      await cardHeart(page, "Willow Silk Dress").click();
      await expect.poll(() => pressed(cardHeart(page, "Willow Silk Dress"))).toBe("true");
      await page.reload();
      await scriptReady(page);
      expect(await pressed(cardHeart(page, "Willow Silk Dress"))).toBe("true");
      expect(await pressed(cardHeart(page, "Lagoon Sunglasses"))).toBe("true");
      expectNoPageErrors(page);
      await context.close();
    });
  });
});
