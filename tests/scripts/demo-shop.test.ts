import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findApiKeysOfShop, revokeApiKeyRow } from "~/data/api-key-rows.server";
import { database } from "~/data/database.server";
import { findShopByDomain, getShopSettings, updateShopSettings } from "~/services/shops/shops.server";
import {
  DEMO_SHOP_DOMAIN,
  HEADLESS_EXAMPLE_ORIGINS,
  recordDemoStorefront,
  seedDemoActivity,
  seedDemoShop,
} from "../../scripts/lib/demo-shop";
import { findActiveKeyBySecret } from "~/services/keys/api-keys.server";
import { hashKey } from "~/services/keys/key-secrets";
import { demoShopData } from "../../stand-in/demo-data";
import { createShop } from "../factories";
import { startProcess } from "../support/processes";
import { eventsOf, itemsOf, listsOf } from "../support/wishlist-rows";

const demoShop = async () => (await findShopByDomain(DEMO_SHOP_DOMAIN))!;

const dir = mkdtempSync(path.join(tmpdir(), "demo-shop-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("demo shop seed", () => {
  it("creates the shop and a working private key, writes them to the file, and is idempotent", async () => {
    const file = path.join(dir, "demo-shop.json");
    const first = await seedDemoShop({ appUrl: "http://localhost:3000", file });
    expect(first).toMatchObject({
      shopDomain: DEMO_SHOP_DOMAIN,
      apiBaseUrl: "http://localhost:3000/v1",
      privateKey: expect.stringMatching(/^svc_sk_[A-Za-z0-9]{32}$/),
      publicKey: expect.stringMatching(/^svc_pk_[A-Za-z0-9]{24}$/),
    });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const shop = await demoShop();
    expect(shop.publicKey).toBe(first.publicKey);
    expect(await findActiveKeyBySecret({ shopId: shop.id, secret: first.privateKey })).not.toBeNull();
    // Only the hash is stored.
    const [stored] = await findApiKeysOfShop(database(), shop.id);
    expect(stored!.hash).toBe(hashKey(first.privateKey));
    expect(JSON.stringify(stored)).not.toContain(first.privateKey);

    const second = await seedDemoShop({ appUrl: "http://localhost:3000", file });
    expect(second).toEqual(first);
    expect(await database().selectFrom("Shop").select("id").where("domain", "=", DEMO_SHOP_DOMAIN).execute()).toEqual([
      { id: shop.id },
    ]);
    expect(await findApiKeysOfShop(database(), shop.id)).toHaveLength(1);
  });

  it("issues a new key when the recorded one is lost or revoked, keeping the shop", async () => {
    const file = path.join(dir, "again.json");
    const first = await seedDemoShop({ appUrl: "http://localhost:3000", file });
    const firstKey = await findActiveKeyBySecret({ shopId: (await demoShop()).id, secret: first.privateKey });
    await revokeApiKeyRow(database(), firstKey!.shopId, firstKey!.id, new Date());
    const second = await seedDemoShop({ appUrl: "http://localhost:3000", file });
    expect(second.privateKey).not.toBe(first.privateKey);
    expect(second.publicKey).toBe(first.publicKey);
    const shop = await demoShop();
    expect(await findActiveKeyBySecret({ shopId: shop.id, secret: second.privateKey })).not.toBeNull();
  });
});

