import { z } from "zod";

/**
 * The shop settings document (spec 2, Shop overview). Stored as JSON on the shop row; every read goes
 * through this schema so documents written by older versions gain new fields with their defaults.
 */
export const shopSettingsSchema = z.object({
  guestEnabled: z.boolean().default(true),
  shareEnabled: z.boolean().default(true),
  sharePath: z.string().default("/pages/wishlist"),
  metafieldSyncEnabled: z.boolean().default(false),
  integrationConfigured: z.boolean().default(false),
  strings: z.record(z.string(), z.record(z.string(), z.string())).default({}),
  headlessOrigins: z.array(z.string()).default([]),
});

export type ShopSettings = z.output<typeof shopSettingsSchema>;

export const DEFAULT_SHOP_SETTINGS: ShopSettings = shopSettingsSchema.parse({});

export function readShopSettings(json: string): ShopSettings {
  return shopSettingsSchema.parse(JSON.parse(json));
}
