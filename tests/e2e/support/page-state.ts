import type { FrameLocator, Page } from "playwright-core";
import { appFrame } from "./admin";

/**
 * Resolves once React has hydrated the app page in the admin's frame, so clicks and typing reach React
 * rather than the server-rendered markup. Polaris's AppProvider marks the document with its theme class
 * when it mounts, which only happens in the browser after hydration.
 */
export async function waitForHydration(page: Page) {
  const frame = await appFrame(page);
  await frame.waitForFunction(() => /\bp-theme-/.test(document.documentElement.className), undefined, {
    timeout: 90_000,
  });
}

/** The message Polaris shows under a field (the element its input names `<id>Error`), or null without one. */
export async function inlineError(app: FrameLocator, label: string): Promise<string | null> {
  const id = await app.getByLabel(label, { exact: true }).getAttribute("id");
  const message = app.locator(`[id="${id}Error"]`);
  return (await message.count()) > 0 ? message.textContent() : null;
}
