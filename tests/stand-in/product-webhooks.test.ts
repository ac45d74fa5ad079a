/**
 * The merchant changes a product in the stand-in's admin (or a test calls `updateVariant`): the catalogue
 * changes for the Admin API and the storefront, and the app is sent `products/update` (and
 * `inventory_levels/update` for a stock change) in the platform's REST format, signed with the app's secret
 * as the platform signs them. The app's receivers are not the subject here: a receiver in this file checks
 * the signature and keeps what arrived.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { demoShopData } from "../../stand-in/demo-data";
import { startPlatformStandIn, type PlatformStandIn } from "../../stand-in/platform";

const SECRET = "stand-in-webhook-secret";
const DOMAIN = "webhook-shop.myshopify.com";
const API_VERSION = "2026-07";

interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  verified: boolean;
}

let received: Received[] = [];
let answer = 200;
let receiver: Server;
let platform: PlatformStandIn;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks);
      const expected = createHmac("sha256", SECRET).update(raw).digest();
      const given = Buffer.from(String(request.headers["x-shopify-hmac-sha256"] ?? ""), "base64");
      received.push({
        path: request.url ?? "",
        headers: request.headers,
        body: JSON.parse(raw.toString("utf8")) as Record<string, unknown>,
        verified: given.length === expected.length && timingSafeEqual(given, expected),
      });
      response.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  platform = await startPlatformStandIn({
    appUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    apiKey: "key",
    apiSecret: SECRET,
    appHandle: "wishlist-test",
    scopes: "read_products",
    apiVersion: API_VERSION,
    shops: [demoShopData({ domain: DOMAIN, accessToken: "shpat_webhooks" })],
  });
});
afterAll(async () => {
  await platform.close();
  await new Promise((resolve) => receiver.close(resolve));
});
beforeEach(() => {
  received = [];
  answer = 200;
});

const storefrontPage = async (path: string) => (await fetch(`${platform.storefrontOrigin}${path}`)).text();
/** A product's card on the storefront's catalogue page. */
const card = async (title: string) =>
  new RegExp(`${title}</a></h2>\\s*<p class="card__price">(.*?)</p>`).exec(
    await storefrontPage("/collections/all"),
  )?.[1];

