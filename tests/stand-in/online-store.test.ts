import { describe, expect, it } from "vitest";
import { demoShopData } from "../../stand-in/demo-data";
import { createStorefront } from "../../stand-in/online-store";

// The local storefront renders the extension's Liquid as the platform does: what the blocks print into the
// settings JSON cannot end its <script> element, whatever a product is called.
describe("the storefront stand-in's Liquid", () => {
  it("prints a product title that tries to close the settings script as JSON text, not markup", async () => {
    const shop = demoShopData({ domain: "escape-test.myshopify.com", accessToken: "unused" });
    const title = 'Boots </script><script>alert("x")</script> & "more"';
    shop.products[0] = { ...shop.products[0]!, title };
    const { app } = createStorefront({
      appUrl: "http://127.0.0.1:9",
      apiSecret: "unused",
      shop,
      embed: () => ({ enabled: true, settings: {} }),
    });
    const response = await app.request(`/products/${shop.products[0]!.handle}`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).not.toContain('<script>alert("x")</script>');
    const settings = /<script type="application\/json" id="wishlist-settings">([\s\S]*?)<\/script>/.exec(html)?.[1];
    expect(JSON.parse(settings!).product.title).toBe(title);
    // The button block's attributes escape it too.
    expect(html).toContain(
      `data-title="Boots &lt;/script&gt;&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#34;more&#34;"`,
    );
  });
});

// The wishlist page reads each product from /products/<handle>.js: the stand-in answers as the platform's
// Ajax API does, or the page would be tested against a format no shop serves.
describe("the storefront stand-in's product JSON", () => {
  it("answers /products/<handle>.js in the platform's format: cents, variants with availability, protocol-relative images", async () => {
    const shop = demoShopData({ domain: "json-test.myshopify.com", accessToken: "unused" });
    const { app } = createStorefront({
      appUrl: "http://127.0.0.1:9",
      apiSecret: "unused",
      shop,
      embed: () => ({ enabled: true, settings: {} }),
    });
    const response = await app.request("http://shop.test/products/orchard-knit-sweater.js");
    expect(response.status).toBe(200);
    const product = (await response.json()) as Record<string, unknown>;
    expect(product).toMatchObject({
      id: 8100000007,
      handle: "orchard-knit-sweater",
      title: "Orchard Knit Sweater",
      price: 7100,
      price_max: 123450,
      available: true,
      featured_image: "//shop.test/cdn/shop/files/orchard-knit-sweater.svg",
      images: ["//shop.test/cdn/shop/files/orchard-knit-sweater.svg"],
    });
    expect(product.variants).toEqual([
      expect.objectContaining({ id: 9100000007, title: "Small", price: 7100, available: true }),
      expect.objectContaining({ id: 9200000007, title: "Medium", price: 123450, available: true }),
      expect.objectContaining({ id: 9300000007, title: "Large", price: 7100, available: false }),
    ]);
    const image = await app.request("http://shop.test/cdn/shop/files/orchard-knit-sweater.svg");
    expect(image.headers.get("content-type")).toBe("image/svg+xml");
    expect((await app.request("/products/no-such-product.js")).status).toBe(404);

    // The product page shows the price of the variant its link names (the wishlist page links to it), and
    // each option carries its own for the picker: the same price as the wishlist page shows.
    const medium = await (await app.request("/products/orchard-knit-sweater?variant=9200000007")).text();
    expect(/class="product__price">([^<]*)</.exec(medium)?.[1]).toBe("$1234.50");
    expect(medium).toMatch(/<option value="9200000007" data-price="1234\.50" selected>/);
    const first = await (await app.request("/products/orchard-knit-sweater")).text();
    expect(/class="product__price">([^<]*)</.exec(first)?.[1]).toBe("$71.00");

    // The page block gets the shop's money format from Liquid's shop.money_format.
    shop.moneyFormat = "{{amount_with_comma_separator}} €";
    const html = await (await app.request("/pages/wishlist")).text();
    const settings = /<script type="application\/json" data-wishlist-page-settings>([\s\S]*?)<\/script>/.exec(html);
    expect(JSON.parse(settings![1]!).moneyFormat).toBe("{{amount_with_comma_separator}} €");
  });
});

