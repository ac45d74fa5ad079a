/**
 * The Insights page's range picker, shared by the page and its loader (app/admin/insights-range.server.ts): the
 * presets the report service offers, and "custom" for two dates.
 */
import type { MessageKey } from "~/i18n/translate";

export const PRESET_DAYS = { "7d": 7, "30d": 30, "90d": 90 } as const;
export type Preset = keyof typeof PRESET_DAYS;
export const RANGE_CHOICES = ["7d", "30d", "90d", "custom"] as const;
export type RangeChoice = (typeof RANGE_CHOICES)[number];
export const DEFAULT_RANGE: Preset = "30d";

/** A message of the admin's catalogue, with its values: what is wrong with a date the merchant typed. */
export interface FieldError {
  key: MessageKey;
  values?: Record<string, string | number>;
}
