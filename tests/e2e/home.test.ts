import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { setEndpointHealth } from "../support/webhook-rows";
import {
  appFrame,
  expectNoPageErrors,
  screenshot,
  seriousAccessibilityViolations,
  useAdminStack,
} from "./support/admin";

const stack = useAdminStack();

/** One step of the setup guide, found by its heading ("1. Turn on the app embed"). */
const step = (app: Awaited<ReturnType<typeof stack.openAdmin>>["app"], number: number) =>
  app.getByRole("listitem").filter({ has: app.getByRole("heading", { name: new RegExp(`^${number}\\. `) }) });

async function embedState(): Promise<string> {
  const response = await stack.api("/shop/embed-status");
  return ((await response.json()) as { state: string }).state;
}

describe("Home", { timeout: 180_000 }, () => {
  it("turns the app embed on: the deep link opens the theme editor with the embed checked, saving there enables it", async () => {
    const { context, page, app } = await stack.openAdmin();
    await app.getByRole("heading", { name: "Setup guide" }).waitFor({ timeout: 90_000 });
    await expect.poll(() => step(app, 1).textContent()).toMatch(/To do.*Not added/);
    expect(await embedState()).toBe("not_added");

    const link = app.getByRole("link", { name: "Turn on in the theme editor" });
    expect(await link.getAttribute("href")).toBe(
      "shopify://admin/themes/current/editor?context=apps&activateAppId=local-dev-api-key/app-embed",
    );
    // App Bridge opens shopify://admin links in the admin around the app: here, the stand-in's theme editor.
    await link.click();
    await page.waitForURL(/\/themes\/current\/editor\?context=apps&activateAppId=/, { timeout: 90_000 });
    const embedSwitch = page.getByRole("checkbox", { name: "Wishlist: app embed" });
    expect(await embedSwitch.isChecked()).toBe(true);
    // Opening the editor changes nothing until the merchant saves.
    expect(await embedState()).toBe("not_added");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(/saved=1/);
    await expect.poll(embedState).toBe("enabled");

    await page.getByRole("link", { name: "Back to Wishlist" }).click();
    await app.getByRole("heading", { name: "Setup guide" }).waitFor({ timeout: 90_000 });
    await expect.poll(() => step(app, 1).textContent()).toMatch(/Done.*Enabled/);
    expect(await step(app, 1).getByRole("link", { name: "Open the theme editor" }).isVisible()).toBe(true);
    await context.close();
  });

  it("marks the share page step done when the path is the merchant's own, or when they keep the default one", async () => {
    const { context, page, app } = await stack.openAdmin();
    await app.getByRole("heading", { name: "Setup guide" }).waitFor({ timeout: 90_000 });
    expect(await step(app, 2).textContent()).toContain("To do");
    expect(await step(app, 2).textContent()).toContain(`https://${stack.shop.domain}/pages/wishlist`);

    // A path of their own counts as a choice made.
    const patch = (sharePath: string) =>
      stack.api("/shop/settings", { method: "PATCH", body: JSON.stringify({ sharePath }) });
    expect((await patch("/pages/saved-for-later")).status).toBe(200);
    await page.reload();
    await expect.poll(() => step(app, 2).textContent()).toContain("Done");
    expect(await step(app, 2).textContent()).toContain(`https://${stack.shop.domain}/pages/saved-for-later`);

    // Back on the default path, the step waits for the merchant to keep it.
    expect((await patch("/pages/wishlist")).status).toBe(200);
    await page.reload();
    await expect.poll(() => step(app, 2).textContent()).toContain("To do");
    await step(app, 2).getByRole("button", { name: "Keep this page" }).click();
    await expect.poll(() => step(app, 2).textContent()).toContain("Done");
    expect(await step(app, 2).getByRole("button", { name: "Keep this page" }).count()).toBe(0);
    // Kept: a reload reads it back, and the settings did not change.
    await page.reload();
    await expect.poll(() => step(app, 2).textContent()).toContain("Done");
    const shop = (await (await stack.api("/shop")).json()) as { settings: { sharePath: string } };
    expect(shop.settings.sharePath).toBe("/pages/wishlist");
    // The shop has a private key (the test's own): the optional headless step is done.
    expect(await step(app, 3).textContent()).toContain("Done");
    await context.close();
  });

  it("shows the usage and the most saved products with their names from the platform", async () => {
    // Saved through the API without titles: the names come from the platform's Admin API.
    const [shirt, coat, hat] = stack.standInShop.products;
    const saves: Array<[string, typeof shirt]> = [
      ["7001", shirt],
      ["7002", shirt],
      ["7003", shirt],
      ["7001", coat],
      ["7002", coat],
      ["7001", hat],
    ];
    for (const [customerId, product] of saves) {
      const response = await stack.api("/storefront/wishlist/toggle", {
        method: "POST",
        body: JSON.stringify({ customerId, productId: product!.id, handle: product!.handle }),
      });
      expect(response.status).toBe(200);
    }
    // The worker folds the events into the rollups; the API reads the same rollups as the page.
    await expect
      .poll(
        async () =>
          ((await (await stack.api("/analytics/activity?range=30d")).json()) as { totals: { adds: number } }).totals
            .adds,
      )
      .toBe(6);

    const { context, page, app } = await stack.openAdmin();
    const usage = app.getByRole("region", { name: "Usage" });
    await usage.waitFor({ timeout: 90_000 });
    expect(await usage.innerText()).toMatch(/Lists\s+3\s+Saved items\s+6\s+Saves in the last 30 days\s+6/);
    const top = app.getByRole("region", { name: "Most saved products, last 30 days" }).getByRole("table");
    const rows = await top.getByRole("row").allInnerTexts();
    expect(rows.slice(1).map((row) => row.split("\t").map((cell) => cell.trim()))).toEqual([
      [shirt!.title, shirt!.handle, "3"],
      [coat!.title, coat!.handle, "2"],
      [hat!.title, hat!.handle, "1"],
    ]);

    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await screenshot(page, "home");
    await context.close();
  });

  it("warns when the platform cannot tell the embed status, and still shows the rest of the page", async () => {
    // The platform's Admin API fails on the theme (it answers errors and no data).
    const theme = Object.getOwnPropertyDescriptor(stack.standInShop, "theme")!;
    Object.defineProperty(stack.standInShop, "theme", {
      configurable: true,
      get() {
        throw new Error("themes are unavailable");
      },
    });
    try {
      const { context, page, app } = await stack.openAdmin();
      await app.getByRole("heading", { name: "Setup guide" }).waitFor({ timeout: 90_000 });
      expect(await step(app, 1).textContent()).toContain("The app embed could not be checked");
      expect(await app.getByRole("heading", { name: "Usage" }).isVisible()).toBe(true);
      expect(await step(app, 1).getByRole("link", { name: "Turn on in the theme editor" }).isVisible()).toBe(true);
      expectNoPageErrors(page);
      await context.close();
    } finally {
      Object.defineProperty(stack.standInShop, "theme", theme);
    }
  });

  it("shows the disabled-endpoints banner while a webhook endpoint of the shop is disabled", async () => {
    const created = await stack.api("/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: "http://127.0.0.1:9/hooks", events: ["item.added"] }),
    });
    expect(created.status).toBe(201);
    const endpoint = (await created.json()) as { id: string };

    const { context, page, app } = await stack.openAdmin();
    await app.getByRole("heading", { name: "Setup guide" }).waitFor({ timeout: 90_000 });
    expect(await app.getByText("webhook endpoint is disabled").count()).toBe(0);

    await setEndpointHealth(
      database(),
      stack.shop.id,
      endpoint.id,
      { failCount: 20, disabledAt: new Date() },
      new Date(),
    );
    await page.reload();
    const banner = app.getByText("A webhook endpoint is disabled and receives no events");
    await banner.waitFor({ timeout: 90_000 });
    expect(await app.getByText("http://127.0.0.1:9/hooks").isVisible()).toBe(true);
    expect(await app.getByRole("button", { name: "Re-enable http://127.0.0.1:9/hooks" }).isVisible()).toBe(true);
    // The banner leads the page.
    const frame = await appFrame(page);
    const order = await frame.evaluate(() => {
      const text = document.body.innerText;
      return [text.indexOf("webhook endpoint is disabled"), text.indexOf("Setup guide")];
    });
    expect(order[0]).toBeGreaterThanOrEqual(0);
    expect(order[0]).toBeLessThan(order[1]!);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();
  });
});
