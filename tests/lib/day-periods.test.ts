import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { coverDays, monthOf, weekOf } from "~/lib/day-periods";

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const daysBetween = (from: string, to: string) => {
  const days: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += DAY_MS)
    days.push(dayOf(at));
  return days;
};

describe("day periods", () => {
  it("keys a week by its Monday and a month by YYYY-MM", () => {
    expect(weekOf("2026-11-23")).toBe("2026-11-23"); // a Monday
    expect(weekOf("2026-11-29")).toBe("2026-11-23"); // the Sunday after it
    expect(weekOf("2026-11-30")).toBe("2026-11-30");
    expect(weekOf("2024-03-01")).toBe("2024-02-26"); // across a leap day's month end
    expect(weekOf("1969-12-31")).toBe("1969-12-29"); // before the counting Monday
    expect(monthOf("2026-02-28")).toBe("2026-02");
  });

  it("covers a year with its whole months, then whole weeks and at most six days at each side", () => {
    const cover = coverDays("2025-12-01", "2026-11-29");
    expect(cover.months).toEqual([
      "2025-12",
      "2026-01",
      "2026-02",
      "2026-03",
      "2026-04",
      "2026-05",
      "2026-06",
      "2026-07",
      "2026-08",
      "2026-09",
      "2026-10",
    ]);
    // November 2026 up to the 29th: the weeks of the 2nd, 9th, 16th and 23rd, and Sunday the 1st alone.
    expect(cover.weeks).toEqual(["2026-11-02", "2026-11-09", "2026-11-16", "2026-11-23"]);
    expect(cover.days).toEqual([{ from: "2026-11-01", to: "2026-11-01" }]);
    expect(coverDays("2026-11-24", "2026-11-27")).toEqual({
      months: [],
      weeks: [],
      days: [{ from: "2026-11-24", to: "2026-11-27" }],
    });
    expect(coverDays("2026-11-28", "2026-11-27")).toEqual({ months: [], weeks: [], days: [] });
    expect(() => coverDays("2024-01-01", "2024-13-01")).toThrow(RangeError);
  });

  it("sums every day of any range exactly once, in few rows", () => {
    const start = Date.UTC(2023, 0, 1);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1500 }), fc.integer({ min: 0, max: 400 }), (offset, length) => {
        const from = dayOf(start + offset * DAY_MS);
        const to = dayOf(start + (offset + length) * DAY_MS);
        const cover = coverDays(from, to);
        const covered = [
          ...cover.months.flatMap((month) =>
            daysBetween(`${month}-01`, `${month}-31`).filter((day) => monthOf(day) === month),
          ),
          ...cover.weeks.flatMap((week) => daysBetween(week, dayOf(Date.parse(`${week}T00:00:00Z`) + 6 * DAY_MS))),
          ...cover.days.flatMap((span) => daysBetween(span.from, span.to)),
        ].sort();
        expect(covered).toEqual(daysBetween(from, to));
        for (const week of cover.weeks) expect(weekOf(week)).toBe(week);
        // Few rows: at most four weeks at each side of the months (a range without a whole month has under 62
        // days), and no more than 12 days in a run (a run without a whole week; six at each side of a week run).
        expect(cover.weeks.length).toBeLessThanOrEqual(8);
        expect(cover.days.length).toBeLessThanOrEqual(4);
        for (const span of cover.days) expect(daysBetween(span.from, span.to).length).toBeLessThanOrEqual(12);
      }),
      { numRuns: 2_000 },
    );
  });
});
