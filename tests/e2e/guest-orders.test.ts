/**
 * Orders from guests (issue 30): the storefront script writes a guest's default list (its id with the app's tag
 * for the guest) into the cart's hidden attribute `_wishlist_list` (once per session and cart, where the visitor
 * allows preferences storage; never for a customer, never the anonymous id), and the stand-in's checkout
 * carries it into the order's `note_attributes`. Real web server, worker, database and Redis; the storefront is the stand-in's, rendering
 * the extension's real Liquid and built scripts.
 */
import type { BrowserContext, Page } from "playwright-core";
import { until } from "../support/poll";
import { beforeAll, describe, expect, it } from "vitest";
import { expectNoPageErrors, screenshot, trackPageErrors, useAdminStack } from "./support/admin";
import { buyFromProductPage, cardHeart, openStorefront, pressed, scriptReady, setEmbed } from "./support/online-store";

const stack = useAdminStack();

beforeAll(async () => {
  await setEmbed(stack, true);
}, 120_000);

interface CartJson {
  token: string;
  item_count: number;
  attributes: Record<string, string>;
}
const cartOf = async (page: Page) =>
  (await page.evaluate("fetch('/cart.js').then((response) => response.json())")) as CartJson;

/** The cart attribute writes a page makes (`POST /cart/update.js`), with their bodies. */
function cartWrites(page: Page): string[] {
  const writes: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && new URL(request.url()).pathname === "/cart/update.js") {
      writes.push(decodeURIComponent(request.postData() ?? ""));
    }
  });
  return writes;
}

/**
 * The guest's default list's cart attribute (its id and the app's tag for this guest) as the storefront API gives
 * it, asked with the shop's public key (not the page).
 */
