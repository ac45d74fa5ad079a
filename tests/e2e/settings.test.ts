import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { expectNoPageErrors, screenshot, seriousAccessibilityViolations, useAdminStack } from "./support/admin";
import { inlineError, waitForHydration } from "./support/page-state";

const stack = useAdminStack({ worker: false });

/** The settings as the API reads them back (GET /v1/shop). */
async function savedSettings() {
  const response = await stack.api("/shop");
  expect(response.status).toBe(200);
  return ((await response.json()) as { settings: Record<string, unknown> }).settings;
}

/** The origin a storefront CORS preflight from `origin` is granted to, if any. */
async function corsGrant(origin: string) {
  const response = await fetch(`${stack.appUrl}/v1/storefront/wishlist/toggle`, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "content-type",
    },
  });
  return response.headers.get("access-control-allow-origin");
}

async function openSettings() {
  const opened = await stack.openAdmin("/settings");
  await waitForHydration(opened.page);
  return opened;
}

const saveBar = (page: Page) => page.locator("#save-bar");
const saveBarButton = (page: Page, name: "Save" | "Discard") =>
  saveBar(page).getByRole("button", { name, exact: true });

async function saveAndSeeToast(page: Page) {
  await saveBarButton(page, "Save").click();
  // The last one: an earlier save's toast may still be shown (5 s).
  await page.locator(".admin-toast", { hasText: "Settings saved" }).last().waitFor({ timeout: 90_000 });
  await saveBar(page).waitFor({ state: "hidden", timeout: 90_000 });
}

