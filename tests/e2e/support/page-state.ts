import type { FrameLocator, Locator, Page } from "playwright-core";
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

/** A card of the app page, by its heading (the cards are regions named by their titles). */
export const region = (app: FrameLocator, name: string) => app.getByRole("region", { name, exact: true });

/** The rows of the table in the card (header row left out), cells trimmed, once it has a row. */
export async function tableRows(app: FrameLocator, name: string): Promise<string[][]> {
  const rows = region(app, name).getByRole("table").getByRole("row");
  await rows.nth(1).waitFor();
  return (await rows.allInnerTexts()).slice(1).map((row) => row.split("\t").map((cell) => cell.trim()));
}

/** The line of text right under `label` in a card (a figure under its label or heading), or null without it. */
export async function figureUnder(card: Locator, label: string): Promise<string | null> {
  const lines = (await card.innerText())
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const at = lines.indexOf(label);
  return at >= 0 ? (lines[at + 1] ?? null) : null;
}
