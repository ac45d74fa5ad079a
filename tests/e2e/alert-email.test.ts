import AxeBuilder from "@axe-core/playwright";
import { beforeAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { updateAlertSettingsText } from "~/data/shop-rows.server";
import { alertSettingsSchema } from "~/services/alerts/alert-settings";
import { until } from "../support/poll";
import { expectNoPageErrors, screenshot, trackPageErrors, useAdminStack } from "./support/admin";
import { cardHeart, openStorefront, pressed, scriptReady, setEmbed } from "./support/online-store";

/**
 * Issue 29, as people meet it on this machine: a customer saves the sold-out tote in the storefront, the
 * merchant clicks Restock on the product in the platform's admin (the stand-in), the customer reads the
 * back-in-stock email in the local mailbox and follows it to the product page; then unsubscribes from the
 * email's link.
 */
const stack = useAdminStack({ mailbox: true, env: { ALERT_GATHER_MS: "500" } });

beforeAll(async () => {
  await setEmbed(stack, true);
  const settings = alertSettingsSchema.parse({
    email: {
      enabled: true,
      fromName: "Demo Shop",
      fromAddress: "wishlist@demo-shop.example",
      smtp: { host: "127.0.0.1", port: stack.platform.mailbox!.port, security: "none" },
    },
  });
  await updateAlertSettingsText(database(), stack.shop.id, JSON.stringify(settings), new Date());
}, 120_000);

const reading = (productId: string) =>
  database()
    .selectFrom("CatalogueVariant")
    .select("inventoryQuantity")
    .where("shopId", "=", stack.shop.id)
    .where("productId", "=", productId)
    .execute();

describe("A back-in-stock email", { timeout: 240_000 }, () => {
  it("reaches the customer who saved the product, and its button opens the product page", async () => {
    // Ada logs in to the storefront and saves the sold-out tote from the grid.
    const { context, page } = await openStorefront(stack, "/account/login");
    await page.getByRole("button", { name: /^Ada Lovelace/ }).click();
    await page.goto(`${stack.platform.storefrontOrigin}/collections/all`);
    await scriptReady(page);
    await cardHeart(page, "Pebble Canvas Tote").click();
    await expect.poll(() => pressed(cardHeart(page, "Pebble Canvas Tote"))).toBe("true");
    await until(
      () => reading("8100000008"),
      (rows) => rows.length === 1 && rows[0]!.inventoryQuantity === 0,
      "the tote read",
    );

    // The merchant restocks it in the platform's admin.
    const adminContext = await stack.browser.newContext();
    const admin = await adminContext.newPage();
    trackPageErrors(admin);
    await admin.goto(
      `${stack.platform.origin}/store/${stack.shop.domain.replace(".myshopify.com", "")}/products/8100000008`,
    );
    await admin.getByRole("button", { name: "Restock Default Title" }).click();
    await admin.getByText("products/update").first().waitFor();

    // The email arrives in the local mailbox; Ada opens it.
    await until(
      () => stack.platform.mailbox!.messages(),
      (messages) => messages.length === 1,
      "the email",
      120_000,
    );
    await page.goto(`${stack.platform.origin}/mailbox`);
    await page.getByRole("link", { name: "Back in stock: Pebble Canvas Tote" }).click();
    const email = page.frameLocator("iframe[title='Message body']");
    await email.getByRole("heading", { name: "It’s back in stock" }).waitFor();
    await email.getByText("Pebble Canvas Tote", { exact: true }).first().waitFor();
    await screenshot(page, "alert-email-mailbox");

    // Its button goes through the shop's app proxy to the product page, and the click is recorded.
    // The email's links open a new window (target=_blank), as a mail client opens them in the browser.
    const [product] = await Promise.all([
      context.waitForEvent("page"),
      email
        .getByRole("link", { name: /View product/i })
        .first()
        .click(),
    ]);
    trackPageErrors(product);
    await product.waitForURL(`${stack.platform.storefrontOrigin}/products/pebble-canvas-tote`);
    await expect.poll(() => product.getByRole("heading", { level: 1 }).textContent()).toContain("Pebble Canvas Tote");
    expectNoPageErrors(product);
    const clicked = await until(
      () => database().selectFrom("Alert").select("clickedAt").where("shopId", "=", stack.shop.id).execute(),
      (rows) => rows[0]?.clickedAt != null,
      "the click recorded",
    );
    expect(clicked).toHaveLength(1);
    expectNoPageErrors(page);
    await context.close();
    await adminContext.close();
  });

  it("unsubscribes from the email's link, on a page with no accessibility violations", async () => {
    const [message] = stack.platform.mailbox!.messages();
    const url = /<(http[^>]+)>/.exec(String(message!.headers["list-unsubscribe"]))![1]!;
    const context = await stack.browser.newContext();
    const page = await context.newPage();
    trackPageErrors(page);
    await page.goto(url);
    await page.getByRole("heading", { name: "Unsubscribe from wishlist alerts" }).waitFor();
    const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
    expect(results.violations.map((violation) => violation.id)).toEqual([]);
    await screenshot(page, "alert-unsubscribe");
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await page.getByRole("heading", { name: "You are unsubscribed" }).waitFor();
    const rows = await database()
      .selectFrom("AlertSuppression")
      .select("reason")
      .where("shopId", "=", stack.shop.id)
      .execute();
    expect(rows).toEqual([{ reason: "unsubscribed" }]);
    expectNoPageErrors(page);
    await context.close();
  });
});