describe("a change to a product in the stand-in's admin", () => {
  it("sends products/update, signed, with the product and its variants as they now are", async () => {
    // GIVEN the coat (one variant, 36.00, on sale from 48.00, 12 in stock)
    // WHEN the merchant lowers its price
    const sent = await platform.updateVariant(DOMAIN, "9100000002", { price: "29.9" });

    // THEN the app was sent products/update only, and answered 200
    expect(sent.map(({ topic, status }) => ({ topic, status }))).toEqual([{ topic: "products/update", status: 200 }]);
    expect(received).toHaveLength(1);
    const [update] = received;
    expect(update!.path).toBe("/webhooks/products/update");
    expect(update!.verified).toBe(true);
    expect(update!.headers).toMatchObject({
      "content-type": "application/json",
      "x-shopify-topic": "products/update",
      "x-shopify-shop-domain": DOMAIN,
      "x-shopify-api-version": API_VERSION,
      "x-shopify-webhook-id": sent[0]!.webhookId,
      "x-shopify-triggered-at": expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const imageUrl = `${platform.origin}/cdn/shop/files/harbor-wool-coat.svg`;
    expect(update!.body).toMatchObject({
      id: 8100000002,
      admin_graphql_api_id: "gid://shopify/Product/8100000002",
      title: "Harbor Wool Coat",
      handle: "harbor-wool-coat",
      status: "active",
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
      variants: [
        {
          id: 9100000002,
          product_id: 8100000002,
          admin_graphql_api_id: "gid://shopify/ProductVariant/9100000002",
          title: "Default Title",
          price: "29.90",
          compare_at_price: "48.00",
          inventory_quantity: 12,
          old_inventory_quantity: 12,
          inventory_item_id: 4100000002,
          position: 1,
          inventory_policy: "deny",
          option1: "Default Title",
          updated_at: expect.any(String),
          created_at: expect.any(String),
          barcode: null,
          sku: null,
          taxable: true,
          option2: null,
          option3: null,
          image_id: null,
        },
      ],
      image: { id: 8100000002, product_id: 8100000002, src: imageUrl, position: 1, width: 800, height: 800 },
      images: [expect.objectContaining({ src: imageUrl })],
      media: [
        expect.objectContaining({
          media_content_type: "IMAGE",
          preview_image: expect.objectContaining({ src: imageUrl }),
        }),
      ],
      variant_gids: [
        { admin_graphql_api_id: "gid://shopify/ProductVariant/9100000002", updated_at: expect.any(String) },
      ],
    });
    // AND the storefront shows the new price beside the old one, on the product page and its card
    expect(await card("Harbor Wool Coat")).toBe(`<s class="price__compare">$48.00</s> $29.90`);
    expect(await storefrontPage("/products/harbor-wool-coat")).toContain(
      `<p class="product__price"><s class="price__compare">$48.00</s> $29.90</p>`,
    );
    const json = (await (await fetch(`${platform.storefrontOrigin}/products/harbor-wool-coat.js`)).json()) as {
      variants: Array<{ price: number; compare_at_price: number }>;
    };
    expect(json.variants[0]).toMatchObject({ price: 2990, compare_at_price: 4800 });
  });

  it("sends inventory_levels/update too for a stock change, and the storefront sells out and restocks", async () => {
    // WHEN the merchant sells out the sweater's Medium
    const soldOut = await platform.updateVariant(DOMAIN, "9200000007", { inventoryQuantity: 0 });

    // THEN both topics were sent, verified, the level naming the variant's inventory item at the one location
    expect(soldOut.map(({ topic, status }) => ({ topic, status }))).toEqual([
      { topic: "products/update", status: 200 },
      { topic: "inventory_levels/update", status: 200 },
    ]);
    expect(received.map((request) => [request.path, request.verified])).toEqual([
      ["/webhooks/products/update", true],
      ["/webhooks/inventory_levels/update", true],
    ]);
    const [product, level] = received;
    expect(level!.headers["x-shopify-topic"]).toBe("inventory_levels/update");
    expect(level!.body).toEqual({
      inventory_item_id: 4200000007,
      location_id: 6100000001,
      available: 0,
      updated_at: product!.body.updated_at,
      admin_graphql_api_id: "gid://shopify/InventoryLevel/6100000001?inventory_item_id=4200000007",
    });
    expect(product!.body.variants).toEqual([
      expect.objectContaining({ id: 9100000007, inventory_quantity: 14, old_inventory_quantity: 14 }),
      expect.objectContaining({ id: 9200000007, inventory_quantity: 0, old_inventory_quantity: 22 }),
      expect.objectContaining({ id: 9300000007, inventory_quantity: 0 }),
    ]);
    const medium = /<option value="9200000007"[^>]*>[^<]*<\/option>/.exec(
      await storefrontPage("/products/orchard-knit-sweater"),
    );
    expect(medium![0]).toContain("disabled");
    expect(medium![0]).toContain("(sold out)");

    // WHEN the merchant restocks the tote (sold out in the demo catalogue)
    received = [];
    expect(await storefrontPage("/products/orchard-knit-sweater")).not.toContain("data-sold-out");
    expect(await storefrontPage("/products/pebble-canvas-tote")).toContain("data-sold-out");
    expect(await card("Pebble Canvas Tote")).toContain("Sold out");
    const restocked = await platform.updateVariant(DOMAIN, "9100000008", { inventoryQuantity: 20 });
    expect(restocked.map(({ status }) => status)).toEqual([200, 200]);
    expect(received[1]!.body).toMatchObject({ inventory_item_id: 4100000008, available: 20 });
    // THEN the storefront sells it again
    expect(await storefrontPage("/products/pebble-canvas-tote")).not.toContain("data-sold-out");
    expect(await card("Pebble Canvas Tote")).toBe("$78.00");
    const cart = await fetch(`${platform.storefrontOrigin}/cart/add.js`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ items: [{ id: 9100000008, quantity: 1 }] }),
    });
    expect(cart.status).toBe(200);
  });

  it("takes the product page's forms: a price, a compare-at price, a stock, Sell out and Restock, and lists what it sent", async () => {
    const page = `${platform.origin}/store/webhook-shop/products/8100000009`;
    const post = (fields: Record<string, string>) =>
      fetch(`${page}/variants/9100000009`, { method: "POST", body: new URLSearchParams(fields), redirect: "manual" });

    // GIVEN the scarf's page (3 left) with its forms and one-click buttons
    const before = await (await fetch(page)).text();
    expect(before).toContain('name="price" value="85.00"');
    expect(before).toContain('name="inventoryQuantity" value="3"');
    expect(before).toContain('aria-label="Sell out Default Title"');
    expect(before).toContain('aria-label="Restock Default Title"');

    // WHEN the merchant clicks Sell out, then Restock, then sets a compare-at price
    answer = 202;
    for (const fields of [{ inventoryQuantity: "0" }, { inventoryQuantity: "20" }, { compareAtPrice: "70" }] as Array<
      Record<string, string>
    >) {
      const response = await post(fields);
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe("/store/webhook-shop/products/8100000009");
    }

    // THEN five webhooks went out, all verified, the stock ones naming 0 then 20
    expect(received.map((request) => `${request.headers["x-shopify-topic"]} ${request.verified}`)).toEqual([
      "products/update true",
      "inventory_levels/update true",
      "products/update true",
      "inventory_levels/update true",
      "products/update true",
    ]);
    expect(received.filter((r) => r.path.endsWith("inventory_levels/update")).map((r) => r.body.available)).toEqual([
      0, 20,
    ]);
    expect(received[4]!.body.variants).toEqual([
      expect.objectContaining({ compare_at_price: "70.00", inventory_quantity: 20 }),
    ]);
    // AND the page lists them with the app's answer, newest first
    const after = await (await fetch(page)).text();
    const listed = [...after.matchAll(/<code>([a-z_/]+)<\/code><\/td>\s*<td class="status-ok">(\d+)/g)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    expect(listed).toEqual([
      "products/update 202",
      "inventory_levels/update 202",
      "products/update 202",
      "inventory_levels/update 202",
      "products/update 202",
    ]);
    expect(after).toContain('name="compareAtPrice" value="70.00"');

    // A value the admin refuses changes nothing and sends nothing.
    received = [];
    const refused = await post({ price: "cheap" });
    expect(refused.status).toBe(303);
    expect(decodeURIComponent(refused.headers.get("location")!)).toContain("The price must be an amount");
    await expect(platform.updateVariant(DOMAIN, "9100000009", { inventoryQuantity: 1.5 })).rejects.toThrow(
      "whole number",
    );
    await expect(platform.updateVariant(DOMAIN, "1234", { price: "1.00" })).rejects.toThrow("No variant 1234");
    expect(received).toEqual([]);
    expect(await (await fetch(page)).text()).toContain('name="price" value="85.00"');
  });

  it("records the app's answer, and an app that cannot be reached as status 0", async () => {
    answer = 404; // the app without a receiver for the topic
    const notFound = await platform.updateVariant(DOMAIN, "9100000003", { price: "40.00" });
    expect(notFound.map(({ status }) => status)).toEqual([404]);

    const closed = await startPlatformStandIn({
      appUrl: "http://127.0.0.1:9",
      apiKey: "key",
      apiSecret: SECRET,
      appHandle: "wishlist-test",
      scopes: "read_products",
      shops: [demoShopData({ domain: DOMAIN, accessToken: "shpat_webhooks" })],
    });
    try {
      const unreachable = await closed.updateVariant(DOMAIN, "9100000003", { inventoryQuantity: 2 });
      expect(unreachable.map(({ topic, status }) => ({ topic, status }))).toEqual([
        { topic: "products/update", status: 0 },
        { topic: "inventory_levels/update", status: 0 },
      ]);
      expect(unreachable[0]!.error).toBeTruthy();
      expect(closed.sentWebhooks).toHaveLength(2);
    } finally {
      await closed.close();
    }
  });

  it("still sends products/delete signed, and the product leaves the catalogue", async () => {
    const status = await platform.deleteProduct(DOMAIN, "8100000012");
    expect(status).toBe(200);
    expect(received).toEqual([
      expect.objectContaining({ path: "/webhooks/products/delete", body: { id: 8100000012 }, verified: true }),
    ]);
    expect((await fetch(`${platform.storefrontOrigin}/products/lagoon-sunglasses`)).status).toBe(404);
  });
});
