import AxeBuilder from "@axe-core/playwright";
import { beforeAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { until } from "../support/poll";
import { expectNoPageErrors, screenshot, trackPageErrors, useAdminStack } from "./support/admin";
import {
  followProductLink,
  mailboxHolds,
  openEmail,
  readSoldOut,
  restockInPlatformAdmin,
  sendAlertEmailsToMailbox,
} from "./support/alert-email";
import { cardHeart, logIn, openStorefront, pressed, scriptReady, setEmbed } from "./support/online-store";

/**
 * Issue 29, as people meet it on this machine: a customer saves the sold-out tote in the storefront, the
 * merchant clicks Restock on the product in the platform's admin (the stand-in), the customer reads the
 * back-in-stock email in the local mailbox and follows it to the product page; then unsubscribes from the
 * email's link.
 */
const stack = useAdminStack({ mailbox: true, env: { ALERT_GATHER_MS: "500" } });

beforeAll(async () => {
  await setEmbed(stack, true);
  await sendAlertEmailsToMailbox(stack);
}, 120_000);

describe("A back-in-stock email", { timeout: 240_000 }, () => {
  it("reaches the customer who saved the product, and its button opens the product page", async () => {
    // Ada logs in to the storefront and saves the sold-out tote from the grid.
    const { context, page } = await openStorefront(stack);
    await logIn(stack, page, /^Ada Lovelace/);
    await page.goto(`${stack.platform.storefrontOrigin}/collections/all`);
    await scriptReady(page);
    await cardHeart(page, "Pebble Canvas Tote").click();
    await expect.poll(() => pressed(cardHeart(page, "Pebble Canvas Tote"))).toBe("true");
    await readSoldOut(stack, "8100000008");

    // The merchant restocks it in the platform's admin.
    await restockInPlatformAdmin(stack, "8100000008");

    // The email arrives in the local mailbox; Ada opens it.
    await mailboxHolds(stack, 1);
    const email = await openEmail(stack, page, "Back in stock: Pebble Canvas Tote");
    await email.getByRole("heading", { name: "It’s back in stock" }).waitFor();
    await email.getByText("Pebble Canvas Tote", { exact: true }).first().waitFor();
    await screenshot(page, "alert-email-mailbox");

    // Its button goes through the shop's app proxy to the product page, and the click is recorded.
    const product = await followProductLink(stack, context, email, {
      handle: "pebble-canvas-tote",
      title: "Pebble Canvas Tote",
    });
    expectNoPageErrors(product);
    const clicked = await until(
      () => database().selectFrom("Alert").select("clickedAt").where("shopId", "=", stack.shop.id).execute(),
      (rows) => rows[0]?.clickedAt != null,
      "the click recorded",
    );
    expect(clicked).toHaveLength(1);
    expectNoPageErrors(page);
    await context.close();
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
