/**
 * The slice of the platform's Storefront API that a headless storefront needs for a product grid, the products
 * of a wishlist, a cart and a customer's login (examples/headless-storefront; docs/decisions/058-headless-storefront-example.md):
 * GraphQL at `POST /api/<version>/graphql.json` on the shop's domain, with the storefront's public access token in
 * `X-Shopify-Storefront-Access-Token`. A real GraphQL engine answers over a schema written after the platform's
 * reference (names, types and arguments as the platform has them), from the stand-in's catalogue
 * (stand-in/catalogue.ts), so prices and stock follow what the merchant changed in the stand-in's admin:
 *  - `shop { name }`, `products(first, after, reverse)`, `product(id | handle)`, `nodes(ids)` (products, variants);
 *  - `cartCreate(input: { lines, attributes })`: the cart's `checkoutUrl` is the storefront's cart permalink
 *    (`/cart/<variant>:<quantity>,...`, its attributes as `attributes[<key>]=<value>`), which the local storefront
 *    opens as the platform opens a checkout link. A sold-out line is left out with a MERCHANDISE_OUT_OF_STOCK
 *    warning (the platform's behaviour since 2024-10); an unknown merchandise id or a quantity below 1 is a user
 *    error, and no cart is made;
 *  - `customerAccessTokenCreate(input: { email, password })` and `customer(customerAccessToken)`: a headless
 *    storefront's customer login. The stand-in's customers have no password: any non-empty one opens a known
 *    email.
 * Browsers call it from other origins with the public token, so it answers CORS for any origin, as the platform
 * does. Carts are not kept (nothing reads one back), nor is anything kept across restarts.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { buildSchema, graphql, type GraphQLSchema } from "graphql";
import { Hono } from "hono";
import { findVariant, isAvailableForSale, productImagePath, variantsOf } from "./catalogue";
import type { StandInProduct, StandInShop, StandInVariant } from "./demo-data";
import { decimalOf, minorUnits } from "./money";

const SDL = /* GraphQL */ `
  scalar DateTime
  scalar Decimal
  scalar URL
  interface Node {
    id: ID!
  }
  enum CurrencyCode {
    USD
    EUR
    GBP
    CAD
  }
  type MoneyV2 {
    amount: Decimal!
    currencyCode: CurrencyCode!
  }
  type Image {
    id: ID
    url: URL!
    altText: String
    width: Int
    height: Int
  }
  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }
  type ProductPriceRange {
    minVariantPrice: MoneyV2!
    maxVariantPrice: MoneyV2!
  }
  type ProductVariant implements Node {
    id: ID!
    title: String!
    availableForSale: Boolean!
    price: MoneyV2!
    compareAtPrice: MoneyV2
    image: Image
    product: Product!
  }
  type ProductVariantEdge {
    cursor: String!
    node: ProductVariant!
  }
  type ProductVariantConnection {
    edges: [ProductVariantEdge!]!
    nodes: [ProductVariant!]!
    pageInfo: PageInfo!
  }
  type Product implements Node {
    id: ID!
    handle: String!
    title: String!
    description: String!
    availableForSale: Boolean!
    onlineStoreUrl: URL
    featuredImage: Image
    priceRange: ProductPriceRange!
    compareAtPriceRange: ProductPriceRange!
    variants(first: Int, after: String): ProductVariantConnection!
  }
  type ProductEdge {
    cursor: String!
    node: Product!
  }
  type ProductConnection {
    edges: [ProductEdge!]!
    nodes: [Product!]!
    pageInfo: PageInfo!
  }
  type Shop {
    name: String!
  }
  type Customer {
    id: ID!
    email: String
    firstName: String
    lastName: String
    displayName: String!
  }
  type Query {
    shop: Shop!
    products(first: Int, after: String, reverse: Boolean = false): ProductConnection!
    product(handle: String, id: ID): Product
    nodes(ids: [ID!]!): [Node]!
    customer(customerAccessToken: String!): Customer
  }

  type Attribute {
    key: String!
    value: String
  }
  input AttributeInput {
    key: String!
    value: String!
  }
  input CartLineInput {
    merchandiseId: ID!
    quantity: Int = 1
    attributes: [AttributeInput!]
  }
  input CartInput {
    lines: [CartLineInput!]
    attributes: [AttributeInput!]
    note: String
  }
  union Merchandise = ProductVariant
  type CartLineCost {
    amountPerQuantity: MoneyV2!
    subtotalAmount: MoneyV2!
    totalAmount: MoneyV2!
  }
  interface BaseCartLine {
    id: ID!
    quantity: Int!
    merchandise: Merchandise!
    cost: CartLineCost!
    attributes: [Attribute!]!
  }
  type CartLine implements BaseCartLine & Node {
    id: ID!
    quantity: Int!
    merchandise: Merchandise!
    cost: CartLineCost!
    attributes: [Attribute!]!
  }
  type BaseCartLineEdge {
    cursor: String!
    node: BaseCartLine!
  }
  type BaseCartLineConnection {
    edges: [BaseCartLineEdge!]!
    nodes: [BaseCartLine!]!
    pageInfo: PageInfo!
  }
  type CartCost {
    subtotalAmount: MoneyV2!
    totalAmount: MoneyV2!
  }
  type Cart implements Node {
    id: ID!
    checkoutUrl: URL!
    createdAt: DateTime!
    updatedAt: DateTime!
    note: String
    totalQuantity: Int!
    attributes: [Attribute!]!
    cost: CartCost!
    lines(first: Int): BaseCartLineConnection!
  }
  enum CartErrorCode {
    INVALID
    INVALID_MERCHANDISE_LINE
    LESS_THAN
  }
  type CartUserError {
    code: CartErrorCode
    field: [String!]
    message: String!
  }
  enum CartWarningCode {
    MERCHANDISE_NOT_ENOUGH_STOCK
    MERCHANDISE_OUT_OF_STOCK
  }
  type CartWarning {
    code: CartWarningCode!
    message: String!
    target: ID!
  }
  type CartCreatePayload {
    cart: Cart
    userErrors: [CartUserError!]!
    warnings: [CartWarning!]!
  }

  input CustomerAccessTokenCreateInput {
    email: String!
    password: String!
  }
  type CustomerAccessToken {
    accessToken: String!
    expiresAt: DateTime!
  }
  enum CustomerErrorCode {
    BLANK
    INVALID
    UNIDENTIFIED_CUSTOMER
  }
  type CustomerUserError {
    code: CustomerErrorCode
    field: [String!]
    message: String!
  }
  type CustomerAccessTokenCreatePayload {
    customerAccessToken: CustomerAccessToken
    customerUserErrors: [CustomerUserError!]!
  }

  type Mutation {
    cartCreate(input: CartInput): CartCreatePayload
    customerAccessTokenCreate(input: CustomerAccessTokenCreateInput!): CustomerAccessTokenCreatePayload
  }
`;

