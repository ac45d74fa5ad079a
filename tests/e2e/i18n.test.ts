/**
 * The admin in the merchant's language and its help links (finding 13, docs/decisions/034-admin-languages.md):
 * the platform's `locale` on the embedded load picks the language (the stand-in passes what `?locale=` on
 * its admin URL chose), Polaris speaks it too, no page shows a message key, and every page links to its guide.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { insertTransferJob } from "~/data/transfer-job-rows.server";
import { CATALOGUES, createTranslator, type MessageKey } from "~/i18n/translate";
import { newId } from "~/lib/ids";
import { createList, createWebhookEndpoint } from "../factories";
import { appFrame, expectNoPageErrors, seriousAccessibilityViolations, useAdminStack } from "./support/admin";
import { whenHydrated } from "./support/interaction";

const stack = useAdminStack({ worker: false });

/**
 * Each admin page (an app path) with the guide and section its help link must open, and a message of its own
 * that it must show in German (a page still in English fails).
 */
async function adminPages(): Promise<Array<{ path: string; guide: string; section?: string; german: MessageKey }>> {
  const { endpoint } = await createWebhookEndpoint(stack.shop.id, "https://help.example/hooks");
  const list = await createList(stack.shop.id);
  // A dry run no worker picks up (this stack runs none): its page shows it waiting.
  const dryRun = await insertTransferJob(
    database(),
    { id: newId("job"), shopId: stack.shop.id, kind: "import", source: "csv", dryRun: true },
    new Date(),
  );
  return [
    { path: "", guide: "admin", section: "home", german: "home.setup.heading" },
    { path: "/analytics", guide: "admin", section: "analytics", german: "analytics.activity" },
    { path: "/insights", guide: "admin", section: "insights", german: "insights.demand.heading" },
    { path: "/lists", guide: "admin", section: "lists", german: "lists.tab.all" },
    {
      path: `/lists/${list.id}`,
      guide: "admin",
      section: "lists",
      german: "list.notShared",
    },
    { path: "/settings", guide: "storefront", german: "settings.guest.label" },
    { path: "/alerts", guide: "admin", section: "alerts", german: "alerts.suppressed.description" },
    { path: "/keys", guide: "admin", section: "api-keys", german: "keys.public.heading" },
    { path: "/webhooks", guide: "webhooks", german: "webhooks.endpoints" },
    {
      path: `/webhooks/${endpoint.id}`,
      guide: "webhooks",
      section: "delivery-rules-and-retry-schedule",
      german: "webhook.detail.log",
    },
    { path: "/imports", guide: "imports", section: "in-the-admin", german: "imports.column.skipped" },
    { path: "/imports/new", guide: "imports", section: "formats", german: "importNew.step1" },
    { path: `/imports/${dryRun.id}`, guide: "imports", section: "job-states", german: "import.waiting" },
    { path: "/exports", guide: "imports", section: "exporting", german: "exports.emptyHeading" },
    { path: "/privacy", guide: "privacy", german: "privacy.emptyHeading" },
  ];
}

/** The message keys of the catalogue: a page showing one shows a key where a message should be. */
const MESSAGE_KEYS = Object.keys(CATALOGUES.en);

/**
 * English messages a German page must not show: whole sentences and phrases of more than one word, without
 * placeholders, that German says differently. One on a German page is a string the page did not translate.
 */
const ENGLISH_ONLY = Object.entries(CATALOGUES.en).flatMap(([key, message]) =>
  typeof message === "string" &&
  message.includes(" ") &&
  !message.includes("{") &&
  message !== (CATALOGUES.de as Record<string, unknown>)[key]
    ? [message]
    : [],
);

const helpLink = (app: Awaited<ReturnType<typeof stack.openAdmin>>["app"]) => app.locator(".Polaris-FooterHelp a");

async function frameText(page: Page): Promise<string> {
  const frame = await appFrame(page);
  return frame.evaluate(() => document.body.innerText);
}

