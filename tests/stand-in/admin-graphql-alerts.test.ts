/**
 * The Admin API queries the wishlist alerts send (issue 29), answered by the stand-in from its catalogue and
 * customers: prices, compare-at prices, stock and availability per variant, each variant's inventory item
 * and the way back from it, the product's image (a real one the stand-in serves), customers' languages and
 * email marketing consent, and `flowTriggerReceive` with the platform's rules. The documents are checked
 * against the platform's schema too, so these are queries the platform answers.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { buildClientSchema, parse, validate } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHOPIFY_API_VERSION } from "~/shopify-api-version";
import { demoShopData } from "../../stand-in/demo-data";
import { startPlatformStandIn, type PlatformStandIn } from "../../stand-in/platform";

const PRODUCT_STATES = /* GraphQL */ `
  query WishlistProductStates($ids: [ID!]!) {
    shop {
      currencyCode
    }
    nodes(ids: $ids) {
      ... on Product {
        id
        title
        handle
        status
        featuredMedia {
          preview {
            image {
              url
            }
          }
        }
        variants(first: 100) {
          nodes {
            id
            title
            price
            compareAtPrice
            availableForSale
            inventoryQuantity
            inventoryItem {
              id
            }
          }
        }
      }
    }
  }
`;
const INVENTORY_ITEMS = /* GraphQL */ `
  query WishlistInventoryItems($ids: [ID!]!) {
    nodes(ids: $ids) {
      ... on InventoryItem {
        id
        variant {
          id
          product {
            id
          }
        }
      }
    }
  }
`;
const RECIPIENTS = /* GraphQL */ `
  query WishlistAlertRecipients($ids: [ID!]!) {
    nodes(ids: $ids) {
      ... on Customer {
        id
        firstName
        locale
        defaultEmailAddress {
          emailAddress
          marketingState
        }
      }
    }
  }
`;
const FLOW_TRIGGER = /* GraphQL */ `
  mutation WishlistFlowTrigger($handle: String, $payload: JSON) {
    flowTriggerReceive(handle: $handle, payload: $payload) {
      userErrors {
        field
        message
      }
    }
  }
`;

const DOMAIN = "alerts-graphql.myshopify.com";
const TOKEN = "shpat_alerts_graphql";
let platform: PlatformStandIn;

beforeAll(async () => {
  platform = await startPlatformStandIn({
    appUrl: "http://127.0.0.1:9",
    apiKey: "key",
    apiSecret: "secret",
    appHandle: "wishlist-test",
    scopes: "read_products,read_customers",
    shops: [demoShopData({ domain: DOMAIN, accessToken: TOKEN })],
  });
});
afterAll(() => platform.close());

