/**
 * The days the admin's Insights page and its downloads show, as their address names them: `range=7d`, `30d` or
 * `90d`, or `range=custom&from=YYYY-MM-DD&to=YYYY-MM-DD`. The report service's `resolveRange` decides what a
 * range is (the API reads it too); this module says, field by field and in the merchant's language, what is
 * wrong with a custom range the service would refuse, so the page shows it beside the date it concerns and
 * keeps showing figures (the last 30 days) rather than failing.
 */
import { DEFAULT_RANGE, type FieldError, type RangeChoice } from "~/admin/insights-ranges";
import { isDomainError } from "~/lib/domain-error";
import { utcDay } from "~/services/analytics/rollups.server";
import {
  daysOf,
  MAX_RANGE_DAYS,
  PRESET_RANGES,
  resolveRange,
  type DayRange,
  type PresetRange,
} from "~/services/attribution/revenue-reports.server";

export interface InsightsRange {
  /** What the range picker shows. */
  choice: RangeChoice;
  /** The custom range's fields as the merchant typed them (the preset's days otherwise, to start from). */
  from: string;
  to: string;
  /** The days the figures are for. */
  range: DayRange;
  /** Why the custom range was not used, by field; the figures are then the last 30 days'. */
  errors: { from?: FieldError; to?: FieldError };
  /** A `range` the page does not offer (an old or edited address), shown as a warning. */
  unknownRange: string | null;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (value: string) => DAY.test(value) && utcDay(new Date(`${value}T00:00:00Z`)) === value;

function customErrors(from: string, to: string, today: string): InsightsRange["errors"] {
  const errors: InsightsRange["errors"] = {};
  if (from === "") errors.from = { key: "insights.custom.missing" };
  else if (!isDay(from)) errors.from = { key: "insights.custom.notDay" };
  if (to === "") errors.to = { key: "insights.custom.missing" };
  else if (!isDay(to)) errors.to = { key: "insights.custom.notDay" };
  else if (to > today) errors.to = { key: "insights.custom.future", values: { today } };
  if (errors.from || errors.to) return errors;
  if (from > to) return { from: { key: "insights.custom.afterEnd" } };
  if (daysOf({ from, to }).length > MAX_RANGE_DAYS) {
    return { to: { key: "insights.custom.tooLong", values: { days: MAX_RANGE_DAYS } } };
  }
  return errors;
}

/** The range the page's address asks for, `now` deciding what today is (UTC). */
export function readInsightsRange(params: URLSearchParams, now = new Date()): InsightsRange {
  const asked = params.get("range");
  const today = utcDay(now);
  if (asked === "custom") {
    const from = (params.get("from") ?? "").trim();
    const to = (params.get("to") ?? "").trim();
    const errors = customErrors(from, to, today);
    if (!errors.from && !errors.to) {
      try {
        return { choice: "custom", from, to, range: resolveRange({ from, to }, now), errors, unknownRange: null };
      } catch (error) {
        // The service refused what this module let through: its own (English) words, on the end date.
        if (!isDomainError(error, "invalid")) throw error;
        errors.to = { key: "insights.custom.refused", values: { reason: error.message } };
      }
    }
    return {
      choice: "custom",
      from,
      to,
      range: resolveRange({ range: DEFAULT_RANGE }, now),
      errors,
      unknownRange: null,
    };
  }
  const preset = asked !== null && Object.hasOwn(PRESET_RANGES, asked) ? (asked as PresetRange) : DEFAULT_RANGE;
  const range = resolveRange({ range: preset }, now);
  return {
    choice: preset,
    from: range.from,
    to: range.to,
    range,
    errors: {},
    unknownRange: asked !== null && asked !== preset ? asked : null,
  };
}

/** The range of the Home page's figure: this month so far, in UTC days. */
export function monthToDate(now = new Date()): DayRange {
  const today = utcDay(now);
  return resolveRange({ from: `${today.slice(0, 8)}01`, to: today }, now);
}
