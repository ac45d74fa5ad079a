/**
 * Issue 30's story from one end to the other, as people meet it on this machine: Ada, logged in to the
 * storefront, saves the sold-out tote (the theme extension's heart, through the app proxy); the merchant has
 * back-in-stock emails on and restocks the tote in the platform's admin (the stand-in sends its signed
 * products/update and inventory_levels/update); the real worker sends Ada the email through the stand-in's
 * mailbox (real SMTP); she follows its product link (the tracked click) and buys the tote at the stand-in's
 * checkout (signed orders/create and orders/paid); the merchant then finds that sale on Home (this month's
 * influenced revenue) and on Insights (the revenue, and the back-in-stock alert as its source), to the cent of
 * the order's line.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { formatMoney } from "~/lib/money";
import { minorUnits } from "../../stand-in/money";
import { until } from "../support/poll";
import { expectNoPageErrors, screenshot, seriousAccessibilityViolations, useAdminStack } from "./support/admin";
import {
  followProductLink,
  mailboxHolds,
  openEmail,
  readSoldOut,
  restockInPlatformAdmin,
  sendAlertEmailsToMailbox,
} from "./support/alert-email";
import {
  buyFromProductPage,
  cardHeart,
  logIn,
  openStorefront,
  pageViolations,
  pressed,
  scriptReady,
  setEmbed,
} from "./support/online-store";
import { figureUnder, region, tableRows } from "./support/page-state";

const stack = useAdminStack({ mailbox: true, env: { ALERT_GATHER_MS: "500" } });

beforeAll(async () => {
  await setEmbed(stack, true);
  await sendAlertEmailsToMailbox(stack);
}, 120_000);

const ADA = "7001";
const usd = (minor: number) => formatMoney(minor, "USD", "en");

describe("A wishlist sale after a back-in-stock email", { timeout: 600_000 }, () => {
  it("is counted from the customer's save to the merchant's Home and Insights, with the alert as its source", async () => {
    const tote = stack.standInShop.products.find((product) => product.handle === "pebble-canvas-tote")!;

    // GIVEN Ada, logged in, saves the sold-out tote from the grid, and the worker has read it sold out
    const { context, page } = await openStorefront(stack);
    await logIn(stack, page, /^Ada Lovelace/);
    await page.goto(`${stack.platform.storefrontOrigin}/collections/all`);
    await scriptReady(page);
    await cardHeart(page, tote.title).click();
    await expect.poll(() => pressed(cardHeart(page, tote.title))).toBe("true");
    await readSoldOut(stack, tote.id);

    // WHEN the merchant restocks it in the platform's admin
    await restockInPlatformAdmin(stack, tote.id);

    // THEN the worker sends Ada the back-in-stock email; she opens it in the mailbox
    const [message] = await mailboxHolds(stack, 1);
    expect(message!.to).toEqual(["ada@example.com"]);
    const email = await openEmail(stack, page, `Back in stock: ${tote.title}`);
    await email.getByRole("heading", { name: "It’s back in stock" }).waitFor();

    // WHEN she follows its product link: the click is recorded on her back-in-stock alert
    const product = await followProductLink(stack, context, email, tote);
    const [alert] = await until(
      () =>
        database()
          .selectFrom("Alert")
          .select(["id", "customerId", "productId", "kind", "clickedAt"])
          .where("shopId", "=", stack.shop.id)
          .execute(),
      (rows) => rows.length === 1 && rows[0]!.clickedAt !== null,
      "the email's click recorded",
    );
    expect(alert).toMatchObject({ customerId: ADA, productId: tote.id, kind: "back_in_stock" });

    // AND buys the tote on the product page it opened, at the storefront's checkout
    const order = await buyFromProductPage(stack, product);
    expect(await product.getByRole("heading", { level: 1 }).textContent()).toBe("Thank you, Ada!");
    expect(order.customer?.id).toBe(Number(ADA));
    expect(order.line_items).toHaveLength(1);
    const [line] = order.line_items;
    expect(line).toMatchObject({ product_id: Number(tote.id), quantity: 1 });
    // The order's line amount: its price times its quantity, less its discount (none here).
    const lineMinor = minorUnits(line!.price) * line!.quantity - minorUnits(line!.total_discount);
    expect(lineMinor).toBeGreaterThan(0);

    // THEN the app matched the line to Ada's save and to the alert she followed
    const conversions = await database()
      .selectFrom("Conversion")
      .select(["orderId", "customerId", "productId", "amountMinor", "currency", "source", "alertId"])
      .where("shopId", "=", stack.shop.id)
      .execute();
    expect(conversions).toEqual([
      {
        orderId: String(order.id),
        customerId: ADA,
        productId: tote.id,
        amountMinor: lineMinor,
        currency: "USD",
        source: "back_in_stock",
        alertId: alert!.id,
      },
    ]);
    expect(await pageViolations(product)).toEqual([]);
    expectNoPageErrors(product);
    expectNoPageErrors(page);
    await context.close();

    // AND the merchant's Home shows the sale as this month's wishlist-influenced revenue
    const admin = await stack.openAdmin();
    const usage = region(admin.app, "Usage");
    await usage.waitFor({ timeout: 90_000 });
    expect(await figureUnder(usage, "Wishlist-influenced revenue this month")).toBe(usd(lineMinor));
    expect(await seriousAccessibilityViolations(admin.page)).toEqual([]);

    // AND Insights, which Home leads to, shows it as the range's revenue, brought by the back-in-stock alert
    await usage.getByRole("link", { name: "View insights" }).click();
    const revenue = region(admin.app, "Wishlist-influenced revenue");
    await revenue.waitFor({ timeout: 90_000 });
    expect(await revenue.innerText()).toContain(`${usd(lineMinor)} ordered, ${usd(0)} refunded.`);
    expect(await figureUnder(revenue, "Wishlist-influenced revenue")).toBe(usd(lineMinor));
    expect(await region(admin.app, "Orders").innerText()).toContain("1 placed, 0 of them cancelled");
    expect(await tableRows(admin.app, "Revenue after alerts and reminders")).toEqual([
      ["No alert or reminder", usd(0), "0"],
      ["Back-in-stock alert", usd(lineMinor), "1"],
      ["Price-drop alert", usd(0), "0"],
      ["Low-stock alert", usd(0), "0"],
      ["Reminder", usd(0), "0"],
    ]);
    expect(await tableRows(admin.app, "Top converting products")).toEqual([
      [tote.title, tote.handle, "1", "1", usd(lineMinor)],
    ]);
    expect(await seriousAccessibilityViolations(admin.page)).toEqual([]);
    // The picture shows the sale by source, with the revenue per day above it.
    await region(admin.app, "Revenue after alerts and reminders").evaluate((card) =>
      card.scrollIntoView({ block: "end" }),
    );
    await screenshot(admin.page, "insights-alert-revenue");
    expectNoPageErrors(admin.page);
    await admin.context.close();

    // AND Ada's list in the admin shows the tote bought (Settings keep bought items by default)
    const list = await database()
      .selectFrom("List")
      .select("id")
      .where("shopId", "=", stack.shop.id)
      .where("customerId", "=", ADA)
      .executeTakeFirstOrThrow();
    const listPage = await stack.openAdmin(`/lists/${list.id}`);
    const toteRow = listPage.app.getByRole("row").filter({ hasText: tote.title });
    await toteRow.waitFor({ timeout: 90_000 });
    expect(await toteRow.innerText()).toMatch(/Bought /);
    expect(await seriousAccessibilityViolations(listPage.page)).toEqual([]);
    expectNoPageErrors(listPage.page);
    await listPage.context.close();
  });
});
