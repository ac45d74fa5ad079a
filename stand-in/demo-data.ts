/**
 * What the local platform stand-in knows about the demo shop: its catalogue, its customers and its
 * published theme. The demo seed (scripts/lib/demo-shop.ts) saves these products to these customers' lists, so
 * the admin's product titles, the import's email lookups and the embed status all answer from one place.
 */
import type { StandInAppSubscription } from "./billing";
import type { StandInOrder } from "./orders";

export interface StandInProduct {
  id: string;
  handle: string;
  title: string;
  price: string;
  /** A colour for the local storefront's placeholder image. */
  colour: string;
  /** Its variants; without them, one "Default Title" variant at `price` (id: the product's with 91 for 81). */
  variants?: StandInVariant[];
}

/** A variant as the platform's catalogue keeps it; availability follows stand-in/catalogue.ts. */
export interface StandInVariant {
  id: string;
  title: string;
  /** A decimal in the shop's currency, two places ("29.00"), as the platform writes prices. */
  price: string;
  /** The price it was before, shown struck through; unset: none. */
  compareAtPrice?: string;
  /** The stock the shop's one location holds; set: tracked (0 or less is sold out), unset: not tracked. */
  inventoryQuantity?: number;
  /** false: not for sale whatever the stock (true unless set). */
  available?: boolean;
}

/** The platform's states of a customer's email marketing consent (`CustomerEmailAddressMarketingState`). */
export type EmailMarketingState = "SUBSCRIBED" | "NOT_SUBSCRIBED" | "UNSUBSCRIBED" | "PENDING" | "INVALID";

export interface StandInCustomer {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  /** The customer's language (`Customer.locale`), "en" unless set. */
  locale?: string;
  /** Their email marketing consent; unset: NOT_SUBSCRIBED, as for a customer the platform never asked. */
  marketingState?: EmailMarketingState;
}

export interface StandInShop {
  domain: string;
  name: string;
  /** The shop's contact email (the platform's `shop.email`), `owner@<domain>` unless set. */
  email?: string;
  /** The shop's currency (ISO 4217), USD unless set. */
  currency?: string;
  /** How the shop writes prices (the platform's `shop.money_format`), `${{amount}}` unless set. */
  moneyFormat?: string;
  /** The offline access token the app holds for this shop; Admin API calls must present it. */
  accessToken: string;
  /**
   * The public access token of its Storefront API (stand-in/storefront-api.ts), as the platform's Headless channel
   * issues one; unset: one made from the domain (`storefrontAccessTokenOf`).
   */
  storefrontAccessToken?: string;
  products: StandInProduct[];
  customers: StandInCustomer[];
  theme: {
    id: string;
    name: string;
    /** App embed blocks of config/settings_data.json, by block id, as the theme editor writes them. */
    blocks: Record<string, { type: string; disabled: boolean; settings?: Record<string, unknown> }>;
  };
  /** Metafields the app wrote, by owner id (a gid), then by `namespace.key`. */
  metafields?: Record<string, Record<string, { id: string; type: string; value: string }>>;
  /** Metafield definitions the app created. */
  metafieldDefinitions?: Array<{ id: string; namespace: string; key: string; ownerType: string; type: string }>;
  /** The orders placed on its storefront (stand-in/orders.ts), oldest first. */
  orders?: StandInOrder[];
  /** The app's subscriptions (charges) the shop was asked for (stand-in/billing.ts), oldest first. */
  appSubscriptions?: StandInAppSubscription[];
}

const PRODUCTS: Array<[string, string, string]> = [
  ["aurora-linen-shirt", "Aurora Linen Shirt", "#d9c7a7"],
  ["harbor-wool-coat", "Harbor Wool Coat", "#4a5b6c"],
  ["meadow-sun-hat", "Meadow Sun Hat", "#e8d48b"],
  ["canyon-leather-boots", "Canyon Leather Boots", "#8a5a3b"],
  ["tidal-swim-shorts", "Tidal Swim Shorts", "#3f8fb0"],
  ["summit-rain-jacket", "Summit Rain Jacket", "#c0392b"],
  ["orchard-knit-sweater", "Orchard Knit Sweater", "#7d9a5b"],
  ["pebble-canvas-tote", "Pebble Canvas Tote", "#bfb8ad"],
  ["ember-wool-scarf", "Ember Wool Scarf", "#d35400"],
  ["willow-silk-dress", "Willow Silk Dress", "#9bb7a4"],
  ["granite-chino-pants", "Granite Chino Pants", "#6b6b6b"],
  ["lagoon-sunglasses", "Lagoon Sunglasses", "#1f6f78"],
];

