import type { FrameLocator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { expectNoPageErrors, seriousAccessibilityViolations, useAdminStack } from "./support/admin";
import { clickTitleBarAction } from "./support/interaction";

// As in production: endpoint URLs must be https (WEBHOOK_ALLOW_HTTP unset there; docs/webhooks.md).
const stack = useAdminStack({ env: { WEBHOOK_ALLOW_HTTP: "false" }, worker: false });

async function openAddEndpoint(page: Page, app: FrameLocator) {
  await clickTitleBarAction(page, app, "Add endpoint");
  await app.locator("dialog.ab-modal[open]").waitFor();
}

describe("adding a webhook endpoint where plain http is not allowed", { timeout: 180_000 }, () => {
  it("shows that the URL must be https next to the field and creates nothing; an https URL is added", async () => {
    const { context, page, app } = await stack.openAdmin("/webhooks");
    await openAddEndpoint(page, app);
    const modal = app.locator("dialog.ab-modal[open]");
    const submit = modal.locator(".ab-modal__footer button", { hasText: "Add endpoint" });
    await app.getByLabel("Endpoint URL").fill("http://receiver.example/hooks");
    await app.getByLabel("item.added").check();
    await submit.click();

    await modal.getByText("must use https", { exact: true }).waitFor({ timeout: 90_000 });
    expect(await app.getByLabel("Endpoint URL").getAttribute("aria-invalid")).toBe("true");
    expect(await app.getByLabel("Signing secret").count()).toBe(0);
    expect(await (await stack.api("/webhooks")).json()).toEqual([]);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await app.getByLabel("Endpoint URL").fill("https://receiver.example/hooks");
    await submit.click();
    await app.getByLabel("Signing secret").waitFor({ timeout: 90_000 });
    expect(await (await stack.api("/webhooks")).json()).toMatchObject([
      { url: "https://receiver.example/hooks", events: ["item.added"] },
    ]);
    expectNoPageErrors(page);
    await context.close();
  });
});
