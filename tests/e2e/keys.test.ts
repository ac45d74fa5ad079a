import { randomUUID } from "node:crypto";
import type { FrameLocator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  appFrame,
  expectNoPageErrors,
  screenshot,
  seriousAccessibilityViolations,
  useAdminStack,
} from "./support/admin";
import { inlineError, waitForHydration } from "./support/page-state";

const stack = useAdminStack({ worker: false });

interface ListedKey {
  id: string;
  label: string;
  revokedAt: string | null;
}

/** The shop's keys as the API lists them (GET /v1/keys). */
async function listedKeys(): Promise<ListedKey[]> {
  const response = await stack.api("/keys");
  expect(response.status).toBe(200);
  return response.json();
}

/** The status GET /v1/shop answers a call made with this secret. */
async function shopStatusWith(secret: string) {
  const response = await fetch(`${stack.appUrl}/v1/shop`, { headers: { Authorization: `Bearer ${secret}` } });
  return response.status;
}

/** Everything the admin page and the app's frame hold, hidden markup and field values included. */
async function everythingOnThePage(page: Page) {
  const frame = await appFrame(page);
  const values = await frame.evaluate(() =>
    [...document.querySelectorAll("input, textarea")].map((field) => (field as HTMLInputElement).value),
  );
  return [await page.content(), await frame.content(), ...values].join("\n");
}

const openModal = (app: FrameLocator) => app.locator("dialog.ab-modal[open]");
const row = (app: FrameLocator, label: string) => app.getByRole("row").filter({ hasText: label });

describe("the API keys page", () => {
  it("creates a key whose secret is shown once, and revokes it behind a confirmation", async () => {
    // GIVEN the shop's test key only
    const before = await listedKeys();
    expect(before.map((key) => key.label)).toEqual(["test key"]);
    const { context, page, app } = await stack.openAdmin("/keys");
    await waitForHydration(page);
    await app.getByText(stack.shop.publicKey).waitFor({ timeout: 90_000 });
    await row(app, "test key").waitFor();
    expect(await row(app, "test key").textContent()).toContain("Active");

    // WHEN the merchant creates a key without a label: an inline error, and no key
    await page.locator("#title-bar-actions button", { hasText: "Create key" }).click();
    const modal = openModal(app);
    await modal.waitFor({ timeout: 90_000 });
    await modal.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => inlineError(app, "Label")).toBe("must not be empty");
    expect(await listedKeys()).toEqual(before);

    // THEN with a label the key is created and its secret shown, once, with a warning
    await app.getByLabel("Label", { exact: true }).fill("Storefront server");
    await modal.getByRole("button", { name: "Create key" }).click();
    const secretField = app.getByLabel("Secret of Storefront server", { exact: true });
    await secretField.waitFor({ timeout: 90_000 });
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^svc_sk_\w{20,}$/);
    expect(await modal.textContent()).toContain("It will not be shown again");
    // Listed behind the modal, never used so far
    await expect.poll(() => row(app, "Storefront server").textContent()).toContain("Never");
    await screenshot(page, "keys-secret-once");

    // The copy button puts exactly the secret on the clipboard
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.platform.origin });
    await modal.getByRole("button", { name: "Copy the secret" }).click();
    await page.locator(".admin-toast", { hasText: "Copied to the clipboard" }).waitFor({ timeout: 90_000 });
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    // The secret works, the API lists the key (without any secret), and the server never printed it
    expect(await shopStatusWith(secret)).toBe(200);
    const created = (await listedKeys()).find((key) => key.label === "Storefront server");
    expect(created).toMatchObject({ revokedAt: null });
    expect(JSON.stringify(await listedKeys())).not.toContain(secret);
    expect(stack.server.output()).not.toContain(secret);

    // Closed: gone from the page; reloaded: nowhere either, while the key is listed
    await modal.getByRole("button", { name: "Done" }).click();
    await modal.waitFor({ state: "detached", timeout: 90_000 });
    await row(app, "Storefront server").waitFor({ timeout: 90_000 });
    expect(await everythingOnThePage(page)).not.toContain(secret);
    await page.reload();
    await waitForHydration(page);
    await row(app, "Storefront server").waitFor({ timeout: 90_000 });
    // Used once (above): the last use is shown instead of "Never", one request in 24 hours, and no 429
    expect(await row(app, "Storefront server").textContent()).toMatch(/UTC.*UTC1Never.*Active/);
    expect(await everythingOnThePage(page)).not.toContain(secret);

    // Revoke asks first: cancelling leaves the key working
    await app.getByRole("button", { name: "Revoke Storefront server" }).click();
    await modal.waitFor({ timeout: 90_000 });
    expect(await modal.textContent()).toContain("Storefront server");
    await modal.getByRole("button", { name: "Cancel" }).click();
    await modal.waitFor({ state: "detached", timeout: 90_000 });
    expect(await shopStatusWith(secret)).toBe(200);
    expect(await row(app, "Storefront server").textContent()).toContain("Active");

    // Confirmed (the critical button): the key is listed as revoked and refused from now on
    await app.getByRole("button", { name: "Revoke Storefront server" }).click();
    const confirm = modal.getByRole("button", { name: "Revoke key" });
    expect(await confirm.getAttribute("class")).toContain("ab-button--critical");
    await confirm.click();
    await page.locator(".admin-toast", { hasText: "Key revoked" }).waitFor({ timeout: 90_000 });
    await expect.poll(() => row(app, "Storefront server").textContent()).toMatch(/Revoked.*UTC/);
    expect(await app.getByRole("button", { name: "Revoke Storefront server" }).count()).toBe(0);
    expect(await shopStatusWith(secret)).toBe(401);
    expect(await shopStatusWith(stack.secret)).toBe(200);
    expect((await listedKeys()).find((key) => key.id === created!.id)?.revokedAt).toEqual(expect.any(String));

    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await screenshot(page, "keys");
    await context.close();
  }, 180_000);

  it("shows the public key's requests in the last 24 hours and its last 429", async () => {
    // GIVEN a headless storefront that calls 61 times in a minute for one shopper: the 61st is refused
    const aid = randomUUID();
    const statuses: number[] = [];
    for (let index = 0; index < 61; index++) {
      const response = await fetch(`${stack.appUrl}/v1/storefront/wishlist?aid=${aid}`, {
        headers: { "X-Service-Shop": stack.shop.domain, "X-Service-Public-Key": stack.shop.publicKey },
      });
      statuses.push(response.status);
    }
    expect(statuses.filter((status) => status === 429)).toHaveLength(1);
    expect(statuses.at(-1)).toBe(429);

    // THEN the page counts all 61 and shows when the key was last refused
    const { context, page, app } = await stack.openAdmin("/keys");
    await waitForHydration(page);
    const usage = app.getByText("Requests in the last 24 hours:");
    await expect
      .poll(async () => (await usage.count()) > 0 && usage.textContent(), { timeout: 90_000 })
      .toMatch(/Requests in the last 24 hours: 61\. Last refused for its rate limit \(429\): .+ UTC\./);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();
  }, 180_000);
});
