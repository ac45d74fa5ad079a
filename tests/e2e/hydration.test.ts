/**
 * React's hydration warnings, which only its development build prints (finding 21: "Extra attributes from
 * the server: style" on Home): the web server runs in development (Vite, React's development build), and
 * every admin page is opened in the states a new shop is in (no lists, app embed off), in English and German.
 * Any console error or warning from React fails the test.
 */
import { describe, expect, it } from "vitest";
import { createWebhookEndpoint } from "../factories";
import { appFrame, expectNoPageErrors, useAdminStack } from "./support/admin";
import { whenHydrated } from "./support/interaction";

const stack = useAdminStack({ env: { NODE_ENV: "development" }, worker: false });

const REACT_WARNING = /Warning: |hydrat|did not match|Extra attributes from the server/i;

describe("hydration in React's development build", { timeout: 900_000 }, () => {
  it("no admin page draws a React warning in the console, for a new shop, in English and German", async () => {
    const { endpoint } = await createWebhookEndpoint(stack.shop.id, "https://hydration.example/hooks");
    const paths = [
      "",
      "/analytics",
      "/insights",
      "/lists",
      "/settings",
      "/alerts",
      "/keys",
      "/webhooks",
      `/webhooks/${endpoint.id}`,
      "/imports",
      "/imports/new",
      "/exports",
      "/privacy",
    ];
    for (const locale of ["en", "de"]) {
      for (const path of paths) {
        const { context, page, app } = await stack.openAdmin(`${path}?locale=${locale}`);
        const warnings: string[] = [];
        page.on("console", (message) => {
          if (message.type() !== "log" && REACT_WARNING.test(message.text())) warnings.push(message.text());
        });
        // Hydrated: React's handlers are on the help link at the end of the page.
        await whenHydrated(app.locator(".Polaris-FooterHelp a"));
        // Effects after hydration (App Bridge's title bar and nav) have run by the time the admin shows the title.
        await expect.poll(() => page.locator("#title-bar-title").textContent()).not.toBe("");
        const frame = await appFrame(page);
        // Served by Vite, with React's development build: the build that prints hydration warnings.
        expect(
          await frame.evaluate(() =>
            performance.getEntriesByType("resource").some((entry) => entry.name.includes("/@vite/client")),
          ),
        ).toBe(true);
        expect(warnings, `${locale} ${path || "/"}`).toEqual([]);
        expectNoPageErrors(page);
        await context.close();
      }
    }
  });
});
