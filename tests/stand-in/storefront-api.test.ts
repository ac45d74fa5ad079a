/**
 * The Storefront API of the stand-in's storefront (stand-in/storefront-api.ts), which the headless storefront
 * example reads: the platform's query shapes over the stand-in's catalogue, its cart's checkout link, its customer
 * login, and its refusals.
 */
import { describe, expect, it } from "vitest";
import { applyVariantChange } from "../../stand-in/catalogue";
import { demoShopData } from "../../stand-in/demo-data";
import { createStorefront } from "../../stand-in/online-store";
import { storefrontAccessTokenOf } from "../../stand-in/storefront-api";

const ORIGIN = "http://shop.test";

function storefront() {
  const shop = demoShopData({ domain: "storefront-api.myshopify.com", accessToken: "unused" });
  const { app } = createStorefront({
    appUrl: "http://127.0.0.1:9",
    apiSecret: "unused",
    shop,
    embed: () => ({ enabled: false, settings: {} }),
  });
  const token = storefrontAccessTokenOf(shop);
  const query = async (
    source: string,
    variables: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) => {
    const response = await app.request(`${ORIGIN}/api/2026-07/graphql.json`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-shopify-storefront-access-token": token, ...headers },
      body: JSON.stringify({ query: source, variables }),
    });
    // The answers are read field by field below, as each query shapes them.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const body = (await response.json()) as Record<string, any>;
    return { status: response.status, headers: response.headers, body };
  };
  return { app, shop, token, query };
}

describe("the stand-in's Storefront API: products", () => {
  it("pages through the catalogue with first/after and opaque cursors, prices as MoneyV2", async () => {
    const { query } = storefront();
    const page = `query Page($after: String) {
      products(first: 5, after: $after) {
        nodes { id handle title availableForSale priceRange { minVariantPrice { amount currencyCode } } }
        pageInfo { hasNextPage endCursor }
      }
    }`;
    const first = await query(page);
    expect(first.status).toBe(200);
    expect(first.body.data.products.nodes[0]).toEqual({
      id: "gid://shopify/Product/8100000001",
      handle: "aurora-linen-shirt",
      title: "Aurora Linen Shirt",
      availableForSale: true,
      priceRange: { minVariantPrice: { amount: "29.00", currencyCode: "USD" } },
    });
    const handles: string[] = first.body.data.products.nodes.map((node: { handle: string }) => node.handle);
    let { hasNextPage, endCursor } = first.body.data.products.pageInfo;
    while (hasNextPage) {
      const next = await query(page, { after: endCursor });
      handles.push(...next.body.data.products.nodes.map((node: { handle: string }) => node.handle));
      ({ hasNextPage, endCursor } = next.body.data.products.pageInfo);
    }
    expect(handles).toHaveLength(12);
    expect(new Set(handles).size).toBe(12);
    // The sold-out tote is listed, not for sale.
    const tote = await query(
      `{ product(handle: "pebble-canvas-tote") { availableForSale featuredImage { url width } } }`,
    );
    expect(tote.body.data.product).toEqual({
      availableForSale: false,
      featuredImage: { url: `${ORIGIN}/cdn/shop/files/pebble-canvas-tote.svg`, width: 800 },
    });
  });

  it("reads products and variants by global id (nodes), null for an id the shop does not have, and follows the merchant's changes", async () => {
    const { shop, query } = storefront();
    applyVariantChange(shop, "9100000001", { price: "31.50" });
    const { body } = await query(
      `query($ids: [ID!]!) { nodes(ids: $ids) {
        __typename
        ... on Product { handle variants(first: 5) { nodes { id title availableForSale price { amount } } } }
        ... on ProductVariant { id product { handle } }
      } }`,
      {
        ids: ["gid://shopify/Product/8100000001", "gid://shopify/Product/1", "gid://shopify/ProductVariant/9300000007"],
      },
    );
    expect(body.data.nodes).toEqual([
      {
        __typename: "Product",
        handle: "aurora-linen-shirt",
        variants: {
          nodes: [
            {
              id: "gid://shopify/ProductVariant/9100000001",
              title: "Default Title",
              availableForSale: true,
              price: { amount: "31.50" },
            },
          ],
        },
      },
      null,
      {
        __typename: "ProductVariant",
        id: "gid://shopify/ProductVariant/9300000007",
        product: { handle: "orchard-knit-sweater" },
      },
    ]);
  });

  it("refuses what the platform refuses: an unknown field, a connection without first, a wrong or missing token", async () => {
    const { query, app } = storefront();
    const unknown = await query(`{ products(first: 1) { nodes { inventory } } }`);
    expect(unknown.status).toBe(200);
    expect(unknown.body.errors[0].message).toMatch(/Cannot query field "inventory"/);
    const unbounded = await query(`{ products { nodes { id } } }`);
    expect(unbounded.body.errors[0].message).toBe("you must provide one of first or last");
    const wrong = await query(`{ shop { name } }`, {}, { "x-shopify-storefront-access-token": "not-the-token" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("access-control-allow-origin")).toBe("*");
    const none = await app.request(`${ORIGIN}/api/2026-07/graphql.json`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ shop { name } }" }),
    });
    expect(none.status).toBe(401);
  });

  it("answers a browser's preflight from any origin, with the token header allowed", async () => {
    const { app } = storefront();
    const response = await app.request(`${ORIGIN}/api/2026-07/graphql.json`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, x-shopify-storefront-access-token",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-headers")).toContain("x-shopify-storefront-access-token");
  });
});