describe("the Settings page", () => {
  it("shows the save bar once the form differs, discards back to the saved values, and saves", async () => {
    // GIVEN the default settings
    expect(await savedSettings()).toMatchObject({ guestEnabled: true, sharePath: "/pages/wishlist" });
    const { context, page, app } = await openSettings();
    const guestLists = app.getByLabel("Guest wishlists", { exact: true });
    expect(await guestLists.isChecked()).toBe(true);
    expect(await saveBar(page).isHidden()).toBe(true);

    // WHEN the merchant turns guest lists off, the save bar appears; Discard restores the saved value
    await guestLists.click();
    await saveBar(page).waitFor({ timeout: 90_000 });
    await saveBarButton(page, "Discard").click();
    await saveBar(page).waitFor({ state: "hidden", timeout: 90_000 });
    expect(await guestLists.isChecked()).toBe(true);
    expect((await savedSettings()).guestEnabled).toBe(true);

    // Changing a value back to the saved one leaves nothing to save
    await guestLists.click();
    await saveBar(page).waitFor({ timeout: 90_000 });
    await guestLists.click();
    await saveBar(page).waitFor({ state: "hidden", timeout: 90_000 });

    // A share path that is not a site path is refused beside the field, and nothing is saved
    const sharePath = app.getByLabel("Share page path", { exact: true });
    await guestLists.click();
    await sharePath.fill("pages/saved");
    await saveBarButton(page, "Save").click();
    await expect.poll(() => inlineError(app, "Share page path")).toMatch(/must be a site path/);
    expect(await savedSettings()).toMatchObject({ guestEnabled: true, sharePath: "/pages/wishlist" });
    expect(await saveBar(page).isVisible()).toBe(true);

    // THEN with a valid path both changes are saved, and the API returns them
    await sharePath.fill("/pages/saved");
    expect(await inlineError(app, "Share page path")).toBeNull();
    await app.getByLabel("Customer metafield sync", { exact: true }).click();
    await saveAndSeeToast(page);
    expect(await savedSettings()).toMatchObject({
      guestEnabled: false,
      sharePath: "/pages/saved",
      metafieldSyncEnabled: true,
    });
    expect(await app.getByText("The settings were not saved").count()).toBe(0);

    // The saved values are what a fresh page shows
    await page.reload();
    await waitForHydration(page);
    expect(await app.getByLabel("Guest wishlists", { exact: true }).isChecked()).toBe(false);
    expect(await app.getByLabel("Share page path", { exact: true }).inputValue()).toBe("/pages/saved");
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();
  }, 120_000);

  it("chooses whether bought items stay on the list, shown as bought, or leave it (issue 30)", async () => {
    expect((await savedSettings()).boughtItems).toBe("keep");
    const { context, page, app } = await openSettings();
    const keep = app.getByLabel("Keep them on the list, shown as bought", { exact: true });
    const remove = app.getByLabel("Remove them from the list", { exact: true });
    expect(await keep.isChecked()).toBe(true);
    expect(await app.getByText("no alert or reminder is sent for a bought item").isVisible()).toBe(true);
    // The radio's drawn circle covers the input: the merchant clicks the choice's words.
    await app.getByText("Remove them from the list", { exact: true }).click();
    expect(await remove.isChecked()).toBe(true);
    await saveAndSeeToast(page);
    expect((await savedSettings()).boughtItems).toBe("remove");
    await page.reload();
    await waitForHydration(page);
    expect(await app.getByLabel("Remove them from the list", { exact: true }).isChecked()).toBe(true);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await app.getByText("Keep them on the list, shown as bought", { exact: true }).click();
    await saveAndSeeToast(page);
    expect((await savedSettings()).boughtItems).toBe("keep");
    expectNoPageErrors(page);
    await context.close();
  }, 120_000);

  it("turns named lists on with a cap, refusing a cap out of range beside its field (issue 28)", async () => {
    const { context, page, app } = await openSettings();
    expect(await savedSettings()).toMatchObject({ multipleLists: false, maxListsPerOwner: 20 });
    await app.getByLabel("Let shoppers keep several named lists", { exact: true }).click();
    const cap = app.getByLabel("Most lists per shopper", { exact: true });
    expect(await cap.inputValue()).toBe("20");
    await cap.fill("500");
    await saveBarButton(page, "Save").click();
    await app.getByText("The settings were not saved").waitFor({ timeout: 90_000 });
    expect(await inlineError(app, "Most lists per shopper")).not.toBeNull();
    expect(await savedSettings()).toMatchObject({ multipleLists: false, maxListsPerOwner: 20 });
    await cap.fill("5");
    await saveAndSeeToast(page);
    expect(await savedSettings()).toMatchObject({ multipleLists: true, maxListsPerOwner: 5 });
    await page.reload();
    await waitForHydration(page);
    expect(await app.getByLabel("Let shoppers keep several named lists", { exact: true }).isChecked()).toBe(true);
    expect(await app.getByLabel("Most lists per shopper", { exact: true }).inputValue()).toBe("5");
    await screenshot(page, "settings-named-lists");
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();
  }, 120_000);

  it("refuses origins that are not origins, beside the field at fault, and saves a good one", async () => {
    expect((await savedSettings()).headlessOrigins).toEqual([]);
    expect(await corsGrant("https://shop.example.com")).toBeNull();
    const { context, page, app } = await openSettings();
    const newOrigin = app.getByLabel("New origin", { exact: true });
    const addOrigin = app.getByRole("button", { name: "Add origin" });

    // Refused as it is added, beside the field: nothing is added, nothing to save.
    await newOrigin.fill("not an origin");
    await addOrigin.click();
    await expect.poll(() => inlineError(app, "New origin")).toBe("must be an origin such as https://shop.example.com");
    expect(await app.getByLabel("Origin 1", { exact: true }).count()).toBe(0);
    await newOrigin.fill("https://x.com/path");
    await addOrigin.click();
    await expect.poll(() => inlineError(app, "New origin")).toMatch(/no path/);

    // Added as the browser sends it: lower case, no trailing slash.
    await newOrigin.fill("https://Shop.Example.com/");
    await newOrigin.press("Enter");
    expect(await app.getByLabel("Origin 1", { exact: true }).inputValue()).toBe("https://shop.example.com");
    expect(await inlineError(app, "New origin")).toBeNull();

    // An origin edited in place is checked on save, with the API's schema: only its field carries the message.
    await newOrigin.fill("https://second.example");
    await addOrigin.click();
    await app.getByLabel("Origin 2", { exact: true }).fill("http://x.com/path");
    await saveBar(page).waitFor({ timeout: 90_000 });
    await saveBarButton(page, "Save").click();
    await expect.poll(() => inlineError(app, "Origin 2")).toMatch(/no path/);
    expect(await inlineError(app, "Origin 1")).toBeNull();
    expect(await app.getByText("The settings were not saved").isVisible()).toBe(true);
    expect((await savedSettings()).headlessOrigins).toEqual([]);
    // The save bar, the banner listing what was refused, and the message beside the field at fault
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, "settings");

    // Without the bad one, the good one is saved
    await app.getByRole("button", { name: "Remove http://x.com/path" }).click();
    await saveAndSeeToast(page);
    expect((await savedSettings()).headlessOrigins).toEqual(["https://shop.example.com"]);
    expect(await app.getByText("The settings were not saved").count()).toBe(0);

    // A browser on that origin now gets the storefront API's CORS grant
    await expect.poll(() => corsGrant("https://shop.example.com")).toBe("https://shop.example.com");
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();
  }, 120_000);

  it("saves storefront strings for a locale, refuses a too long one, and removes a locale's overrides", async () => {
    expect((await savedSettings()).strings).toEqual({});
    const { context, page, app } = await openSettings();
    await app.getByLabel("Locale", { exact: true }).selectOption("fr");
    const addButton = app.getByLabel("Add button", { exact: true });
    // The built-in French text shows while there is no override
    await expect.poll(() => addButton.getAttribute("placeholder")).toBe("Ajouter à la liste d'envies");

    // Too long: refused beside the field, nothing saved
    await addButton.fill("x".repeat(501));
    await saveBarButton(page, "Save").click();
    await expect.poll(() => inlineError(app, "Add button")).toMatch(/500/);
    expect((await savedSettings()).strings).toEqual({});

    await addButton.fill("Ajouter aux favoris");
    await app.getByLabel("Share button", { exact: true }).fill("Partager mes favoris");
    await saveAndSeeToast(page);
    expect((await savedSettings()).strings).toEqual({
      fr: { add: "Ajouter aux favoris", share: "Partager mes favoris" },
    });

    // Another locale's fields are its own; going back to French shows what was saved
    await app.getByLabel("Locale", { exact: true }).selectOption("de");
    await expect.poll(() => addButton.inputValue()).toBe("");
    await app.getByLabel("Locale", { exact: true }).selectOption("fr");
    await expect.poll(() => addButton.inputValue()).toBe("Ajouter aux favoris");
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // Removing the French overrides brings back the built-in text
    await app.getByRole("button", { name: "Remove French (fr) overrides" }).click();
    await expect.poll(() => addButton.inputValue()).toBe("");
    await saveAndSeeToast(page);
    expect((await savedSettings()).strings).toEqual({});
    expectNoPageErrors(page);
    await context.close();
  }, 120_000);
});