async function guestCartAttribute(aid: string): Promise<string | null> {
  const response = await fetch(`${stack.appUrl}/v1/storefront/wishlist?aid=${encodeURIComponent(aid)}`, {
    headers: { "X-Service-Shop": stack.shop.domain, "X-Service-Public-Key": stack.shop.publicKey },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { cartAttribute: string | null }).cartAttribute;
}

const aidOf = (page: Page) => page.evaluate("localStorage.getItem('wishlist:aid')") as Promise<string | null>;

/** A fresh guest saves the sun hat from the grid. */
async function guestSavesHat(): Promise<{ context: BrowserContext; page: Page; writes: string[] }> {
  const { context, page } = await openStorefront(stack, "/collections/all");
  const writes = cartWrites(page);
  await scriptReady(page);
  await cardHeart(page, "Meadow Sun Hat").click();
  await expect.poll(() => pressed(cardHeart(page, "Meadow Sun Hat"))).toBe("true");
  return { context, page, writes };
}

/** The storefront API's read of the shopper's default list, which a page is about to make. */
const nextListRead = (page: Page) =>
  page.waitForResponse((response) => new URL(response.url()).pathname.endsWith("/v1/storefront/wishlist"));

describe("A guest's orders name their list", { timeout: 300_000 }, () => {
  it("writes the guest's list attribute (never the anonymous id) into the cart once per session, and the order carries it", async () => {
    // GIVEN a guest in a region without consent rules, who saves the hat from the grid
    const { context, page, writes } = await guestSavesHat();

    // THEN the cart carries the guest's default list id in the hidden attribute, written once
    const aid = (await aidOf(page))!;
    // The heart shows the save at once; the list exists once the save has arrived.
    const listId = await until(
      () => guestCartAttribute(aid),
      (value) => value !== null,
      "the guest's list made",
    );
    expect(listId).toMatch(/^lst_\w+\.[\w-]{22}$/);
    await expect.poll(async () => (await cartOf(page)).attributes).toEqual({ _wishlist_list: listId });
    expect(writes).toEqual([`attributes[_wishlist_list]=${listId}`]);
    // The merchant sees it on the order (the stand-in's Orders page), below.
    // The anonymous id, the guest's key to their list, is nowhere in the cart.
    expect(JSON.stringify(await cartOf(page))).not.toContain(aid);

    // AND pages after it, a reload, a second save and the wishlist page write nothing more
    await cardHeart(page, "Tidal Swim Shorts").click();
    await expect.poll(() => pressed(cardHeart(page, "Tidal Swim Shorts"))).toBe("true");
    await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
    await page.locator(".wl-list > li").first().waitFor();
    const later = cartWrites(page);
    await page.reload();
    await scriptReady(page);
    await page.locator(".wl-list > li").first().waitFor();
    expect(writes).toHaveLength(1);
    expect(later).toEqual([]);

    // WHEN the guest buys the hat: the order's note_attributes name the list
    await page.goto(`${stack.platform.storefrontOrigin}/products/meadow-sun-hat`);
    const order = await buyFromProductPage(stack, page, {
      cart: "storefront-cart-checkout",
      confirmation: "storefront-order-confirmation",
    });
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Thank you!");
    expect(order).toMatchObject({
      customer: null,
      note_attributes: [{ name: "_wishlist_list", value: listId }],
      line_items: [expect.objectContaining({ product_id: 8100000003, quantity: 1 })],
    });
    expect(JSON.stringify(order)).not.toContain(aid);
    const admin = await context.newPage();
    trackPageErrors(admin);
    await admin.goto(`${stack.platform.origin}/store/${stack.shop.domain.replace(".myshopify.com", "")}/orders`);
    await admin.getByRole("heading", { name: `${order.name} · paid` }).waitFor();
    await admin.getByText(listId!, { exact: true }).waitFor();
    await admin.reload();
    await admin.getByText(listId!, { exact: true }).waitFor();
    await screenshot(admin, "stand-in-orders");

    // AND the app matched the hat to the guest's save: their wishlist page shows it bought, the shorts not
    await page.goto(`${stack.platform.storefrontOrigin}/pages/wishlist`);
    const hat = page.locator(".wl-list > li").filter({ hasText: "Meadow Sun Hat" });
    await hat.getByText("Bought", { exact: true }).waitFor();
    const shorts = page.locator(".wl-list > li").filter({ hasText: "Tidal Swim Shorts" });
    expect(await shorts.getByText("Bought", { exact: true }).count()).toBe(0);

    // AND the next cart (a new one after the checkout) is given the list id again on the next page
    await page.goto(`${stack.platform.storefrontOrigin}/collections/all`);
    await scriptReady(page);
    await expect.poll(async () => (await cartOf(page)).attributes).toEqual({ _wishlist_list: listId });
    expect((await cartOf(page)).token).not.toBe(order.cart_token);
    expectNoPageErrors(page);
    await context.close();
  });

  it("writes nothing for a customer, and blanks what the guest's session wrote once they log in", async () => {
    // GIVEN a guest whose cart carries their list id
    const { context, page } = await guestSavesHat();
    await expect.poll(async () => (await cartOf(page)).attributes._wishlist_list).toMatch(/^lst_/);

    // WHEN they log in as Katherine (the guest list merges into hers) and browse on
    await page.goto(`${stack.platform.storefrontOrigin}/account/login`);
    await page.getByRole("button", { name: /^Katherine Johnson/ }).click();
    await page.waitForURL(`${stack.platform.storefrontOrigin}/`);
    await scriptReady(page);
    await page.goto(`${stack.platform.storefrontOrigin}/collections/all`);
    await scriptReady(page);

    // THEN the attribute is gone: the customer's orders name her, not a list
    await expect.poll(async () => (await cartOf(page)).attributes).toEqual({});

    // AND a customer's saves and pages write nothing into the cart (where a guest's first page wrote)
    const writes = cartWrites(page);
    await cardHeart(page, "Ember Wool Scarf").click();
    await expect.poll(() => pressed(cardHeart(page, "Ember Wool Scarf"))).toBe("true");
    const read = nextListRead(page);
    await page.reload();
    await read;
    await scriptReady(page);
    expect(writes).toEqual([]);
    expect((await cartOf(page)).attributes).toEqual({});
    expectNoPageErrors(page);
    await context.close();
  });

  it("writes nothing where the visitor refused storage, writes once they accept, and blanks it when they refuse again", async () => {
    // GIVEN a guest in a consent region who has not answered yet
    const { context, page } = await openStorefront(stack, "/collections/all");
    await context.addCookies([{ name: "standin_consent", value: "pending", url: stack.platform.storefrontOrigin }]);
    const writes = cartWrites(page);
    await page.reload();
    await scriptReady(page);

    // WHEN they save before answering: the list lives for this page, and the cart gets nothing (the save is
    // followed by the read of the new list, where a guest who allowed storage has its id written)
    const read = nextListRead(page);
    await cardHeart(page, "Granite Chino Pants").click();
    await expect.poll(() => pressed(cardHeart(page, "Granite Chino Pants"))).toBe("true");
    await read;
    expect(writes).toEqual([]);
    expect((await cartOf(page)).attributes).toEqual({});

    // WHEN they accept in the shop's banner: the list id is written at once
    await page.getByRole("region", { name: "Cookie consent" }).getByRole("button", { name: "Accept" }).click();
    await expect.poll(async () => (await cartOf(page)).attributes._wishlist_list).toMatch(/^lst_/);

    // WHEN they withdraw it (the platform's privacy API, as a shop's preferences link calls it): blanked, and
    // nothing of it kept in the browser
    await page.evaluate(
      "new Promise((done) => Shopify.customerPrivacy.setTrackingConsent({ preferences: false, analytics: false, marketing: false, sale_of_data: false }, done))",
    );
    await expect.poll(async () => (await cartOf(page)).attributes).toEqual({});
    expect(await page.evaluate("sessionStorage.getItem('wishlist:list')")).toBeNull();
    expect(writes).toHaveLength(2);
    expect(writes[1]).toBe("attributes[_wishlist_list]=");

    // AND a page in a session that refused writes nothing
    await page.reload();
    await scriptReady(page);
    expect(writes).toHaveLength(2);
    expectNoPageErrors(page);
    await context.close();
  });
});