// The wishlist page adds to the cart through the Ajax Cart API, and the customer account page links to cart
// permalinks: the stand-in answers both as the platform does (all or nothing, 422 for a sold-out variant).
describe("the storefront stand-in's cart", () => {
  it("adds lines all or nothing, keeps one cart per browser, and follows cart permalinks", async () => {
    const shop = demoShopData({ domain: "cart-test.myshopify.com", accessToken: "unused" });
    const { app } = createStorefront({
      appUrl: "http://127.0.0.1:9",
      apiSecret: "unused",
      shop,
      embed: () => ({ enabled: true, settings: {} }),
    });
    const add = (body: unknown, cookie = "") =>
      app.request("/cart/add.js", {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(cookie ? { Cookie: cookie } : {}) },
        body: JSON.stringify(body),
      });
    const first = await add({ items: [{ id: 9100000007, quantity: 2 }] });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ items: [{ variant_id: 9100000007, quantity: 2, price: 7100 }] });
    const cookie = /cart=[^;]+/.exec(first.headers.get("set-cookie") ?? "")![0];
    // A sold-out variant refuses the whole request: nothing of it is added
    const soldOut = await add(
      {
        items: [
          { id: 9100000001, quantity: 1 },
          { id: 9100000008, quantity: 1 },
        ],
      },
      cookie,
    );
    expect(soldOut.status).toBe(422);
    expect(await soldOut.json()).toEqual({
      status: 422,
      message: "Cart Error",
      description: "The product 'Pebble Canvas Tote' is already sold out.",
    });
    expect((await add({ items: [{ id: 1, quantity: 1 }] }, cookie)).status).toBe(404);
    expect((await add({ items: [{ id: 9100000001, quantity: 0 }] }, cookie)).status).toBe(422);
    const cart = async () =>
      (await (await app.request("/cart.js", { headers: { Cookie: cookie } })).json()) as {
        item_count: number;
        items: Array<{ variant_id: number; quantity: number }>;
      };
    expect(await cart()).toMatchObject({ item_count: 2, items: [{ variant_id: 9100000007, quantity: 2 }] });
    // A permalink adds its lines to the cart and shows it
    const permalink = await app.request("/cart/9100000007:1,9100000001:3", { headers: { Cookie: cookie } });
    expect(permalink.status).toBe(303);
    expect(permalink.headers.get("location")).toBe("/cart");
    expect((await cart()).items).toEqual([
      expect.objectContaining({ variant_id: 9100000007, quantity: 3 }),
      expect.objectContaining({ variant_id: 9100000001, quantity: 3 }),
    ]);
    expect((await app.request("/cart/9100000008:1", { headers: { Cookie: cookie } })).status).toBe(422);
    // Another browser has a cart of its own
    expect((await (await app.request("/cart.js")).json()).item_count).toBe(0);
  });
});

// The storefront script writes the guest's list id into a hidden cart attribute with `/cart/update.js`; the
// checkout copies the cart's attributes to the order's `note_attributes`. The stand-in keeps them as the
// platform's Ajax Cart API does.
describe("the storefront stand-in's cart attributes", () => {
  it("sets attributes from JSON or a form, shows them in /cart.js, removes a blank one, and keeps them when the cart is cleared", async () => {
    const shop = demoShopData({ domain: "attributes-test.myshopify.com", accessToken: "unused" });
    const { app } = createStorefront({
      appUrl: "http://127.0.0.1:9",
      apiSecret: "unused",
      shop,
      embed: () => ({ enabled: true, settings: {} }),
    });
    const first = await app.request("/cart/update.js", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ attributes: { _wishlist_list: "lst_01abc", gift: "yes", count: 3 } }),
    });
    expect(first.status).toBe(200);
    // The first update makes the browser's cart, as on the platform.
    const cookie = /cart=[^;]+/.exec(first.headers.get("set-cookie") ?? "")![0];
    expect(await first.json()).toMatchObject({
      attributes: { _wishlist_list: "lst_01abc", gift: "yes", count: "3" },
      item_count: 0,
    });
    const cart = async () =>
      (await (await app.request("/cart.js", { headers: { Cookie: cookie } })).json()) as {
        attributes: Record<string, string>;
      };

    // A form names them `attributes[<name>]`; a blank value removes one, and null does too.
    const form = await app.request("/cart/update.js", {
      method: "POST",
      headers: { Cookie: cookie },
      body: new URLSearchParams({ "attributes[gift]": "", "attributes[wrap]": "paper", note: "ignored" }),
    });
    expect(form.status).toBe(200);
    expect((await cart()).attributes).toEqual({ _wishlist_list: "lst_01abc", count: "3", wrap: "paper" });
    await app.request("/cart/update.js", {
      method: "POST",
      headers: { "Content-Type": "application/json", Cookie: cookie },
      body: JSON.stringify({ attributes: { count: null, _wishlist_list: "lst_02def" } }),
    });
    expect((await cart()).attributes).toEqual({ _wishlist_list: "lst_02def", wrap: "paper" });

    // Clearing the cart empties its lines, not its attributes.
    await app.request("/cart/add.js", {
      method: "POST",
      headers: { "Content-Type": "application/json", Cookie: cookie },
      body: JSON.stringify({ items: [{ id: 9100000001, quantity: 1 }] }),
    });
    await app.request("/cart/clear.js", { method: "POST", headers: { Cookie: cookie } });
    expect(await cart()).toMatchObject({ item_count: 0, attributes: { _wishlist_list: "lst_02def", wrap: "paper" } });

    // Attributes that are not an object are refused; another browser's cart has none.
    const refused = await app.request("/cart/update.js", {
      method: "POST",
      headers: { "Content-Type": "application/json", Cookie: cookie },
      body: JSON.stringify({ attributes: ["_wishlist_list", "lst_x"] }),
    });
    expect(refused.status).toBe(400);
    expect((await (await app.request("/cart.js")).json()).attributes).toEqual({});
  });
});
