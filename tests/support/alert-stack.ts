import { serve } from "@hono/node-server";
import { afterAll, expect } from "vitest";
import { database } from "~/data/database.server";
import { updateAlertSettingsText } from "~/data/shop-rows.server";
import { alertSettingsSchema } from "~/services/alerts/alert-settings";
import { createShopWithKey } from "../factories";
import { connectToPlatform } from "../services/transfers/helpers";
import { demoShopData } from "../../stand-in/demo-data";
import { startMailbox } from "../../stand-in/mailbox";
import { startTestPlatform } from "./platform-stand-in";
import { apiHarness } from "./harness";
import { until } from "./poll";

/** A shop's alert settings as a test writes them: any members, `email`'s merged over the mailbox's. */
export type AlertShopSettings = { email?: Record<string, unknown> } & Record<string, unknown>;

/**
 * What the alerts' tests run against (docs/decisions/050-wishlist-alerts.md): the web process's app served on
 * loopback (so the platform stand-in can send it its signed webhooks), the stand-in answering the app's Admin
 * API calls (SHOPIFY_ADMIN_API_ORIGIN, which the worker the test starts inherits), and a real SMTP server (the
 * stand-in's mailbox). Call it after setting the file's environment; each test adds its shop to
 * `platform.shops`. All of it is closed when the file ends.
 */
export async function startAlertStack({ keep, mailHost }: { keep?: number; mailHost?: string } = {}) {
  const mailbox = await startMailbox({ port: 0, ...(keep ? { keep } : {}), ...(mailHost ? { host: mailHost } : {}) });
  const harness = await apiHarness();
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: harness.app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  const address = server.address();
  const appUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const platform = await startTestPlatform(appUrl);
  afterAll(async () => {
    await platform.close();
    await mailbox.close();
    await new Promise((resolve) => server.close(resolve));
  });

  /**
   * A shop with the app installed, known to the platform stand-in (its customers' addresses its own, so the
   * mailbox tells shops apart), its alert emails on and going to the mailbox unless `settings` say otherwise.
   */
  async function alertShop(settings: AlertShopSettings = {}) {
    const { shop, secret } = await createShopWithKey();
    const token = `shpat_${shop.id.slice(-8)}`;
    await connectToPlatform(shop.domain, token);
    const data = demoShopData({ domain: shop.domain, accessToken: token });
    for (const customer of data.customers) customer.email = customer.email.replace("@", `+${shop.id.slice(-6)}@`);
    platform.shops.push(data);
    const document = alertSettingsSchema.parse({
      ...settings,
      email: {
        enabled: true,
        fromName: "Demo Shop",
        fromAddress: "wishlist@demo-shop.example",
        ratePerMinute: 10_000,
        smtp: { host: mailbox.host, port: mailbox.port, security: "none" },
        ...settings.email,
      },
    });
    await updateAlertSettingsText(database(), shop.id, JSON.stringify(document), new Date());
    const { proxyCall } = harness.callsOf({ shop, secret });
    return {
      shop,
      secret,
      data,
      emailOf: (customerId: string) => data.customers.find((customer) => customer.id === customerId)!.email,
      /** The customer saves the product through the app proxy, as the theme's heart does. */
      async save(customerId: string, product: { productId: string; variantId?: string; handle: string }) {
        const response = await proxyCall("/storefront/wishlist/items", customerId, {
          method: "POST",
          body: { productId: product.productId, handle: product.handle, variantId: product.variantId },
        });
        expect(response.status).toBeLessThan(300);
      },
      async remove(customerId: string, productId: string) {
        const response = await proxyCall("/storefront/wishlist/items", customerId, {
          method: "DELETE",
          body: { productId },
        });
        expect(response.status).toBeLessThan(300);
      },
      /** Waits until the product's reading passes `check` and nothing of the shop waits to be read. */
      async read(
        productId: string,
        check: (rows: Array<{ inventoryQuantity: number | null; priceMinor: number }>) => boolean,
      ) {
        await until(
          async () => ({
            rows: await database()
              .selectFrom("CatalogueVariant")
              .selectAll()
              .where("shopId", "=", shop.id)
              .where("productId", "=", productId)
              .execute(),
            waiting: await database()
              .selectFrom("ProductRefresh")
              .select("productId")
              .where("shopId", "=", shop.id)
              .execute(),
          }),
          ({ rows, waiting }) => rows.length > 0 && check(rows) && waiting.length === 0,
          `the reading of ${productId}`,
        );
      },
      alerts: () =>
        database().selectFrom("Alert").selectAll().where("shopId", "=", shop.id).orderBy("createdAt").execute(),
      messages: () =>
        database().selectFrom("AlertMessage").selectAll().where("shopId", "=", shop.id).orderBy("createdAt").execute(),
      /** The merchant changes the variant in the platform's admin; the platform's webhooks must be taken. */
      async change(variantId: string, change: { price?: string; inventoryQuantity?: number }) {
        const sent = await platform.updateVariant(shop.domain, variantId, change);
        expect(sent.map((webhook) => webhook.status)).toEqual(sent.map(() => 200));
      },
    };
  }

  return { ...harness, appUrl, platform, mailbox, alertShop };
}