describe("demo activity", () => {
  const catalogue = demoShopData({ domain: DEMO_SHOP_DOMAIN, accessToken: "" });

  it("saves the stand-in's products to its customers' lists over past days, shares one list, and runs once", async () => {
    const shop = await createShop();
    const now = new Date("2026-11-20T12:00:00.000Z");
    expect(await seedDemoActivity({ shopId: shop.id, catalogue, now })).toBe(true);

    const lists = await listsOf(shop.id);
    expect(lists.map((list) => list.customerId ?? "guest").sort()).toEqual([
      "7001",
      "7002",
      "7003",
      "7004",
      "7005",
      "guest",
    ]);
    expect(lists.filter((list) => list.shareEnabled).map((list) => list.customerId)).toEqual(["7001"]);
    const items = await itemsOf(shop.id);
    const titles = new Map(catalogue.products.map((product) => [product.id, product.title]));
    for (const item of items) expect([titles.get(item.productId), ""]).toContain(item.titleSnapshot);
    // Every change has its event, dated on its own day: the rollups fold them into 4 weeks of days.
    const changes = [...(await eventsOf(shop.id, "item.added")), ...(await eventsOf(shop.id, "item.removed"))];
    expect(changes.length).toBeGreaterThan(items.length);
    const days = new Set(changes.map((event) => new Date(event.createdAt).toISOString().slice(0, 10)));
    expect(days.size).toBeGreaterThan(20);
    expect(Math.min(...changes.map((event) => new Date(event.createdAt).getTime()))).toBeLessThan(
      now.getTime() - 26 * 86_400_000,
    );

    // Four orders of products their buyers had saved (issue 30): the Insights page has revenue to show.
    const purchases = () =>
      database()
        .selectFrom("Conversion")
        .select(["orderId", "customerId", "productId", "quantity", "amountMinor"])
        .where("shopId", "=", shop.id)
        .orderBy("orderId")
        .orderBy("lineItemId")
        .execute();
    const bought = await purchases();
    expect(new Set(bought.map((row) => row.orderId)).size).toBe(4);
    expect(bought).toHaveLength(5);
    for (const row of bought) {
      expect(items.some((item) => item.productId === row.productId && item.purchasedAt !== null)).toBe(true);
      expect(row.amountMinor).toBeGreaterThan(0);
    }

    expect(await seedDemoActivity({ shopId: shop.id, catalogue, now })).toBe(false);
    expect(await itemsOf(shop.id)).toHaveLength(items.length);
    expect(await purchases()).toEqual(bought);
  });
});

describe("the demo shop and the headless storefront example (docs/decisions/058-headless-storefront-example.md)", () => {
  it("declares the example's origins while the shop declares none, and keeps a developer's own list", async () => {
    const file = path.join(dir, "headless.json");
    await seedDemoShop({ appUrl: "http://localhost:3000", file });
    const shop = await demoShop();
    await updateShopSettings({ shopId: shop.id, patch: { headlessOrigins: [] } });
    await seedDemoShop({ appUrl: "http://localhost:3000", file });
    expect((await getShopSettings({ shopId: shop.id })).headlessOrigins).toEqual(HEADLESS_EXAMPLE_ORIGINS);
    await updateShopSettings({ shopId: shop.id, patch: { headlessOrigins: ["https://shop.example.com"] } });
    await seedDemoShop({ appUrl: "http://localhost:3000", file });
    expect((await getShopSettings({ shopId: shop.id })).headlessOrigins).toEqual(["https://shop.example.com"]);
  });

  it("names the port the example's dev server holds", () => {
    const config = readFileSync(
      path.join(import.meta.dirname, "../../examples/headless-storefront/server/vite.ts"),
      "utf8",
    );
    const port = /export const EXAMPLE_PORT = (\d+);/.exec(config)?.[1];
    expect(port).toBeDefined();
    expect(HEADLESS_EXAMPLE_ORIGINS).toEqual([`http://localhost:${port}`, `http://127.0.0.1:${port}`]);
  });

  it("records where the stand-in serves the storefront in the demo file, and a later seed keeps it", async () => {
    const file = path.join(dir, "storefront.json");
    const seeded = await seedDemoShop({ appUrl: "http://localhost:3000", file });
    const storefront = { storefrontOrigin: "http://localhost:3002", storefrontAccessToken: "a1b2c3" };
    recordDemoStorefront(file, storefront);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ ...seeded, ...storefront });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await seedDemoShop({ appUrl: "http://localhost:3000", file })).toEqual({ ...seeded, ...storefront });
    // No seeded file: nothing to add to, nothing written.
    const missing = path.join(dir, "never-seeded.json");
    recordDemoStorefront(missing, storefront);
    expect(() => statSync(missing)).toThrow();
  });
});

describe("npm run seed", () => {
  it("refuses to create the demo shop in production, and creates nothing", async () => {
    const seed = startProcess("scripts/seed-demo.ts", {
      NODE_ENV: "production",
      SHOPIFY_API_SECRET: "a-real-platform-secret",
      SERVICE_SECRET: "a-real-service-secret-of-at-least-32-characters",
      SHOPIFY_APP_URL: "https://wishlist.example.com",
      DEMO_SHOP_FILE: path.join(dir, "production-demo.json"),
    });
    const code = await new Promise<number | null>((resolve) => seed.child.once("exit", resolve));
    expect(seed.output()).toContain("refusing to create the demo shop with NODE_ENV=production");
    expect(code).toBe(1);
    expect(() => statSync(path.join(dir, "production-demo.json"))).toThrow();
  });
});
