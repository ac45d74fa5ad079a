/**
 * The back-in-stock email's path on this machine, for the browser tests that follow it: the shop's alert emails
 * on and going to the stand-in's mailbox (a real SMTP server on loopback: `useAdminStack({ mailbox: true })`),
 * the merchant's Restock in the platform's admin (the stand-in, which sends the signed `products/update` and
 * `inventory_levels/update`), and the email read in the mailbox's pages and followed to the product page.
 */
import type { BrowserContext, FrameLocator, Page } from "playwright-core";
import { expect } from "vitest";
import { database } from "~/data/database.server";
import { updateAlertSettingsText } from "~/data/shop-rows.server";
import { alertSettingsSchema } from "~/services/alerts/alert-settings";
import { until } from "../../support/poll";
import { expectNoPageErrors, trackPageErrors, type AdminStack } from "./admin";

/** The merchant's alert emails on, sent through the stand-in's mailbox. */
export async function sendAlertEmailsToMailbox(stack: AdminStack) {
  const settings = alertSettingsSchema.parse({
    email: {
      enabled: true,
      fromName: "Demo Shop",
      fromAddress: "wishlist@demo-shop.example",
      smtp: { host: "127.0.0.1", port: stack.platform.mailbox!.port, security: "none" },
    },
  });
  await updateAlertSettingsText(database(), stack.shop.id, JSON.stringify(settings), new Date());
}

/** The product's variants as the worker last read them from the platform (what a restock is compared with). */
const catalogueReading = (stack: AdminStack, productId: string) =>
  database()
    .selectFrom("CatalogueVariant")
    .select("inventoryQuantity")
    .where("shopId", "=", stack.shop.id)
    .where("productId", "=", productId)
    .execute();

/** Waits until the worker has read the product sold out (one variant, none in stock). */
export async function readSoldOut(stack: AdminStack, productId: string) {
  await until(
    () => catalogueReading(stack, productId),
    (rows) => rows.length === 1 && rows[0]!.inventoryQuantity === 0,
    `${productId} read sold out`,
  );
}

/**
 * The merchant clicks Restock on the product's variant in the platform's admin; the app takes both webhooks
 * (the page lists what was sent and the app's answer).
 */
export async function restockInPlatformAdmin(stack: AdminStack, productId: string, variantTitle = "Default Title") {
  const context = await stack.browser.newContext();
  const admin = await context.newPage();
  trackPageErrors(admin);
  const store = stack.shop.domain.replace(/\.myshopify\.com$/, "");
  await admin.goto(`${stack.platform.origin}/store/${store}/products/${productId}`);
  await admin.getByRole("button", { name: `Restock ${variantTitle}` }).click();
  const sent = admin.getByRole("table", { name: "Webhooks sent" }).getByRole("row");
  for (const topic of ["products/update", "inventory_levels/update"]) {
    await sent.filter({ hasText: topic }).filter({ hasText: "200" }).first().waitFor();
  }
  expectNoPageErrors(admin);
  await context.close();
}

/** Waits for the mailbox to hold `count` messages (the worker sends after its gathering delay). */
export const mailboxHolds = (stack: AdminStack, count: number) =>
  until(
    () => stack.platform.mailbox!.messages(),
    (messages) => messages.length === count,
    `${count} message(s) in the mailbox`,
    120_000,
  );

/** Opens the email with this subject in the mailbox's pages; its body (the page shows it in a frame). */
export async function openEmail(stack: AdminStack, page: Page, subject: string): Promise<FrameLocator> {
  await page.goto(`${stack.platform.origin}/mailbox`);
  await page.getByRole("link", { name: subject }).click();
  return page.frameLocator("iframe[title='Message body']");
}

/**
 * Follows the email's "View product" button: it goes through the shop's app proxy (where the click is recorded)
 * to the product page, in a new window (the links are target=_blank, as a mail client opens them in the
 * browser). Returns that page, once it shows the product.
 */
export async function followProductLink(
  stack: AdminStack,
  context: BrowserContext,
  email: FrameLocator,
  product: { handle: string; title: string },
): Promise<Page> {
  const [page] = await Promise.all([
    context.waitForEvent("page"),
    email
      .getByRole("link", { name: /View product/i })
      .first()
      .click(),
  ]);
  trackPageErrors(page);
  await page.waitForURL(`${stack.platform.storefrontOrigin}/products/${product.handle}`);
  await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toContain(product.title);
  return page;
}
