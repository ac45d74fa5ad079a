/**
 * Acting on server-rendered admin pages: a click lands only once React has hydrated the element (before
 * that it is lost, or a form posts as a plain document request without a session token), and title bar
 * buttons are drawn by the admin outside the frame.
 */
import type { FrameLocator, Locator, Page } from "playwright-core";
import { expect } from "vitest";

/** Waits until React has attached its handlers to `target` (React keeps them in a `__reactProps$` key). */
export async function whenHydrated(target: Locator) {
  await target.waitFor({ state: "attached", timeout: 90_000 });
  await expect
    .poll(() => target.evaluate((element) => Object.keys(element).some((key) => key.startsWith("__reactProps$"))), {
      timeout: 90_000,
    })
    .toBe(true);
}

export async function clickWhenHydrated(target: Locator) {
  await whenHydrated(target);
  await target.click();
}

/** Clicks a button of the page's title bar (the admin's copy outside the frame, once the app's is live). */
export async function clickTitleBarAction(page: Page, app: FrameLocator, label: string) {
  await whenHydrated(app.locator("ui-title-bar > button", { hasText: label }).first());
  await page.locator("#title-bar-actions button", { hasText: label }).click();
}