describe("the stand-in's Storefront API: carts", () => {
  const cartCreate = `mutation($input: CartInput!) { cartCreate(input: $input) {
    cart { checkoutUrl totalQuantity attributes { key value } cost { totalAmount { amount } }
      lines(first: 10) { nodes { quantity merchandise { ... on ProductVariant { id } } } } }
    userErrors { code field message }
    warnings { code message }
  } }`;

  it("makes a cart whose checkout URL is the storefront's cart permalink with the cart's attributes, and the storefront opens it", async () => {
    const { app, query } = storefront();
    const { body } = await query(cartCreate, {
      input: {
        lines: [
          { merchandiseId: "gid://shopify/ProductVariant/9200000007", quantity: 2 },
          { merchandiseId: "gid://shopify/ProductVariant/9100000001", quantity: 1 },
        ],
        attributes: [{ key: "_wishlist_list", value: "lst_abc.tag" }],
      },
    });
    const { cart } = body.data.cartCreate;
    expect(body.data.cartCreate.userErrors).toEqual([]);
    expect(cart).toMatchObject({
      totalQuantity: 3,
      attributes: [{ key: "_wishlist_list", value: "lst_abc.tag" }],
      cost: { totalAmount: { amount: "2498.00" } },
    });
    const link = new URL(cart.checkoutUrl);
    expect(`${link.origin}${link.pathname}`).toBe(`${ORIGIN}/cart/9200000007:2,9100000001:1`);
    expect(link.searchParams.get("attributes[_wishlist_list]")).toBe("lst_abc.tag");

    // The storefront's permalink fills the browser's cart with the lines and the attribute.
    const opened = await app.request(cart.checkoutUrl);
    expect(opened.status).toBe(303);
    const cookie = opened.headers.get("set-cookie")!.split(";")[0]!;
    const cartJs = (await (await app.request(`${ORIGIN}/cart.js`, { headers: { cookie } })).json()) as {
      attributes: Record<string, string>;
      items: Array<{ variant_id: number; quantity: number }>;
    };
    expect(cartJs.attributes).toEqual({ _wishlist_list: "lst_abc.tag" });
    expect(cartJs.items.map((item) => [item.variant_id, item.quantity])).toEqual([
      [9200000007, 2],
      [9100000001, 1],
    ]);
  });

  it("leaves a sold-out line out with a warning, and makes no cart of an unknown merchandise id or a quantity below 1", async () => {
    const { query } = storefront();
    const soldOut = await query(cartCreate, {
      input: {
        lines: [
          { merchandiseId: "gid://shopify/ProductVariant/9100000008", quantity: 1 },
          { merchandiseId: "gid://shopify/ProductVariant/9100000002", quantity: 1 },
        ],
      },
    });
    expect(soldOut.body.data.cartCreate.cart.checkoutUrl).toBe(`${ORIGIN}/cart/9100000002:1`);
    expect(soldOut.body.data.cartCreate.warnings).toEqual([
      { code: "MERCHANDISE_OUT_OF_STOCK", message: "The product 'Pebble Canvas Tote' is already sold out." },
    ]);
    const unknown = await query(cartCreate, {
      input: {
        lines: [
          { merchandiseId: "gid://shopify/ProductVariant/1", quantity: 1 },
          { merchandiseId: "gid://shopify/ProductVariant/9100000002", quantity: 0 },
        ],
      },
    });
    expect(unknown.body.data.cartCreate).toMatchObject({
      cart: null,
      userErrors: [
        { code: "INVALID", field: ["input", "lines", "0", "merchandiseId"] },
        { code: "LESS_THAN", field: ["input", "lines", "1", "quantity"] },
      ],
    });
  });
});

describe("the stand-in's Storefront API: customer login", () => {
  it("issues a customer access token for a known email and names the customer by it; refuses an unknown email or a blank password", async () => {
    const { query } = storefront();
    const logIn = `mutation($input: CustomerAccessTokenCreateInput!) { customerAccessTokenCreate(input: $input) {
      customerAccessToken { accessToken expiresAt } customerUserErrors { code field message } } }`;
    const created = await query(logIn, { input: { email: "Grace@Example.com", password: "anything" } });
    const { accessToken, expiresAt } = created.body.data.customerAccessTokenCreate.customerAccessToken;
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
    const customer = await query(
      `query($token: String!) { customer(customerAccessToken: $token) { id email firstName lastName displayName } }`,
      {
        token: accessToken,
      },
    );
    expect(customer.body.data.customer).toEqual({
      id: "gid://shopify/Customer/7002",
      email: "grace@example.com",
      firstName: "Grace",
      lastName: "Hopper",
      displayName: "Grace Hopper",
    });
    const stranger = await query(`{ customer(customerAccessToken: "made-up") { id } }`);
    expect(stranger.body.data.customer).toBeNull();

    const unknown = await query(logIn, { input: { email: "nobody@example.com", password: "x" } });
    expect(unknown.body.data.customerAccessTokenCreate).toEqual({
      customerAccessToken: null,
      customerUserErrors: [{ code: "UNIDENTIFIED_CUSTOMER", field: null, message: "Unidentified customer" }],
    });
    const blank = await query(logIn, { input: { email: "grace@example.com", password: "" } });
    expect(blank.body.data.customerAccessTokenCreate.customerUserErrors[0].code).toBe("BLANK");
  });
});
