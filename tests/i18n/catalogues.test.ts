/**
 * The admin's languages (finding 13, docs/decisions/034-admin-languages.md): every catalogue has English's
 * keys and placeholders, and the admin's locale resolves as the platform passes it. No database: this file
 * runs in the sqlite project only (vitest.config.ts).
 */
import { describe, expect, it } from "vitest";
import { polarisTranslations, resolveAdminLocale } from "~/i18n/locale.server";
import { ADMIN_LOCALES } from "~/i18n/locales";
import { CATALOGUES, createTranslator, type MessageKey } from "~/i18n/translate";

const placeholders = (message: unknown): string[] =>
  typeof message === "string"
    ? [...message.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!).sort()
    : Object.values(message as Record<string, string>)
        .flatMap(placeholders)
        .filter((name) => name !== "count");

const english = CATALOGUES.en as Record<string, unknown>;
const others = ADMIN_LOCALES.filter((locale) => locale !== "en");

describe("the admin's catalogues", () => {
  it.each(others)("%s has exactly the English keys", (locale) => {
    const catalogue = CATALOGUES[locale] as Record<string, unknown>;
    expect(Object.keys(catalogue).filter((key) => !(key in english))).toEqual([]);
    expect(Object.keys(english).filter((key) => !(key in catalogue))).toEqual([]);
  });

  it.each(ADMIN_LOCALES)(
    "%s has a non-empty message of English's form, with its placeholders, for every key",
    (locale) => {
      const catalogue = CATALOGUES[locale] as Record<string, unknown>;
      const wrong = Object.entries(english).flatMap(([key, source]) => {
        const message = catalogue[key];
        if (typeof message !== typeof source) return [`${key}: not of English's form`];
        const forms = typeof message === "string" ? [message] : Object.values(message as Record<string, string>);
        if (typeof message !== "string" && Object.keys(message as object).join() !== "one,other")
          return [`${key}: plural forms must be one and other`];
        if (forms.some((form) => form.trim() === "")) return [`${key}: empty`];
        const expected = [...new Set(placeholders(source))];
        const actual = [...new Set(placeholders(message))];
        return expected.join() === actual.join()
          ? []
          : [`${key}: placeholders ${actual.join()} instead of ${expected.join()}`];
      });
      expect(wrong).toEqual([]);
    },
  );

  it.each(others)("%s is a translation: most of its messages differ from English", (locale) => {
    const catalogue = CATALOGUES[locale] as Record<string, unknown>;
    const same = Object.keys(english).filter((key) => JSON.stringify(catalogue[key]) === JSON.stringify(english[key]));
    // Names (Wishlist, Webhooks, Admin) are the same in every language; whole sentences are not.
    expect(same.length / Object.keys(english).length).toBeLessThan(0.15);
  });

  // WCAG 2.5.3 (axe's label-content-name-mismatch): a control's accessible name contains the words it shows.
  it.each(ADMIN_LOCALES)("%s names each control with an accessibility label by the words it shows first", (locale) => {
    const { t } = createTranslator(locale);
    const pairs: Array<[MessageKey, MessageKey]> = [
      ["webhook.sendTest", "webhook.sendTestLabel"],
      ["webhook.reEnable", "webhook.reEnableLabel"],
      ["webhook.redeliver", "webhook.redeliverLabel"],
      ["webhooks.delete", "webhooks.deleteLabel"],
      ["keys.revoke", "keys.revokeLabel"],
      ["copy.button", "keys.public.copy"],
      ["copy.button", "keys.copySecret"],
      ["origins.remove", "origins.removeLabel"],
    ];
    const mismatched = pairs.filter(([visible, label]) => !t(label).toLowerCase().startsWith(t(visible).toLowerCase()));
    expect(mismatched).toEqual([]);
  });

  // The same for links named by data: a list's link shows the list's name, so its accessible name starts with it.
  it.each(ADMIN_LOCALES)("%s names a list's link by the list's name first", (locale) => {
    expect(createTranslator(locale).t("lists.linkLabel", { list: "Summer", owner: "Ada" })).toMatch(/^Summer /);
  });

  it("fills placeholders with numbers formatted for the language, and picks the plural form", () => {
    expect(createTranslator("de").t("home.setup.progress", { done: 1, total: 3 })).toBe("1 von 3 Schritten erledigt");
    expect(createTranslator("de").number(12345)).toBe("12.345");
    expect(createTranslator("fr").plural("webhook.status.failing", 1)).toBe("1 livraison échouée");
    expect(createTranslator("en").plural("webhook.status.failing", 2000)).toBe("2,000 failed deliveries in a row");
  });
});

describe("the admin's locale", () => {
  const request = (query: string, acceptLanguage?: string) =>
    new Request(`https://app.example/app${query}`, {
      headers: acceptLanguage ? { "accept-language": acceptLanguage } : {},
    });

  it.each([
    ["the platform admin's locale", "?locale=de", "fr", "de"],
    ["a region variant as its language", "?locale=de-CH", undefined, "de"],
    ["Spanish of Mexico as Spanish", "?locale=es-MX", undefined, "es"],
    ["a language the admin lacks as English, not the browser's", "?locale=ja", "fr", "en"],
    ["an unparseable locale as English", "?locale=%%%", undefined, "en"],
    ["without a locale, the browser's language", "", "fr-CA,fr;q=0.9,en;q=0.5", "fr"],
    ["without either, English", "", undefined, "en"],
  ])("takes %s", (_name, query, acceptLanguage, expected) => {
    expect(resolveAdminLocale(request(query, acceptLanguage))).toBe(expected);
  });

  it("gives Polaris its own strings in the admin's language", () => {
    const german = polarisTranslations("de") as { Polaris: { Common: { cancel: string } } };
    expect(german.Polaris.Common.cancel).toBe("Abbrechen");
  });
});
