/**
 * The shop's Storefront API (GraphQL), called from the browser with its public access token, as a headless
 * storefront calls it: the products of the grid and of a wishlist, and a cart whose checkout URL the shopper is
 * sent to. A plain `fetch` keeps the example free of another package; the platform's own client
 * (`@shopify/storefront-api-client`) or Hydrogen's `createStorefrontClient` send the same request.
 */

export interface Money {
  amount: string;
  currencyCode: string;
}

export interface ProductVariant {
  /** A global id, `gid://shopify/ProductVariant/<id>`. */
  id: string;
  title: string;
  availableForSale: boolean;
  price: Money;
}

export interface Product {
  /** A global id, `gid://shopify/Product/<id>`. */
  id: string;
  handle: string;
  title: string;
  availableForSale: boolean;
  featuredImage: { url: string; altText: string | null; width: number; height: number } | null;
  priceRange: { minVariantPrice: Money };
  variants: { nodes: ProductVariant[] };
}

const PRODUCT_FIELDS = /* GraphQL */ `
  fragment ProductFields on Product {
    id
    handle
    title
    availableForSale
    featuredImage {
      url
      altText
      width
      height
    }
    priceRange {
      minVariantPrice {
        amount
        currencyCode
      }
    }
    variants(first: 25) {
      nodes {
        id
        title
        availableForSale
        price {
          amount
          currencyCode
        }
      }
    }
  }
`;

/** A GraphQL error of the Storefront API (or its HTTP status when it answered none). */
export class StorefrontApiError extends Error {
  override readonly name = "StorefrontApiError";
}

async function storefrontQuery<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const { VITE_STOREFRONT_ORIGIN, VITE_STOREFRONT_API_VERSION, VITE_STOREFRONT_ACCESS_TOKEN } = import.meta.env;
  const response = await fetch(`${VITE_STOREFRONT_ORIGIN}/api/${VITE_STOREFRONT_API_VERSION}/graphql.json`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Storefront-Access-Token": VITE_STOREFRONT_ACCESS_TOKEN,
    },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json().catch(() => ({}))) as { data?: T; errors?: Array<{ message: string }> };
  if (!response.ok || body.errors?.length || !body.data) {
    throw new StorefrontApiError(body.errors?.map((error) => error.message).join("; ") || `HTTP ${response.status}`);
  }
  return body.data;
}

/** The product id the wishlist service keeps: the digits of the global id. */
export const productIdOf = (globalId: string) => globalId.slice(globalId.lastIndexOf("/") + 1);

/** The shop's name and its first products, for the header and the grid. */
export async function fetchCatalogue(): Promise<{ shopName: string; products: Product[] }> {
  const data = await storefrontQuery<{ shop: { name: string }; products: { nodes: Product[] } }>(
    `query Catalogue { shop { name } products(first: 48) { nodes { ...ProductFields } } } ${PRODUCT_FIELDS}`,
  );
  return { shopName: data.shop.name, products: data.products.nodes };
}

/** The products a wishlist names, by the service's product id (digits); a product the shop no longer has is left out. */
export async function fetchProducts(productIds: string[]): Promise<Map<string, Product>> {
  const ids = [...new Set(productIds)].map((id) => `gid://shopify/Product/${id}`);
  if (ids.length === 0) return new Map();
  const data = await storefrontQuery<{ nodes: Array<Product | null> }>(
    `query WishlistProducts($ids: [ID!]!) { nodes(ids: $ids) { ... on Product { ...ProductFields } } } ${PRODUCT_FIELDS}`,
    { ids },
  );
  return new Map(data.nodes.flatMap((product) => (product?.id ? [[productIdOf(product.id), product]] : [])));
}

export interface CheckoutLine {
  /** A variant's global id. */
  variantId: string;
  quantity: number;
}

/**
 * Makes a cart of the lines (and the cart attributes, such as a guest's `_wishlist_list`) and answers its checkout
 * URL, where the shopper goes next. Lines the shop cannot sell any more are dropped by the platform, which says so
 * in `warnings`.
 */
export async function createCheckout(
  lines: CheckoutLine[],
  attributes: Array<{ key: string; value: string }> = [],
): Promise<{ checkoutUrl: string; warnings: string[] }> {
  const { cartCreate } = await storefrontQuery<{
    cartCreate: {
      cart: { checkoutUrl: string } | null;
      userErrors: Array<{ message: string }>;
      warnings: Array<{ message: string }>;
    };
  }>(
    `mutation AddToCart($input: CartInput!) {
      cartCreate(input: $input) {
        cart { checkoutUrl }
        userErrors { code field message }
        warnings { code message target }
      }
    }`,
    { input: { lines: lines.map((line) => ({ merchandiseId: line.variantId, quantity: line.quantity })), attributes } },
  );
  if (!cartCreate.cart) throw new StorefrontApiError(cartCreate.userErrors.map((error) => error.message).join(" "));
  return { checkoutUrl: cartCreate.cart.checkoutUrl, warnings: cartCreate.warnings.map((warning) => warning.message) };
}

/** A price as the shopper reads it. */
export const formatMoney = ({ amount, currencyCode }: Money) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: currencyCode }).format(Number(amount));
