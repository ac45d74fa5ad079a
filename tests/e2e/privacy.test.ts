import { describe, expect, it } from "vitest";
import { platformWebhook } from "../support/platform-webhooks";
import { expectNoPageErrors, screenshot, seriousAccessibilityViolations, useAdminStack } from "./support/admin";

const stack = useAdminStack();

/** A compliance webhook as the platform sends it: signed with the app's secret, to the app's own URL. */
async function sendComplianceWebhook(topic: string, body: object) {
  const request = platformWebhook(topic, stack.shop.domain, JSON.stringify(body));
  const response = await fetch(`${stack.appUrl}/webhooks/${topic}`, request);
  expect(response.status).toBe(200);
}

describe("the Privacy requests page", () => {
  it("lists the platform's requests with their state, and downloads a customer's data", async () => {
    // Customer 7001 saves two products, customer 7002 one.
    for (const [customerId, productId] of [
      ["7001", "8100000001"],
      ["7001", "8100000006"],
      ["7002", "8100000002"],
    ]) {
      const saved = await stack.api(`/storefront/wishlist/items?customerId=${customerId}`, {
        method: "POST",
        body: JSON.stringify({ productId, handle: `product-${productId}` }),
      });
      expect(saved.status).toBe(201);
    }
    const shopId = 1;
    await sendComplianceWebhook("customers/data_request", {
      shop_id: shopId,
      shop_domain: stack.shop.domain,
      customer: { id: 7001, email: "ada@example.com" },
      orders_requested: [],
      data_request: { id: 4242 },
    });
    await sendComplianceWebhook("customers/redact", {
      shop_id: shopId,
      shop_domain: stack.shop.domain,
      customer: { id: 7002, email: "grace@example.com" },
      orders_to_redact: [],
    });

    const { context, page, app } = await stack.openAdmin("/privacy");
    const rows = app.locator("tbody tr");
    // The page follows the requests by itself until the worker has done both.
    const link = app.getByRole("link", { name: "Download JSON" });
    await link.waitFor({ timeout: 90_000 });
    await expect.poll(() => rows.count()).toBe(2);
    await expect.poll(() => rows.nth(0).textContent()).toMatch(/Customer erasure.*Done.*Data erased/);
    expect(await rows.nth(1).textContent()).toMatch(/Customer data request.*Customer 7001.*Done/);

    const response = await fetch((await link.getAttribute("href"))!);
    expect(response.status).toBe(200);
    const file = (await response.json()) as {
      customerId: string;
      lists: Array<{ items: Array<{ productId: string }> }>;
    };
    expect(file.customerId).toBe("7001");
    expect(file.lists.flatMap((list) => list.items.map((item) => item.productId)).sort()).toEqual([
      "8100000001",
      "8100000006",
    ]);

    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await screenshot(page, "privacy");
    await context.close();
  }, 180_000);
});
