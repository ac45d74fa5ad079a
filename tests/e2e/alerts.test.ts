/**
 * The Alerts page in the browser (issue 29, item 5): a merchant opens it from the admin's menu, changes a
 * threshold and the mail server, saves and finds the saved state after a reload (the password only as "set"),
 * sends a test email that a real SMTP server on loopback receives, previews an email in another language,
 * reads the log and re-subscribes a customer from the suppression list after confirming it is their wish.
 */
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claimDueMessages,
  finishMessage,
  findSuppressed,
  insertAlerts,
  insertMessages,
  insertSuppression,
  markClicked,
} from "~/data/alert-rows.server";
import { database } from "~/data/database.server";
import { fillProductSnapshot } from "~/data/item-rows.server";
import { newId } from "~/lib/ids";
import { getAlertSettings } from "~/services/alerts/admin.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { startLoginMailbox } from "../support/login-mailbox";
import { expectNoPageErrors, screenshot, seriousAccessibilityViolations, useAdminStack } from "./support/admin";
import { clickWhenHydrated } from "./support/interaction";
import { inlineError, waitForHydration } from "./support/page-state";

const stack = useAdminStack({ worker: false });

// A mailbox that takes one login: a real SMTP server on loopback, which the web server may reach
// (WEBHOOK_ALLOWED_NETWORKS), and which refuses a wrong password.
const smtp = await startLoginMailbox({ username: "mailer", password: "s3cret pass" });
const mailbox = smtp.received;
const smtpPort = smtp.port;
afterAll(() => smtp.close());

const saveBar = (page: Page) => page.locator("#save-bar");
const saveBarButton = (page: Page, name: "Save" | "Discard") =>
  saveBar(page).getByRole("button", { name, exact: true });
const toast = (page: Page, text: string) => page.locator(".admin-toast", { hasText: text });
const openModal = (app: FrameLocator) => app.locator("dialog.ab-modal[open]");
const field = (app: FrameLocator, label: string) => app.getByLabel(label, { exact: true });

/** Written with the data layer, as the worker writes them: alerts of the last days, one emailed and clicked. */
beforeAll(async () => {
  const shopId = stack.shop.id;
  const [coat, hat] = [stack.standInShop.products[1]!, stack.standInShop.products[2]!];
  for (const product of [coat, hat]) {
    await toggleItem({
      shopId,
      owner: { kind: "customer", customerId: "7001" },
      item: { productId: product.id, handle: product.handle },
    });
    await fillProductSnapshot(database(), shopId, { ...product, productId: product.id }, new Date());
  }
  const now = Date.now();
  const message = async (customerId: string, at: Date, state: "sent" | "skipped", error?: string) => {
    const id = newId("alertMessage");
    await insertMessages(database(), [{ id, shopId, customerId, dueAt: at, createdAt: at }]);
    await claimDueMessages(database(), shopId, { now: at, limit: 10, leaseMs: 60_000 });
    await finishMessage(database(), shopId, id, { state, at, error });
    return id;
  };
  const alert = (customerId: string, productId: string, kind: string, at: Date, messageId: string | null) => ({
    id: newId("alert"),
    shopId,
    customerId,
    listId: newId("list"),
    itemId: newId("item"),
    productId,
    variantId: "",
    kind,
    oldPriceMinor: kind === "price_dropped" ? 24_900 : null,
    newPriceMinor: 18_900,
    quantity: kind === "low_stock" ? 2 : null,
    currency: "USD",
    changeKey: newId("event"),
    messageId,
    createdAt: at,
  });
  const sent = await message("7001", new Date(now - 3 * 3_600_000), "sent");
  const skipped = await message("7003", new Date(now - 2 * 3_600_000), "skipped", "no email marketing consent");
  const [clicked] = await insertAlerts(database(), [
    alert("7001", coat.id, "price_dropped", new Date(now - 3 * 3_600_000), sent),
    alert("7003", hat.id, "back_in_stock", new Date(now - 2 * 3_600_000), skipped),
    alert("7002", hat.id, "low_stock", new Date(now - 3_600_000), null),
  ]);
  await markClicked(database(), shopId, clicked!.id, new Date(now - 2.5 * 3_600_000));
  await insertSuppression(database(), shopId, {
    customerId: "7002",
    reason: "unsubscribed",
    at: new Date(now - 86_400_000),
  });
  await insertSuppression(database(), shopId, {
    customerId: "7004",
    reason: "bounced",
    detail: "550 5.1.1 <katherine@example.com>: mailbox unavailable",
    at: new Date(now - 2 * 86_400_000),
  });
}, 60_000);