/**
 * Products with options of their own: the sweater has sizes, its Large sold out. Each first variant keeps the
 * id a product without options would have.
 */
const VARIANTS: Record<string, StandInVariant[]> = {
  "orchard-knit-sweater": [
    { id: "9100000007", title: "Small", price: "71.00", inventoryQuantity: 14 },
    { id: "9200000007", title: "Medium", price: "1234.50", inventoryQuantity: 22 },
    { id: "9300000007", title: "Large", price: "71.00", inventoryQuantity: 0 },
  ],
};

/**
 * Stock of the products with one variant, for the alerts to have something to watch: most hold 10 to 40,
 * the scarf is nearly gone (low stock), the tote is sold out (still listed, and its wishlist row says so).
 */
const STOCK: Record<string, number> = {
  "aurora-linen-shirt": 24,
  "harbor-wool-coat": 12,
  "meadow-sun-hat": 31,
  "canyon-leather-boots": 18,
  "tidal-swim-shorts": 40,
  "summit-rain-jacket": 27,
  "pebble-canvas-tote": 0,
  "ember-wool-scarf": 3,
  "willow-silk-dress": 16,
  "granite-chino-pants": 35,
  "lagoon-sunglasses": 10,
};

/** The coat is on sale: its compare-at price is what it cost before. */
const COMPARE_AT: Record<string, string> = { "harbor-wool-coat": "48.00" };

/** Customers in the storefront's languages and in each consent state the alerts must respect. */
const CUSTOMERS: Array<[string, string, string, string, string, EmailMarketingState]> = [
  ["7001", "ada@example.com", "Ada", "Lovelace", "en", "SUBSCRIBED"],
  ["7002", "grace@example.com", "Grace", "Hopper", "fr", "SUBSCRIBED"],
  ["7003", "alan@example.com", "Alan", "Turing", "de", "SUBSCRIBED"],
  ["7004", "katherine@example.com", "Katherine", "Johnson", "en", "NOT_SUBSCRIBED"],
  ["7005", "edsger@example.com", "Edsger", "Dijkstra", "en", "UNSUBSCRIBED"],
];

/** The theme extension's id in the stand-in's theme (any id under our app handle counts locally). */
export const STAND_IN_EXTENSION_ID = "5f1c6a2e-7d3b-4c1a-9e2f-0a1b2c3d4e5f";

export function demoShopData({ domain, accessToken }: { domain: string; accessToken: string }): StandInShop {
  return {
    domain,
    name: "Demo Shop",
    accessToken,
    products: PRODUCTS.map(([handle, title, colour], index) => {
      const id = String(8_100_000_000 + index + 1);
      const price = `${(29 + index * 7).toFixed(2)}`;
      // Copies: a shop's catalogue changes (stand-in/catalogue.ts), and each shop built here starts as given.
      const variants = VARIANTS[handle]?.map((variant) => ({ ...variant })) ?? [
        {
          id: id.replace(/^81/, "91"),
          title: "Default Title",
          price,
          ...(COMPARE_AT[handle] ? { compareAtPrice: COMPARE_AT[handle] } : {}),
          inventoryQuantity: STOCK[handle]!,
        },
      ];
      return { id, handle, title, price, colour, variants };
    }),
    customers: CUSTOMERS.map(([id, email, firstName, lastName, locale, marketingState]) => ({
      id,
      email,
      firstName,
      lastName,
      locale,
      marketingState,
    })),
    theme: { id: "gid://shopify/OnlineStoreTheme/1", name: "Dawn", blocks: {} },
  };
}
