import { z } from "zod";

/**
 * The shop settings document (OpenAPI schemas `Settings` and `SettingsPatch`). Stored as JSON on the shop row; every read goes
 * through this schema so documents written by older versions gain new fields with their defaults.
 */

/** A browser origin: scheme, host and optional port, nothing else (what the Origin header carries). */
export const originSchema = z
  .string()
  .max(255)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value;
    } catch {
      return false;
    }
  }, "must be an origin such as https://shop.example.com (scheme, host and optional port; no path or trailing slash)");

/** Storefront strings by locale: `{ "en": { "add": "Add to wishlist" }, "fr": { ... } }`. */
const LOCALE_KEY = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
const STRING_KEY = /^[A-Za-z0-9_.-]{1,64}$/;
// The key rules are declared as `propertyNames` too (zod's `.meta`, which the OpenAPI generator reads): the
// generator leaves record keys out of the document otherwise.
export const stringsSchema = z
  .record(
    z.string().regex(LOCALE_KEY, "keys must be locale codes such as en or pt-BR"),
    z
      .record(z.string().regex(STRING_KEY, "keys must be 1-64 letters, digits, `_`, `.` or `-`"), z.string().max(500))
      .meta({ propertyNames: { pattern: STRING_KEY.source } }),
  )
  .meta({ propertyNames: { pattern: LOCALE_KEY.source } });

/**
 * What a shop may store as texts (a PATCH replaces them whole, so this bounds the stored document): 50
 * locales of at most 50 texts, 128 KiB as JSON in all. The stored document is read without these bounds,
 * so a document stored before them still reads.
 */
export const STRINGS_LIMITS = { locales: 50, perLocale: 50, jsonChars: 128 * 1024 } as const;
const boundedStringsSchema = stringsSchema
  .superRefine((strings, ctx) => {
    const locales = Object.keys(strings);
    if (locales.length > STRINGS_LIMITS.locales) {
      ctx.addIssue({ code: "custom", message: `at most ${STRINGS_LIMITS.locales} locales` });
    }
    for (const locale of locales) {
      if (Object.keys(strings[locale]!).length > STRINGS_LIMITS.perLocale) {
        ctx.addIssue({
          code: "custom",
          path: [locale],
          message: `at most ${STRINGS_LIMITS.perLocale} texts per locale`,
        });
      }
    }
    if (JSON.stringify(strings).length > STRINGS_LIMITS.jsonChars) {
      ctx.addIssue({ code: "custom", message: "at most 128 KiB of texts in all (as JSON)" });
    }
  })
  .meta({
    maxProperties: STRINGS_LIMITS.locales,
    description: `Texts by locale. At most ${STRINGS_LIMITS.locales} locales, ${STRINGS_LIMITS.perLocale} texts per locale, 128 KiB as JSON in all; replaces the stored texts whole.`,
  });

/** The settings members, each required: what every response carries (GET /v1/shop, PATCH /v1/shop/settings). */
export const shopSettingsFields = {
  guestEnabled: z.boolean(),
  shareEnabled: z.boolean(),
  sharePath: z.string(),
  metafieldSyncEnabled: z.boolean(),
  integrationConfigured: z.boolean(),
  strings: stringsSchema,
  headlessOrigins: z.array(originSchema),
  multipleLists: z.boolean(),
  maxListsPerOwner: z.number().int().min(1).max(100),
  boughtItems: z.enum(["keep", "remove"]),
};

/** The stored document: members it lacks take their defaults. */
export const shopSettingsSchema = z.object({
  guestEnabled: shopSettingsFields.guestEnabled.default(true),
  shareEnabled: shopSettingsFields.shareEnabled.default(true),
  sharePath: shopSettingsFields.sharePath.default("/pages/wishlist"),
  metafieldSyncEnabled: shopSettingsFields.metafieldSyncEnabled.default(false),
  integrationConfigured: shopSettingsFields.integrationConfigured.default(false),
  strings: shopSettingsFields.strings.default({}),
  headlessOrigins: shopSettingsFields.headlessOrigins.default([]),
  multipleLists: shopSettingsFields.multipleLists.default(false),
  maxListsPerOwner: shopSettingsFields.maxListsPerOwner.default(20),
  boughtItems: shopSettingsFields.boughtItems.default("keep"),
});

export type ShopSettings = z.output<typeof shopSettingsSchema>;

/** PATCH body: any subset of the settings; unknown members are refused. */
export const shopSettingsPatchSchema = z
  .object({
    guestEnabled: z.boolean(),
    shareEnabled: z.boolean(),
    sharePath: z
      .string()
      .max(255)
      // Browsers read "//host" and "/\host" as another site: the badge and the share link would leave the shop.
      .regex(
        /^\/([^\s?#\\/][^\s?#\\]*)?$/,
        "must be a site path starting with a single / (no query, fragment or backslash)",
      ),
    metafieldSyncEnabled: z.boolean(),
    integrationConfigured: z.boolean(),
    strings: boundedStringsSchema,
    headlessOrigins: z.array(originSchema).max(50),
    multipleLists: z.boolean(),
    maxListsPerOwner: z.number().int().min(1).max(100),
    boughtItems: shopSettingsFields.boughtItems,
  })
  .partial()
  .strict();

export type ShopSettingsPatch = z.output<typeof shopSettingsPatchSchema>;

export const DEFAULT_SHOP_SETTINGS: ShopSettings = shopSettingsSchema.parse({});

const parsed = new Map<string, Readonly<ShopSettings>>();
const PARSED_LIMIT = 1_000;
/**
 * The kept documents' total length, in characters. A shop chooses the size of its document (storefront texts
 * of up to 500 characters, as many as a settings body holds: up to 1 MiB from the admin's form) and can save
 * a new one at every request, so a cap on the number of documents alone let one shop fill the web process's
 * memory (a parsed document takes about 2.5 times its text). Ordinary documents are a few KB.
 */
const PARSED_MAX_CHARS = 8 * 1024 * 1024;
let parsedChars = 0;

/**
 * The stored settings document, parsed and validated. Every storefront request reads its shop's settings,
 * so results are kept per document text (the text is the key: a changed document is parsed afresh) and
 * frozen, since callers share them.
 */
export function readShopSettings(json: string): Readonly<ShopSettings> {
  let settings = parsed.get(json);
  if (!settings) {
    settings = deepFreeze(shopSettingsSchema.parse(JSON.parse(json)));
    if (json.length > PARSED_MAX_CHARS) return settings;
    if (parsed.size >= PARSED_LIMIT || parsedChars + json.length > PARSED_MAX_CHARS) {
      parsed.clear();
      parsedChars = 0;
    }
    parsed.set(json, settings);
    parsedChars += json.length;
  }
  return settings;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