describe("the admin's language", { timeout: 600_000 }, () => {
  it("follows the platform admin's locale: German messages, Polaris's German strings, lang and title", async () => {
    const { context, page, app } = await stack.openAdmin("?locale=de");
    await app.getByRole("heading", { name: "Einrichtung" }).waitFor({ timeout: 90_000 });
    const frame = await appFrame(page);
    expect(new URL(frame.url()).searchParams.get("locale")).toBe("de");
    expect(await frame.evaluate(() => document.documentElement.lang)).toBe("de");
    const text = await frameText(page);
    expect(text).toContain("App-Einbettung aktivieren");
    expect(text).toContain("Am häufigsten gemerkte Produkte, letzte 30 Tage");
    // Polaris's own words: the steps' progress badges announce their state from Polaris's catalogue.
    expect(text).toContain("Unvollständig");
    expect(text).not.toContain("Incomplete");
    // The nav menu, drawn by the admin from App Bridge's ui-nav-menu.
    await expect.poll(() => page.locator("#app-nav").textContent()).toContain("Datenschutzanfragen");
    // A client-side navigation keeps the language (no locale parameter on it).
    await whenHydrated(app.getByRole("link", { name: "API-Schlüssel öffnen" }));
    await app.getByRole("link", { name: "API-Schlüssel öffnen" }).click();
    await expect.poll(() => frame.title()).toBe("API-Schlüssel · Wishlist");
    expect(await app.getByRole("heading", { level: 1 }).textContent()).toBe("API-Schlüssel");
    expectNoPageErrors(page);
    await context.close();
  });

  it.each([
    ["a language the app lacks (ja)", "ja", "en", "Setup guide"],
    ["a region variant (de-CH) as its language", "de-CH", "de", "Einrichtung"],
    ["Spanish", "es", "es", "Guía de configuración"],
    ["French", "fr", "fr", "Guide de configuration"],
  ])("shows %s", async (_name, locale, lang, heading) => {
    const { context, page, app } = await stack.openAdmin(`?locale=${locale}`);
    await app.getByRole("heading", { name: heading }).waitFor({ timeout: 90_000 });
    expect(await (await appFrame(page)).evaluate(() => document.documentElement.lang)).toBe(lang);
    expectNoPageErrors(page);
    await context.close();
  });

  it("shows every page in German, with no message key or English message on it, and each passes the accessibility scan", async () => {
    for (const { path, german } of await adminPages()) {
      const { context, page, app } = await stack.openAdmin(`${path}?locale=de`);
      await helpLink(app).waitFor({ timeout: 90_000 });
      await expect.poll(() => frameText(page), { message: path }).toContain(createTranslator("de").t(german));
      const text = await frameText(page);
      expect(
        MESSAGE_KEYS.filter((key) => text.includes(key)),
        path,
      ).toEqual([]);
      expect(
        ENGLISH_ONLY.filter((message) => text.includes(message)),
        path,
      ).toEqual([]);
      // The guides are English: the link says so in the merchant's language.
      expect(await app.locator(".Polaris-FooterHelp").textContent(), path).toContain("nur auf Englisch");
      expect(await seriousAccessibilityViolations(page), path).toEqual([]);
      expectNoPageErrors(page);
      await context.close();
    }
  });
});

describe("help", { timeout: 600_000 }, () => {
  it("links every page to its guide, which the app serves and opens at the page's section", async () => {
    for (const { path, guide, section } of await adminPages()) {
      const { context, page, app } = await stack.openAdmin(path);
      const link = helpLink(app);
      await whenHydrated(link);
      expect(await link.getAttribute("href"), path).toBe(`/help/${guide}${section ? `#${section}` : ""}`);
      const [guidePage] = await Promise.all([context.waitForEvent("page"), link.click()]);
      await guidePage.waitForLoadState();
      expect(new URL(guidePage.url()).pathname, path).toBe(`/help/${guide}`);
      expect(await guidePage.locator("h1").count(), path).toBe(1);
      if (section) expect(await guidePage.locator(`[id="${section}"]`).count(), `${path}: #${section}`).toBe(1);
      expectNoPageErrors(page);
      await context.close();
    }
  });

  it("serves a guide with its links between guides kept in /help and its screenshots", async () => {
    const response = await fetch(`${stack.appUrl}/help/storefront`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("<h1");
    expect(html).toMatch(/<img src="\/assets\/storefront-grid-[^"]+\.png"/);
    const image = /<img src="(\/assets\/storefront-grid-[^"]+\.png)"/.exec(html)![1]!;
    expect((await fetch(`${stack.appUrl}${image}`)).status).toBe(200);
    expect(html).not.toMatch(/href="[^"]*\.md/);
    expect((await fetch(`${stack.appUrl}/help/no-such-guide`)).status).toBe(404);
  });
});