const schema: GraphQLSchema = buildSchema(SDL);
// buildSchema leaves abstract types unresolved: name them from the objects the resolvers return.
for (const name of ["Node", "Merchandise", "BaseCartLine"]) {
  const type = schema.getType(name) as unknown as { resolveType: (value: { __typename: string }) => string };
  type.resolveType = (value) => value.__typename;
}

/** The most `first` the platform takes on a connection. */
const MAX_PAGE = 250;
/** How long a customer access token opens the customer's data, as the platform's do (about two months). */
const CUSTOMER_TOKEN_MS = 60 * 86_400_000;

/**
 * The storefront's public access token of a stand-in shop: the shop's own when set, else one made from its domain
 * (a public token is no secret: a headless storefront ships it to every browser).
 */
export function storefrontAccessTokenOf(shop: Pick<StandInShop, "domain" | "storefrontAccessToken">): string {
  return (
    shop.storefrontAccessToken ??
    createHash("sha256").update(`storefront-access-token:${shop.domain}`).digest("hex").slice(0, 32)
  );
}

const gid = (type: string, id: string) => `gid://shopify/${type}/${id}`;
/** The number of a global id of that type (`gid://shopify/ProductVariant/9100000001` -> 9100000001), else null. */
const idOf = (type: string, value: string) => new RegExp(`^gid://shopify/${type}/(\\d+)$`).exec(value)?.[1] ?? null;
const cursorOf = (index: number) => Buffer.from(`cursor:${index}`).toString("base64url");
const indexOfCursor = (cursor: string) => {
  const match = /^cursor:(\d+)$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match) throw new Error(`Invalid cursor: ${cursor}`);
  return Number(match[1]);
};

