import { describe, expect, it } from "vitest";
import { expectNoPageErrors, screenshot, seriousAccessibilityViolations, useAdminStack } from "./support/admin";
import { waitForHydration } from "./support/page-state";
import { setShopPlan } from "../factories";

/**
 * The Plan page and the platform's confirmation flow, as a merchant goes through them, on the platform stand-in
 * (docs/decisions/062-plans-and-billing.md): upgrade, approve on the platform's page and come back on the new
 * plan; decline and keep it; a declined payment's grace; a downgrade to Free confirmed in a modal. The platform's
 * subscription webhooks reach the real web process on the way.
 */
const stack = useAdminStack({ worker: false });

const plan = async () => ((await (await stack.api("/shop")).json()) as { plan: string }).plan;
const subscriptions = () => stack.platform.billing.subscriptions(stack.shop.domain);
/** The subscription webhooks the stand-in sent, and the app's answers. */
const subscriptionWebhooks = () =>
  stack.platform.sentWebhooks.filter((sent) => sent.topic === "app_subscriptions/update");

describe("the Plan page", () => {
  it("upgrades through the platform's confirmation page, keeps the plan when a change is declined, holds it through a declined payment, and downgrades to Free behind a confirmation", async () => {
    // GIVEN a shop on the Free plan
    const { context, page, app } = await stack.openAdmin("/plan");
    await waitForHydration(page);
    await app.getByRole("heading", { name: "Free plan" }).waitFor({ timeout: 90_000 });
    const usage = app.getByRole("progressbar", { name: "Alert and reminder emails per month" });
    await usage.waitFor();
    expect(await app.getByText("0 of 200").count()).toBe(1);
    const table = app.getByRole("table");
    for (const row of ["Demand insights", "REST API, SDK and webhooks", "Revenue reports"]) {
      expect(await table.getByRole("row").filter({ hasText: row }).count(), row).toBe(1);
    }
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, "plan-free");

    // WHEN the merchant upgrades to Growth: the platform's confirmation page, outside the app's frame
    await app.getByRole("button", { name: "Upgrade to Growth" }).click();
    await page.waitForURL(/\/charges\/\d+\/confirm/, { timeout: 90_000 });
    const confirmation = await page.locator("body").textContent();
    expect(confirmation).toContain("Growth");
    expect(confirmation).toContain("$9.99");
    expect(confirmation).toMatch(/14[- ]day/);
    expect(confirmation).toMatch(/test/i);
    await screenshot(page, "plan-confirmation");
    await page.getByRole("button", { name: "Approve" }).click();

    // THEN back in the admin, on the Growth plan, and the webhook the platform sent was taken
    await page.waitForURL(/\/apps\/wishlist-service\/plan\?.*charge_id=/, { timeout: 90_000 });
    await app.getByRole("heading", { name: "Growth plan" }).waitFor({ timeout: 90_000 });
    await app.getByText("Approved: your plan is now Growth.").waitFor();
    expect(await plan()).toBe("GROWTH");
    await expect.poll(() => subscriptionWebhooks().map((sent) => sent.status)).toEqual([200]);
    expect(await app.getByText("0 of 5,000").count()).toBe(1);
    await screenshot(page, "plan-growth");

    // WHEN the merchant asks for Plus and declines it on the platform's page: still Growth
    await app.getByRole("button", { name: "Upgrade to Plus" }).click();
    await page.waitForURL(/\/charges\/\d+\/confirm/, { timeout: 90_000 });
    await page.getByRole("button", { name: "Decline" }).click();
    await page.waitForURL(/charge_id=/, { timeout: 90_000 });
    await app.getByText("The change was not approved: your plan is still Growth.").waitFor({ timeout: 90_000 });
    await app.getByRole("heading", { name: "Growth plan" }).waitFor();
    expect(await plan()).toBe("GROWTH");
    expect(subscriptions().map((subscription) => [subscription.name, subscription.status])).toEqual([
      ["Growth", "ACTIVE"],
      ["Plus", "DECLINED"],
    ]);

    // WHEN the platform declines a payment: the plan holds, and the page says until when
    const growth = subscriptions()[0]!;
    expect((await stack.platform.billing.freeze(stack.shop.domain, growth.id)).status).toBe(200);
    await page.reload();
    await app.getByText("Your last payment was declined").waitFor({ timeout: 90_000 });
    await app.getByRole("heading", { name: "Growth plan" }).waitFor();
    expect(await plan()).toBe("GROWTH");
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, "plan-payment-declined");
    expect((await stack.platform.billing.pay(stack.shop.domain, growth.id)).status).toBe(200);
    await page.reload();
    await app.getByRole("heading", { name: "Growth plan" }).waitFor({ timeout: 90_000 });
    expect(await app.getByText("Your last payment was declined").count()).toBe(0);

    // WHEN the merchant downgrades to Free: a confirmation first, then the subscription is cancelled
    await app.getByRole("button", { name: "Downgrade to Free" }).click();
    const modal = app.locator("dialog.ab-modal[open]");
    await modal.waitFor({ timeout: 90_000 });
    expect(await modal.textContent()).toContain("Every list, report and setting is kept");
    await modal.getByRole("button", { name: "Downgrade to Free" }).click();
    await app.getByRole("heading", { name: "Free plan" }).waitFor({ timeout: 90_000 });
    expect(await plan()).toBe("FREE");
    await expect
      .poll(() => subscriptions().map((subscription) => subscription.status))
      .toEqual(["CANCELLED", "DECLINED"]);
    // The billing request's answer to the page's fetch: 401 with the confirmation page's address, which App
    // Bridge follows (the browser logs the status); the page leaving then aborts the form's revalidation.
    expectNoPageErrors(page, [/^HTTP 401 POST \S+\/app\/plan\.data\?/, /^signal is aborted without reason$/]);
    await context.close();
  });

  it("shows where the demand insights would be on the Insights page, with the way to the plans, and the rest of the page", async () => {
    const { context, page, app } = await stack.openAdmin("/insights");
    await waitForHydration(page);
    await app.getByText("Demand insights are on the Growth plan").waitFor({ timeout: 90_000 });
    const link = app.getByRole("link", { name: "Compare plans" });
    await link.click();
    await app.getByRole("heading", { name: "Free plan" }).waitFor({ timeout: 90_000 });
    expectNoPageErrors(page);
    await context.close();
  });

  it("says so and keeps the plan when the platform refuses the change (a subscription it does not know)", async () => {
    // The shop's record names a subscription the platform never made.
    await setShopPlan(stack.shop.id, "GROWTH");
    const { context, page, app } = await stack.openAdmin("/plan");
    await waitForHydration(page);
    await app.getByRole("heading", { name: "Growth plan" }).waitFor({ timeout: 90_000 });
    await app.getByRole("button", { name: "Downgrade to Free" }).click();
    const modal = app.locator("dialog.ab-modal[open]");
    await modal.waitFor({ timeout: 90_000 });
    await modal.getByRole("button", { name: "Downgrade to Free" }).click();
    await page
      .locator(".admin-toast", { hasText: "The platform did not take the plan change. Try again." })
      .waitFor({ timeout: 90_000 });
    expect(await plan()).toBe("GROWTH");
    await app.getByRole("heading", { name: "Growth plan" }).waitFor();
    expectNoPageErrors(page);
    await context.close();
  });
});