describe("the Alerts page", () => {
  it("saves a threshold and the mail server, sends a test email, previews an email, and re-subscribes a customer", async () => {
    // GIVEN the admin's home; the merchant opens Alerts from the menu the admin draws
    const { context, page, app } = await stack.openAdmin();
    await page.locator("#app-nav a", { hasText: "Alerts" }).click();
    await waitForHydration(page);
    const threshold = field(app, "Smallest price drop (%)");
    await threshold.waitFor({ timeout: 90_000 });
    expect(await threshold.inputValue()).toBe("10");
    expect(await app.getByText("Not set. It is stored encrypted and never shown again.").count()).toBe(1);
    expect(await app.getByRole("region", { name: "Alerts in the last 7, 30 and 90 days" }).textContent()).toContain(
      "Price-drop alerts",
    );

    // WHEN the merchant asks for a 0 % drop, the field says what is wrong and nothing is saved
    await threshold.fill("0");
    await saveBar(page).waitFor({ timeout: 90_000 });
    await saveBarButton(page, "Save").click();
    await expect.poll(() => inlineError(app, "Smallest price drop (%)"), { timeout: 90_000 }).toMatch(/>=1/);
    expect((await getAlertSettings({ shopId: stack.shop.id })).settings.priceDrop.minPercent).toBe(10);

    // and with 20 %, the email channel on and their mail server, it is saved
    await threshold.fill("20");
    await field(app, "Send alert emails").click();
    await field(app, "From name").fill("Harbor & Co");
    await field(app, "From address").fill("wishlist@harbor.example");
    await field(app, "SMTP server").fill("127.0.0.1");
    await field(app, "Port").fill(String(smtpPort));
    await field(app, "Security").selectOption("none");
    await field(app, "Username").fill("mailer");
    await field(app, "Password").fill("s3cret pass");
    expect(await app.getByText("Save your changes first: the test uses the saved settings.").isVisible()).toBe(true);
    await saveBarButton(page, "Save").click();
    await toast(page, "Alert settings saved").waitFor({ timeout: 90_000 });
    await saveBar(page).waitFor({ state: "hidden", timeout: 90_000 });
    const stored = await getAlertSettings({ shopId: stack.shop.id });
    expect(stored).toMatchObject({
      passwordSet: true,
      settings: {
        priceDrop: { minPercent: 20 },
        email: {
          enabled: true,
          fromName: "Harbor & Co",
          smtp: { host: "127.0.0.1", port: smtpPort, security: "none", username: "mailer" },
        },
      },
    });

    // THEN a fresh page shows what was saved, and the password only as set
    await page.reload();
    await waitForHydration(page);
    await threshold.waitFor({ timeout: 90_000 });
    expect(await threshold.inputValue()).toBe("20");
    expect(await field(app, "Send alert emails").isChecked()).toBe(true);
    expect(await field(app, "SMTP server").inputValue()).toBe("127.0.0.1");
    expect(await field(app, "Security").inputValue()).toBe("none");
    expect(await field(app, "Password").inputValue()).toBe("");
    expect(await app.getByText(/^Set\. Leave this empty to keep it/).count()).toBe(1);
    expect(await app.locator("body").innerHTML()).not.toContain("s3cret");
    // The email channel at the top of the frame: its audience, the consequence stated, the mail server
    await app
      .getByRole("heading", { name: "Email", exact: true })
      .evaluate((heading) => heading.scrollIntoView({ block: "start" }));
    await screenshot(page, "alerts-settings");

    // A test email to the merchant reaches the mail server, and the page shows the server's answer
    // Test emails go to the shop's contact email only (the platform's shop.email): the field shows it, read-only.
    expect(await field(app, "Send to").inputValue()).toBe(`owner@${stack.shop.domain}`);
    expect(await field(app, "Send to").isEditable()).toBe(false);
    await clickWhenHydrated(app.getByRole("button", { name: "Send test email" }));
    await app
      .getByText(`The mail server accepted the test email to owner@${stack.shop.domain}`)
      .waitFor({ timeout: 90_000 });
    await expect.poll(() => mailbox.length, { timeout: 30_000 }).toBe(1);
    expect(mailbox[0]!.rcptTo).toEqual([`owner@${stack.shop.domain}`]);
    expect(mailbox[0]!.mail.subject).toMatch(/^Back in stock: /);

    // The price drop email in French: the subject above, the email in a frame that runs no script
    await field(app, "Email").selectOption("price_dropped");
    await field(app, "Language").selectOption("fr");
    const subject = app.locator("[data-preview-subject]");
    await expect.poll(() => subject.textContent(), { timeout: 90_000 }).toMatch(/^Baisse de prix\u00a0: /);
    const preview = app.locator("iframe[srcdoc]");
    expect(await preview.getAttribute("sandbox")).toBe("");
    expect(await preview.getAttribute("srcdoc")).toContain('lang="fr"');
    expect(await preview.getAttribute("title")).toMatch(/^Email preview: Baisse de prix/);
    await expect
      .poll(() => app.frameLocator("iframe[srcdoc]").getByRole("heading", { level: 1 }).textContent(), {
        timeout: 30_000,
      })
      .toBe("Le prix a baissé");

    // The log names the customers and products, the email's fate and the click
    const log = app.getByRole("region", { name: "Alert log" });
    const clickedRow = log.locator("tbody tr", { hasText: "Harbor Wool Coat" });
    await clickedRow.scrollIntoViewIfNeeded();
    expect(await clickedRow.textContent()).toMatch(/Ada Lovelace.*Harbor Wool Coat.*Price drop.*Email.*Sent/);
    expect(await log.locator("tbody tr", { hasText: "Alan Turing" }).textContent()).toContain(
      "no email marketing consent",
    );
    expect(await log.locator("tbody tr", { hasText: "Grace Hopper" }).textContent()).toMatch(
      /Low stock.*None.*No email/,
    );
    await screenshot(page, "alerts-log");

    // Re-subscribing Grace asks first, then takes her off the list
    const suppressed = app.getByRole("region", { name: "Suppression list" });
    await suppressed.scrollIntoViewIfNeeded();
    expect(await suppressed.locator("tbody tr").count()).toBe(2);
    await clickWhenHydrated(suppressed.getByRole("button", { name: "Re-subscribe Grace Hopper" }));
    await openModal(app).waitFor({ timeout: 90_000 });
    expect(await openModal(app).textContent()).toContain("Do this only on the customer's word");
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await openModal(app).locator(".ab-modal__footer button", { hasText: "Re-subscribe" }).click();
    await toast(page, "Customer re-subscribed").waitFor({ timeout: 90_000 });
    await expect.poll(() => suppressed.locator("tbody tr", { hasText: "Grace Hopper" }).count()).toBe(0);
    expect(await suppressed.locator("tbody tr", { hasText: "Katherine Johnson" }).textContent()).toContain(
      "mailbox unavailable",
    );
    expect([...(await findSuppressed(database(), stack.shop.id, ["7002", "7004"])).keys()]).toEqual(["7004"]);

    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();
  }, 240_000);
});