async function admin(query: string, variables: Record<string, unknown>) {
  const response = await fetch(`${platform.origin}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-access-token": TOKEN },
    body: JSON.stringify({ query, variables }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data?: Record<string, unknown>; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data!;
}

describe("the stand-in's Admin API for the alerts", () => {
  it("sends documents the platform's schema accepts", () => {
    const root = path.resolve(import.meta.dirname, "../..");
    const schema = buildClientSchema(
      JSON.parse(readFileSync(path.join(root, `app/types/admin-${SHOPIFY_API_VERSION}.schema.json`), "utf8")),
    );
    for (const document of [PRODUCT_STATES, INVENTORY_ITEMS, RECIPIENTS, FLOW_TRIGGER]) {
      expect(validate(schema, parse(document)).map((error) => error.message)).toEqual([]);
    }
  });

  it("answers each product's variants with prices, compare-at prices, stock, availability, inventory items and an image", async () => {
    const data = await admin(PRODUCT_STATES, {
      ids: [
        "gid://shopify/Product/8100000002", // the coat, on sale
        "gid://shopify/Product/8100000007", // the sweater, its Large sold out
        "gid://shopify/Product/8100000008", // the tote, sold out
        "gid://shopify/Product/8100000009", // the scarf, 3 left
        "gid://shopify/Product/1", // none such
      ],
    });
    expect(data.shop).toEqual({ currencyCode: "USD" });
    const [coat, sweater, tote, scarf, missing] = data.nodes as Array<Record<string, unknown> | null>;
    expect(missing).toBeNull();
    expect(coat).toEqual({
      id: "gid://shopify/Product/8100000002",
      title: "Harbor Wool Coat",
      handle: "harbor-wool-coat",
      status: "ACTIVE",
      featuredMedia: { preview: { image: { url: `${platform.origin}/cdn/shop/files/harbor-wool-coat.svg` } } },
      variants: {
        nodes: [
          {
            id: "gid://shopify/ProductVariant/9100000002",
            title: "Default Title",
            price: "36.00",
            compareAtPrice: "48.00",
            availableForSale: true,
            inventoryQuantity: 12,
            inventoryItem: { id: "gid://shopify/InventoryItem/4100000002" },
          },
        ],
      },
    });
    const variants = (product: Record<string, unknown> | null | undefined) =>
      (product!.variants as { nodes: Array<Record<string, unknown>> }).nodes;
    expect(variants(sweater)).toEqual([
      expect.objectContaining({ title: "Small", price: "71.00", compareAtPrice: null, availableForSale: true }),
      expect.objectContaining({ title: "Medium", price: "1234.50", availableForSale: true, inventoryQuantity: 22 }),
      expect.objectContaining({
        id: "gid://shopify/ProductVariant/9300000007",
        title: "Large",
        availableForSale: false,
        inventoryQuantity: 0,
        inventoryItem: { id: "gid://shopify/InventoryItem/4300000007" },
      }),
    ]);
    expect(variants(tote)).toEqual([
      expect.objectContaining({ price: "78.00", availableForSale: false, inventoryQuantity: 0 }),
    ]);
    expect(variants(scarf)).toEqual([expect.objectContaining({ availableForSale: true, inventoryQuantity: 3 })]);

    // The image URL is a real image on the stand-in's origin.
    const image = await fetch((coat!.featuredMedia as { preview: { image: { url: string } } }).preview.image.url);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/svg+xml");
    expect(await image.text()).toContain('fill="#4a5b6c"');
  });

  it("answers a change the merchant made: price, compare-at price and stock follow the catalogue", async () => {
    await platform.updateVariant(DOMAIN, "9100000008", { inventoryQuantity: 20 });
    await platform.updateVariant(DOMAIN, "9100000001", { price: "25", compareAtPrice: "33.5" });
    const data = await admin(PRODUCT_STATES, {
      ids: ["gid://shopify/Product/8100000008", "gid://shopify/Product/8100000001"],
    });
    const [tote, shirt] = data.nodes as Array<{ variants: { nodes: Array<Record<string, unknown>> } }>;
    expect(tote!.variants.nodes[0]).toMatchObject({ availableForSale: true, inventoryQuantity: 20 });
    expect(shirt!.variants.nodes[0]).toMatchObject({ price: "25.00", compareAtPrice: "33.50" });
    await platform.updateVariant(DOMAIN, "9100000001", { compareAtPrice: null });
    const after = await admin(PRODUCT_STATES, { ids: ["gid://shopify/Product/8100000001"] });
    const [shirtAfter] = after.nodes as Array<{ variants: { nodes: Array<Record<string, unknown>> } }>;
    expect(shirtAfter!.variants.nodes[0]).toMatchObject({ price: "25.00", compareAtPrice: null });
  });

  it("finds the variant and product of an inventory item", async () => {
    const data = await admin(INVENTORY_ITEMS, {
      ids: [
        "gid://shopify/InventoryItem/4200000007",
        "gid://shopify/InventoryItem/4100000005",
        "gid://shopify/InventoryItem/9",
      ],
    });
    expect(data.nodes).toEqual([
      {
        id: "gid://shopify/InventoryItem/4200000007",
        variant: { id: "gid://shopify/ProductVariant/9200000007", product: { id: "gid://shopify/Product/8100000007" } },
      },
      {
        id: "gid://shopify/InventoryItem/4100000005",
        variant: { id: "gid://shopify/ProductVariant/9100000005", product: { id: "gid://shopify/Product/8100000005" } },
      },
      null,
    ]);
  });

  it("answers customers' languages and email marketing consent", async () => {
    const data = await admin(RECIPIENTS, {
      ids: ["7001", "7002", "7003", "7004", "7005", "9999"].map((id) => `gid://shopify/Customer/${id}`),
    });
    expect(data.nodes).toEqual([
      {
        id: "gid://shopify/Customer/7001",
        firstName: "Ada",
        locale: "en",
        defaultEmailAddress: { emailAddress: "ada@example.com", marketingState: "SUBSCRIBED" },
      },
      {
        id: "gid://shopify/Customer/7002",
        firstName: "Grace",
        locale: "fr",
        defaultEmailAddress: { emailAddress: "grace@example.com", marketingState: "SUBSCRIBED" },
      },
      {
        id: "gid://shopify/Customer/7003",
        firstName: "Alan",
        locale: "de",
        defaultEmailAddress: { emailAddress: "alan@example.com", marketingState: "SUBSCRIBED" },
      },
      {
        id: "gid://shopify/Customer/7004",
        firstName: "Katherine",
        locale: "en",
        defaultEmailAddress: { emailAddress: "katherine@example.com", marketingState: "NOT_SUBSCRIBED" },
      },
      {
        id: "gid://shopify/Customer/7005",
        firstName: "Edsger",
        locale: "en",
        defaultEmailAddress: { emailAddress: "edsger@example.com", marketingState: "UNSUBSCRIBED" },
      },
      null,
    ]);
  });

  it("answers customers added and removed after an earlier query, as a shop's customers change", async () => {
    const ids = (...numbers: string[]) => numbers.map((id) => `gid://shopify/Customer/${id}`);
    const emails = async (...numbers: string[]) =>
      (
        (await admin(RECIPIENTS, { ids: ids(...numbers) })).nodes as Array<{
          defaultEmailAddress: { emailAddress: string };
        } | null>
      ).map((node) => node?.defaultEmailAddress.emailAddress ?? null);
    const { customers } = platform.shops[0]!;
    expect(await emails("7001", "7100")).toEqual(["ada@example.com", null]);
    customers.push({ id: "7100", email: "barbara@example.com", firstName: "Barbara", lastName: "Liskov" });
    expect(await emails("7100", "7001")).toEqual(["barbara@example.com", "ada@example.com"]);
    customers.splice(0, 1); // Ada leaves; everyone after her moves up one place
    expect(await emails("7001", "7100", "7002")).toEqual([null, "barbara@example.com", "grace@example.com"]);
  });

  it("records the Flow triggers it accepts and refuses what the platform refuses, with its messages", async () => {
    const trigger = async (variables: Record<string, unknown>) =>
      ((await admin(FLOW_TRIGGER, variables)).flowTriggerReceive as { userErrors: unknown[] }).userErrors;
    const payload = {
      "Customer ID": "gid://shopify/Customer/7001",
      "Product ID": "gid://shopify/Product/8100000008",
      "Old price": 78,
    };
    expect(await trigger({ handle: "wishlist-back-in-stock", payload })).toEqual([]);
    // Exactly 50,000 bytes of JSON passes; one byte more does not.
    const atLimit = { value: "x".repeat(49_988) };
    expect(JSON.stringify(atLimit).length).toBe(50_000);
    expect(await trigger({ handle: "wishlist-low-stock", payload: atLimit })).toEqual([]);
    expect(await trigger({ handle: "wishlist-low-stock", payload: { value: "x".repeat(49_989) } })).toEqual([
      { field: ["body"], message: "Errors validating schema:\n  Properties size exceeds the limit of 50000 bytes.\n" },
    ]);
    expect(await trigger({ handle: "wishlist-low-stock", payload: [1, 2] })).toEqual([
      {
        field: ["body"],
        message: "Errors validating schema:\n  Type error for field 'properties': [1,2] is not an Object.\n",
      },
    ]);
    expect(await trigger({ handle: "wishlist-low-stock", payload: "text" })).toEqual([
      {
        field: ["body"],
        message: "Errors validating schema:\n  Type error for field 'properties': text is not an Object.\n",
      },
    ]);
    expect(await trigger({ payload })).toEqual([
      { field: ["handle"], message: "`handle` and `payload` arguments are required" },
    ]);
    expect(await trigger({ handle: "wishlist-price-dropped" })).toEqual([
      { field: ["handle"], message: "`handle` and `payload` arguments are required" },
    ]);
    expect(platform.flowTriggers).toEqual([
      { shopDomain: DOMAIN, handle: "wishlist-back-in-stock", payload, at: expect.any(Number) },
      { shopDomain: DOMAIN, handle: "wishlist-low-stock", payload: atLimit, at: expect.any(Number) },
    ]);
    // The stand-in's admin lists them.
    const page = await (await fetch(`${platform.origin}/store/alerts-graphql/flow`)).text();
    expect(page).toContain("wishlist-back-in-stock");
    expect(page).toContain("gid://shopify/Product/8100000008");
  });
});
