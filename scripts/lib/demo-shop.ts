import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Session } from "@shopify/shopify-api";
import { z } from "zod";
import { database } from "~/data/database.server";
import { updateAlertSettingsText } from "~/data/shop-rows.server";
import { getEnv } from "~/env.server";
import { deriveKey } from "~/lib/derived-keys.server";
import { toMinorUnits } from "~/lib/money";
import { alertSettingsSchema } from "~/services/alerts/alert-settings";
import { receiveOrder } from "~/services/attribution/orders.server";
import type { Owner } from "~/services/owners/owner";
import { requestProductSnapshots } from "~/services/products/snapshots.server";
import { platformSessionStorage } from "~/services/shops/platform-sessions.server";
import { findActiveKeyBySecret, createApiKey } from "~/services/keys/api-keys.server";
import { ensureShop, getShopOverview, getShopSettings, updateShopSettings } from "~/services/shops/shops.server";
import { shareWishlist } from "~/services/wishlists/sharing.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";

export const DEMO_SHOP_DOMAIN = "demo-shop.myshopify.com";

const demoFileSchema = z.object({
  shopDomain: z.string(),
  privateKey: z.string(),
  publicKey: z.string(),
  apiBaseUrl: z.string(),
  /** Where `npm run dev`'s stand-in serves the demo shop's storefront and its Storefront API (recordDemoStorefront). */
  storefrontOrigin: z.string().optional(),
  /** The public access token of that Storefront API. */
  storefrontAccessToken: z.string().optional(),
});
export type DemoShop = z.infer<typeof demoFileSchema>;

/**
 * The origins of the headless storefront example's dev server (examples/headless-storefront, port 5173, which it
 * holds: `strictPort`): the demo shop's public key answers them, so `npm run example` works at once. A browser
 * sends the host it was given, so both spellings of loopback are declared.
 */
export const HEADLESS_EXAMPLE_ORIGINS = ["http://localhost:5173", "http://127.0.0.1:5173"];