/** A page of a list as the platform's connections answer: `edges`, `nodes` and `pageInfo`, cursors opaque. */
function connection<T>(all: T[], { first, after }: { first?: number | null; after?: string | null }) {
  if (first === undefined || first === null) throw new Error("you must provide one of first or last");
  if (first < 0 || first > MAX_PAGE) throw new Error(`The value of first must be between 0 and ${MAX_PAGE}.`);
  const from = after ? indexOfCursor(after) + 1 : 0;
  const page = all.slice(from, from + first).map((node, offset) => ({ cursor: cursorOf(from + offset), node }));
  return {
    edges: page,
    nodes: page.map((edge) => edge.node),
    pageInfo: {
      hasNextPage: from + first < all.length,
      hasPreviousPage: from > 0,
      startCursor: page[0]?.cursor ?? null,
      endCursor: page.at(-1)?.cursor ?? null,
    },
  };
}

interface Customer {
  id: string;
  expiresAt: number;
}

/**
 * The Storefront API of one shop, to mount on its storefront's server (stand-in/online-store.ts). `origin` is the
 * request's: images, product links and checkout links name the host the client asked.
 */
export function createStorefrontApi(shop: StandInShop) {
  const app = new Hono();
  /** Customer access tokens issued by customerAccessTokenCreate, by token. */
  const customerTokens = new Map<string, Customer>();
  const currencyCode = () => shop.currency ?? "USD";
  const money = (amount: string) => ({ amount, currencyCode: currencyCode() });

  function variantNode(origin: string, product: StandInProduct, variant: StandInVariant) {
    return {
      __typename: "ProductVariant",
      id: gid("ProductVariant", variant.id),
      title: variant.title,
      availableForSale: isAvailableForSale(variant),
      price: money(variant.price),
      compareAtPrice: variant.compareAtPrice ? money(variant.compareAtPrice) : null,
      image: imageOf(origin, product),
      product: () => productNode(origin, product),
    };
  }

  function imageOf(origin: string, product: StandInProduct) {
    return {
      id: gid("ProductImage", product.id),
      url: `${origin}${productImagePath(product)}`,
      altText: product.title,
      width: 800,
      height: 800,
    };
  }

  function productNode(origin: string, product: StandInProduct) {
    const variants = variantsOf(product);
    const byPrice = [...variants].sort((a, b) => Number(a.price) - Number(b.price));
    const compareAt = variants.map((variant) => variant.compareAtPrice ?? "0.00").sort((a, b) => Number(a) - Number(b));
    return {
      __typename: "Product",
      id: gid("Product", product.id),
      handle: product.handle,
      title: product.title,
      description: "",
      availableForSale: variants.some(isAvailableForSale),
      onlineStoreUrl: `${origin}/products/${product.handle}`,
      featuredImage: imageOf(origin, product),
      priceRange: { minVariantPrice: money(byPrice[0]!.price), maxVariantPrice: money(byPrice.at(-1)!.price) },
      compareAtPriceRange: { minVariantPrice: money(compareAt[0]!), maxVariantPrice: money(compareAt.at(-1)!) },
      variants: (page: { first?: number | null; after?: string | null }) =>
        connection(
          variants.map((variant) => variantNode(origin, product, variant)),
          page,
        ),
    };
  }

  function node(origin: string, id: string) {
    const productId = idOf("Product", id);
    if (productId) {
      const product = shop.products.find((candidate) => candidate.id === productId);
      return product ? productNode(origin, product) : null;
    }
    const variantId = idOf("ProductVariant", id);
    const found = variantId ? findVariant(shop, variantId) : null;
    return found ? variantNode(origin, found.product, found.variant) : null;
  }

  interface CartInput {
    lines?: Array<{ merchandiseId: string; quantity: number; attributes?: Array<{ key: string; value: string }> }>;
    attributes?: Array<{ key: string; value: string }>;
    note?: string | null;
  }

  function createCart(origin: string, input: CartInput = {}) {
    const userErrors: Array<{ code: string; field: string[]; message: string }> = [];
    const warnings: Array<{ code: string; message: string; target: string }> = [];
    const lines: Array<{ product: StandInProduct; variant: StandInVariant; quantity: number; id: string }> = [];
    for (const [index, line] of (input.lines ?? []).entries()) {
      const variantId = idOf("ProductVariant", line.merchandiseId);
      const found = variantId ? findVariant(shop, variantId) : null;
      if (!found) {
        userErrors.push({
          code: "INVALID",
          field: ["input", "lines", String(index), "merchandiseId"],
          message: `The merchandise with id ${line.merchandiseId} does not exist.`,
        });
        continue;
      }
      if (line.quantity < 1) {
        userErrors.push({
          code: "LESS_THAN",
          field: ["input", "lines", String(index), "quantity"],
          message: "The quantity must be greater than 0.",
        });
        continue;
      }
      const id = gid("CartLine", randomUUID());
      if (!isAvailableForSale(found.variant)) {
        warnings.push({
          code: "MERCHANDISE_OUT_OF_STOCK",
          message: `The product '${found.product.title}' is already sold out.`,
          target: id,
        });
        continue;
      }
      // The same variant twice is one line, as the platform's cart merges them.
      const same = lines.find((candidate) => candidate.variant.id === found.variant.id);
      if (same) same.quantity += line.quantity;
      else lines.push({ ...found, quantity: line.quantity, id });
    }
    if (userErrors.length) return { cart: null, userErrors, warnings: [] };

    const attributes = (input.attributes ?? []).map(({ key, value }) => ({ key, value }));
    const permalink = new URL(
      lines.length ? `/cart/${lines.map((line) => `${line.variant.id}:${line.quantity}`).join(",")}` : "/cart",
      origin,
    );
    for (const { key, value } of attributes) permalink.searchParams.append(`attributes[${key}]`, value);
    const now = new Date().toISOString();
    const cents = (price: string, quantity = 1) => minorUnits(price) * quantity;
    const decimal = decimalOf;
    const total = lines.reduce((sum, line) => sum + cents(line.variant.price, line.quantity), 0);
    const cartLines = lines.map((line) => ({
      __typename: "CartLine",
      id: line.id,
      quantity: line.quantity,
      merchandise: variantNode(origin, line.product, line.variant),
      cost: {
        amountPerQuantity: money(line.variant.price),
        subtotalAmount: money(decimal(cents(line.variant.price, line.quantity))),
        totalAmount: money(decimal(cents(line.variant.price, line.quantity))),
      },
      attributes: [],
    }));
    return {
      cart: {
        __typename: "Cart",
        id: gid("Cart", randomBytes(16).toString("hex")),
        checkoutUrl: permalink.href,
        createdAt: now,
        updatedAt: now,
        note: input.note ?? null,
        totalQuantity: lines.reduce((sum, line) => sum + line.quantity, 0),
        attributes,
        cost: { subtotalAmount: money(decimal(total)), totalAmount: money(decimal(total)) },
        lines: (page: { first?: number | null }) => connection(cartLines, { first: page.first ?? MAX_PAGE }),
      },
      userErrors,
      warnings,
    };
  }

  function createCustomerToken({ email, password }: { email: string; password: string }) {
    const refuse = (code: string, field: string[] | null, message: string) => ({
      customerAccessToken: null,
      customerUserErrors: [{ code, field, message }],
    });
    if (password === "") return refuse("BLANK", ["input", "password"], "Password can't be blank");
    const customer = shop.customers.find((candidate) => candidate.email.toLowerCase() === email.trim().toLowerCase());
    if (!customer) return refuse("UNIDENTIFIED_CUSTOMER", null, "Unidentified customer");
    const accessToken = randomBytes(16).toString("hex");
    const expiresAt = Date.now() + CUSTOMER_TOKEN_MS;
    customerTokens.set(accessToken, { id: customer.id, expiresAt });
    return {
      customerAccessToken: { accessToken, expiresAt: new Date(expiresAt).toISOString() },
      customerUserErrors: [],
    };
  }

  function customerOf(token: string) {
    const held = customerTokens.get(token);
    if (!held || held.expiresAt <= Date.now()) return null;
    const customer = shop.customers.find((candidate) => candidate.id === held.id);
    if (!customer) return null;
    return {
      id: gid("Customer", customer.id),
      email: customer.email,
      firstName: customer.firstName,
      lastName: customer.lastName,
      displayName: `${customer.firstName} ${customer.lastName}`,
    };
  }

  function rootFor(origin: string) {
    return {
      shop: () => ({ name: shop.name }),
      products: (page: { first?: number | null; after?: string | null; reverse?: boolean }) => {
        const products = shop.products.map((product) => productNode(origin, product));
        return connection(page.reverse ? products.reverse() : products, page);
      },
      product: ({ handle, id }: { handle?: string | null; id?: string | null }) => {
        if (id) {
          const found = node(origin, id);
          return found?.__typename === "Product" ? found : null;
        }
        const product = shop.products.find((candidate) => candidate.handle === handle);
        return product ? productNode(origin, product) : null;
      },
      nodes: ({ ids }: { ids: string[] }) => ids.map((id) => node(origin, id)),
      customer: ({ customerAccessToken }: { customerAccessToken: string }) => customerOf(customerAccessToken),
      cartCreate: ({ input }: { input?: CartInput | null }) => createCart(origin, input ?? {}),
      customerAccessTokenCreate: ({ input }: { input: { email: string; password: string } }) =>
        createCustomerToken(input),
    };
  }

  const CORS = {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "POST, OPTIONS",
    "access-control-allow-headers":
      "content-type, accept, x-shopify-storefront-access-token, x-sdk-variant, x-sdk-version",
    "access-control-max-age": "86400",
  };
  const VERSION = /^(\d{4}-\d{2}|unstable)$/;

  app.options("/api/:version/graphql.json", () => new Response(null, { status: 204, headers: CORS }));
  app.post("/api/:version/graphql.json", async (c) => {
    if (!VERSION.test(c.req.param("version"))) return c.json({ errors: "Not Found" }, 404, CORS);
    if (c.req.header("x-shopify-storefront-access-token") !== storefrontAccessTokenOf(shop)) {
      return c.json(
        { errors: [{ message: "Invalid Storefront API access token.", extensions: { code: "UNAUTHORIZED" } }] },
        401,
        CORS,
      );
    }
    let body: { query?: unknown; variables?: unknown; operationName?: unknown };
    try {
      body = await c.req.json();
    } catch {
      return c.json({ errors: [{ message: "The request body is not JSON." }] }, 400, CORS);
    }
    if (typeof body.query !== "string") {
      return c.json({ errors: [{ message: "Parameter Missing or Invalid: query" }] }, 400, CORS);
    }
    const result = await graphql({
      schema,
      source: body.query,
      rootValue: rootFor(new URL(c.req.url).origin),
      variableValues: (body.variables as Record<string, unknown> | undefined) ?? {},
      operationName: typeof body.operationName === "string" ? body.operationName : undefined,
    });
    return c.json(
      {
        ...(result.data ? { data: result.data } : {}),
        ...(result.errors
          ? {
              errors: result.errors.map((error) => ({
                message: error.message,
                locations: error.locations,
                path: error.path,
              })),
            }
          : {}),
      },
      200,
      CORS,
    );
  });

  return app;
}
