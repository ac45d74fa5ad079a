/**
 * What the local platform stand-in knows about the demo shop: its catalogue, its customers and its
 * published theme. The demo seed (scripts/lib/demo-shop.ts) saves these products to these customers' lists, so
 * the admin's product titles, the import's email lookups and the embed status all answer from one place.
 */
export interface StandInProduct {
  id: string;
  handle: string;
  title: string;
  price: string;
  /** A colour for the local storefront's placeholder image. */
  colour: string;
  /** Its variants; without them, one "Default Title" variant at `price` (id: the product's with 91 for 81). */
  variants?: Array<{
    id: string;
    title: string;
    price: string;
    /** false: sold out (true unless set). */ available?: boolean;
  }>;
}

export interface StandInCustomer {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
}

export interface StandInShop {
  domain: string;
  name: string;
  /** The shop's currency (ISO 4217), USD unless set. */
  currency?: string;
  /** How the shop writes prices (the platform's `shop.money_format`), `${{amount}}` unless set. */
  moneyFormat?: string;
  /** The offline access token the app holds for this shop; Admin API calls must present it. */
  accessToken: string;
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
 * Products with variants of their own: the sweater has options, the tote is sold out; the rest have the one
 * "Default Title" variant. Each first variant keeps the id a product without options would have.
 */
const VARIANTS: Record<string, NonNullable<StandInProduct["variants"]>> = {
  "orchard-knit-sweater": [
    { id: "9100000007", title: "Small", price: "71.00" },
    { id: "9200000007", title: "Medium", price: "1234.50" },
    { id: "9300000007", title: "Large", price: "71.00", available: false },
  ],
  // Sold out: still listed, and its wishlist row says so.
  "pebble-canvas-tote": [{ id: "9100000008", title: "Default Title", price: "78.00", available: false }],
};

const CUSTOMERS: Array<[string, string, string, string]> = [
  ["7001", "ada@example.com", "Ada", "Lovelace"],
  ["7002", "grace@example.com", "Grace", "Hopper"],
  ["7003", "alan@example.com", "Alan", "Turing"],
  ["7004", "katherine@example.com", "Katherine", "Johnson"],
  ["7005", "edsger@example.com", "Edsger", "Dijkstra"],
];

/** The theme extension's id in the stand-in's theme (any id under our app handle counts locally). */
export const STAND_IN_EXTENSION_ID = "5f1c6a2e-7d3b-4c1a-9e2f-0a1b2c3d4e5f";

export function demoShopData({ domain, accessToken }: { domain: string; accessToken: string }): StandInShop {
  return {
    domain,
    name: "Demo Shop",
    accessToken,
    products: PRODUCTS.map(([handle, title, colour], index) => ({
      id: String(8_100_000_000 + index + 1),
      handle,
      title,
      price: `${(29 + index * 7).toFixed(2)}`,
      colour,
      ...(VARIANTS[handle] ? { variants: VARIANTS[handle] } : {}),
    })),
    customers: CUSTOMERS.map(([id, email, firstName, lastName]) => ({ id, email, firstName, lastName })),
    theme: { id: "gid://shopify/OnlineStoreTheme/1", name: "Dawn", blocks: {} },
  };
}
