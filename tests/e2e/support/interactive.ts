import type { Locator } from "playwright-core";
import { expect } from "vitest";

/**
 * Waits until React has attached its handlers to the element: a click or a file chosen before the page
 * is hydrated there would reach only the server-rendered markup and do nothing.
 */
export async function interactive(locator: Locator) {
  await expect
    .poll(() =>
      locator
        .first()
        .evaluate((node) => Object.keys(node).some((key) => key.startsWith("__reactProps$")))
        .catch(() => false),
    )
    .toBe(true);
  return locator;
}
