import { describe, expect, it } from "vitest";
import { adminHost } from "../../stand-in/session-token";
import { expectNoPageErrors, screenshot, seriousAccessibilityViolations, useAdminStack } from "./support/admin";

const stack = useAdminStack({ worker: false });

describe("the embedded admin in the local platform stand-in", () => {
  it("opens the app for the shop with a session token alone: the admin draws its nav menu and title", async () => {
    const { context, page, app } = await stack.openAdmin();
    await expect.poll(() => app.getByText(stack.shop.domain).first().isVisible()).toBe(true);
    // App Bridge's nav menu is drawn by the admin, outside the frame.
    await expect.poll(() => page.locator("#app-home").textContent()).toBe("Wishlist");
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await screenshot(page, "admin-shell");
    await context.close();
  });

  it("titles each page's document inside the frame by the page (issue 25 review)", async () => {
    const { context, page, app } = await stack.openAdmin("/lists");
    await expect.poll(() => app.getByRole("heading", { level: 1 }).first().textContent()).toBe("Lists");
    const frame = page.frames().find((candidate) => new URL(candidate.url()).pathname === "/app/lists");
    expect(await frame!.title()).toBe("Lists · Wishlist");
    await context.close();
  });

  it("refuses a document request without a valid session token (bounce page, then the token from the admin)", async () => {
    // Straight to the app with a forged token: the platform library sends it to its bounce page, where the
    // stand-in App Bridge fetches a real token from the admin around it and reloads.
    const { context, page } = await stack.openAdmin();
    const frame = page.frameLocator("#app-frame");
    await expect.poll(() => frame.getByText(stack.shop.domain).first().isVisible()).toBe(true);
    const direct = await fetch(
      `${stack.appUrl}/app?embedded=1&shop=${stack.shop.domain}&host=${adminHost(stack.shop.domain)}&id_token=forged`,
      {
        headers: { "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0 Safari/537.36" },
        redirect: "manual",
      },
    );
    expect(direct.status).toBe(302);
    expect(direct.headers.get("location")).toMatch(/^\/auth\/session-token\?/);
    await context.close();
  });
});