function readDemoFile(file: string): DemoShop | undefined {
  try {
    return demoFileSchema.parse(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return undefined;
  }
}

/**
 * The demo shop's offline Admin API token: derived from SERVICE_SECRET, so the seed (which stores it as
 * the shop's platform session) and the local platform stand-in (which accepts it) agree without sharing
 * a file. It opens nothing but the stand-in's demo data.
 */
export function demoAccessToken(): string {
  return `shpat_demo_${deriveKey("demo").subarray(0, 16).toString("hex")}`;
}

/**
 * The offline session the platform would have stored at install: with it the embedded admin opens with
 * a session token alone (no OAuth, no token exchange) and Admin API calls carry the demo token.
 */
async function storeDemoSession(domain: string) {
  const session = new Session({ id: `offline_${domain}`, shop: domain, state: "", isOnline: false });
  session.scope = getEnv().SCOPES;
  session.accessToken = demoAccessToken();
  await platformSessionStorage.storeSession(session);
}

/** The platform's demo catalogue and customers (the local platform stand-in's, stand-in/demo-data.ts). */
export interface DemoCatalogue {
  customers: ReadonlyArray<{ id: string }>;
  /** `price`: a decimal in the shop's currency, as the platform writes prices (the demo's orders pay it). */
  products: ReadonlyArray<{ id: string; handle: string; title: string; price?: string }>;
}

/**
 * The demo's wishlist changes, oldest first: [shopper (an index into the customers, or the guest), product
 * (an index into the catalogue), days ago]. A pair seen the second time is a removal (a toggle). The guest
 * saves from an API client that sends no titles, so the admin asks the platform for those names.
 */
const DEMO_CHANGES: Array<[number | "guest", number, number]> = [
  [0, 0, 27],
  [1, 0, 26],
  [2, 0, 25],
  [0, 1, 24],
  [1, 1, 22],
  [2, 2, 21],
  [3, 0, 20],
  [4, 2, 19],
  [1, 3, 18],
  [0, 2, 16],
  [3, 1, 15],
  [2, 4, 14],
  [1, 3, 13],
  [4, 9, 12],
  [0, 5, 11],
  [2, 7, 10],
  [3, 8, 9],
  [1, 6, 8],
  [4, 10, 7],
  [2, 8, 6],
  [3, 8, 5],
  [4, 11, 4],
  [4, 10, 3],
  ["guest", 0, 2],
  ["guest", 11, 1],
  [1, 2, 0],
];
/**
 * The demo's orders, oldest first: [customer, [product, quantity]..., days ago], each of products the customer
 * had saved before (DEMO_CHANGES), so the admin's Insights page has revenue to show.
 */
const DEMO_ORDERS: Array<[number, Array<[number, number]>, number]> = [
  [
    0,
    [
      [1, 1],
      [5, 1],
    ],
    9,
  ],
  [2, [[4, 1]], 5],
  [1, [[6, 2]], 3],
  [3, [[0, 1]], 1],
];
/** The guest's anonymous id (a UUID, as a browser makes one). */
const DEMO_GUEST = "5b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c11";
const DAY_MS = 86_400_000;

/**
 * Demo activity, once (only while the shop has no list): the demo customers' saves and removals over the
 * last four weeks, a guest's list, and one shared list, made through the wishlist services. Each change is
 * dated on its day (`at`), so the worker's relay folds its event into that day's analytics rollups as it
 * folds live traffic. Returns whether anything was seeded.
 */
export async function seedDemoActivity({
  shopId,
  catalogue,
  now = new Date(),
}: {
  shopId: string;
  catalogue: DemoCatalogue;
  now?: Date;
}): Promise<boolean> {
  if ((await getShopOverview({ shopId })).usage.lists > 0) return false;
  const { customers, products } = catalogue;
  const ownerOf = (shopper: number | "guest"): Owner =>
    shopper === "guest"
      ? { kind: "anonymous", anonymousId: DEMO_GUEST }
      : { kind: "customer", customerId: customers[shopper % customers.length]!.id };
  for (const [index, [shopper, product, daysAgo]] of DEMO_CHANGES.entries()) {
    // A minute apart, in order, the last one a minute ago.
    const at = new Date(now.getTime() - daysAgo * DAY_MS - (DEMO_CHANGES.length - index) * 60_000);
    const { id, handle, title } = products[product % products.length]!;
    const item = shopper === "guest" ? { productId: id, handle } : { productId: id, handle, title };
    await toggleItem({ shopId, owner: ownerOf(shopper), at, item });
  }
  await shareWishlist({ shopId, owner: ownerOf(0) });
  await seedDemoOrders(shopId, catalogue, now);
  // The guest's saves carry no title: the worker names them from the platform. Their lookup is queued here
  // once more, awaited, so a seed script that ends right after has handed it to Redis.
  await requestProductSnapshots(shopId);
  return true;
}

/**
 * The demo's orders, applied as the platform's orders/create webhooks are once verified (the ledger records
 * each, so a second seed of the same orders changes nothing): the customers buy products they saved.
 */
async function seedDemoOrders(shopId: string, { customers, products }: DemoCatalogue, now: Date) {
  const { shop } = await getShopOverview({ shopId });
  for (const [index, [customer, lines, daysAgo]] of DEMO_ORDERS.entries()) {
    const orderId = String(5_400_000_000 + index);
    await receiveOrder(
      {
        id: `demo-order-${shopId}-${orderId}`,
        topic: "orders/create",
        shopDomain: shop.domain,
        bodySha256: `demo-${shopId}-${orderId}`,
      },
      {
        orderId,
        orderedAt: new Date(now.getTime() - daysAgo * DAY_MS),
        cancelledAt: null,
        currency: "USD",
        presentmentCurrency: "USD",
        customerId: customers[customer % customers.length]!.id,
        guestList: null,
        lines: lines.map(([product, quantity], line) => {
          const { id, price = "0.00" } = products[product % products.length]!;
          const minor = toMinorUnits(price, "USD") ?? 0;
          return {
            lineItemId: `${orderId}${line + 1}`,
            productId: id,
            variantId: "",
            quantity,
            amountMinor: minor * quantity,
            presentmentAmountMinor: minor * quantity,
          };
        }),
      },
    );
  }
}

/**
 * The demo shop's wishlist alerts email through the local mailbox that `npm run dev` starts (DEV_SMTP_PORT,
 * 1025 unless set; stand-in/mailbox.ts), so a restock in the stand-in's admin shows its email there. Only
 * while the shop's alert settings are untouched: a developer's own settings stay.
 */
async function seedDemoAlerts(shopId: string) {
  const settings = alertSettingsSchema.parse({
    email: {
      enabled: true,
      audience: "subscribed",
      fromName: "Demo Shop",
      fromAddress: "wishlist@demo-shop.example",
      replyTo: "help@demo-shop.example",
      smtp: { host: "127.0.0.1", port: Number(process.env.DEV_SMTP_PORT) || 1025, security: "none" },
    },
  });
  await updateAlertSettingsText(database(), shopId, JSON.stringify(settings), new Date(), { onlyIfUnset: true });
}

/**
 * Seeds the demo shop idempotently: the shop is created once; its private key is created once and
 * reused while the key recorded in `file` still verifies (only its hash is in the database, so the
 * file is the one place the secret lives). Writes `{shopDomain, privateKey, publicKey, apiBaseUrl}`.
 * With a `catalogue`, the shop also gets its demo activity while it has no list (seedDemoActivity).
 */
export async function seedDemoShop({
  appUrl,
  file,
  catalogue,
}: {
  appUrl: string;
  file: string;
  catalogue?: DemoCatalogue;
}): Promise<DemoShop> {
  const shop = await ensureShop({ domain: DEMO_SHOP_DOMAIN });
  await storeDemoSession(shop.domain);
  await seedDemoAlerts(shop.id);
  await seedHeadlessOrigins(shop.id);
  if (catalogue) await seedDemoActivity({ shopId: shop.id, catalogue });
  const recorded = readDemoFile(file);
  let privateKey = recorded?.privateKey;
  if (!privateKey || !(await findActiveKeyBySecret({ shopId: shop.id, secret: privateKey }))) {
    privateKey = (await createApiKey({ shopId: shop.id, label: "Demo key" })).secret;
  }
  const demo: DemoShop = {
    shopDomain: shop.domain,
    privateKey,
    publicKey: shop.publicKey,
    apiBaseUrl: `${appUrl}/v1`,
    // Where the stand-in serves the storefront is `npm run dev`'s to say (recordDemoStorefront): kept as recorded.
    ...(recorded?.storefrontOrigin ? { storefrontOrigin: recorded.storefrontOrigin } : {}),
    ...(recorded?.storefrontAccessToken ? { storefrontAccessToken: recorded.storefrontAccessToken } : {}),
  };
  writeDemoFile(file, demo);
  return demo;
}

function writeDemoFile(file: string, demo: DemoShop) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/**
 * The headless storefront example's origins become the demo shop's headless origins, only while it declares
 * none: a developer's own list stays (docs/decisions/058-headless-storefront-example.md).
 */
async function seedHeadlessOrigins(shopId: string) {
  if ((await getShopSettings({ shopId })).headlessOrigins.length > 0) return;
  await updateShopSettings({ shopId, patch: { headlessOrigins: HEADLESS_EXAMPLE_ORIGINS } });
}

/**
 * Adds where the platform stand-in serves the demo shop's storefront and Storefront API to the demo file, once it
 * listens (`npm run dev`): what a headless storefront needs beside the wishlist keys. A file without the seed's
 * keys is left alone.
 */
export function recordDemoStorefront(
  file: string,
  storefront: { storefrontOrigin: string; storefrontAccessToken: string },
): void {
  const demo = readDemoFile(file);
  if (demo) writeDemoFile(file, { ...demo, ...storefront });
}
