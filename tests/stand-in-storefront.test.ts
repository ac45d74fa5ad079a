import { describe, expect, it } from "vitest";
import { demoShopData } from "../stand-in/demo-data";
import { createStorefront } from "../stand-in/storefront";

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
