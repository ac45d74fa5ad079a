/**
 * UTC days (`YYYY-MM-DD`) grouped into the periods the product rollups keep besides days: weeks, keyed by their
 * Monday, and calendar months (`YYYY-MM`) (docs/decisions/055-demand-from-the-item-index.md).
 */
const DAY_MS = 86_400_000;
/** A Monday: weeks are counted from it. */
const EPOCH_MONDAY = Date.UTC(1970, 0, 5);

const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The Monday of the day's week. */
export function weekOf(day: string): string {
  const ms = dayMs(day);
  const sinceEpoch = Math.floor((ms - EPOCH_MONDAY) / DAY_MS);
  return dayOf(ms - (((sinceEpoch % 7) + 7) % 7) * DAY_MS);
}

export function monthOf(day: string): string {
  return day.slice(0, 7);
}

/** A run of days, both ends included. */
export interface DaySpan {
  from: string;
  to: string;
}

/**
 * The fewest rollup rows that sum to the days `from`..`to` (inclusive): the whole months inside the range, then
 * in what is left at either end the whole weeks, and the remaining days (at most six at each side of a week run).
 */
export function coverDays(from: string, to: string): { months: string[]; weeks: string[]; days: DaySpan[] } {
  const cover = { months: [] as string[], weeks: [] as string[], days: [] as DaySpan[] };
  const start = dayMs(from);
  const end = dayMs(to);
  if (Number.isNaN(start) || Number.isNaN(end)) throw new RangeError(`not a day: ${from}..${to}`);
  if (from > to) return cover;
  // Whole months: the first month starting on or after `from`, while it ends by `to`.
  const first = new Date(start);
  let monthStart = first.getUTCDate() === 1 ? start : Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 1);
  const monthsFrom = monthStart;
  let monthsTo = monthStart; // exclusive
  for (;;) {
    const at = new Date(monthStart);
    const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
    if (next - DAY_MS > end) break;
    cover.months.push(dayOf(monthStart).slice(0, 7));
    monthsTo = next;
    monthStart = next;
  }
  const spans: Array<[number, number]> =
    cover.months.length === 0
      ? [[start, end]]
      : [
          [start, monthsFrom - DAY_MS],
          [monthsTo, end],
        ];
  for (const [spanStart, spanEnd] of spans) {
    if (spanStart > spanEnd) continue;
    // Whole weeks: from the first Monday on or after the span's start, while the week ends within it.
    const offset = ((Math.floor((spanStart - EPOCH_MONDAY) / DAY_MS) % 7) + 7) % 7;
    let weekStart = offset === 0 ? spanStart : spanStart + (7 - offset) * DAY_MS;
    const weeksFrom = weekStart;
    while (weekStart + 6 * DAY_MS <= spanEnd) {
      cover.weeks.push(dayOf(weekStart));
      weekStart += 7 * DAY_MS;
    }
    if (weekStart === weeksFrom) {
      cover.days.push({ from: dayOf(spanStart), to: dayOf(spanEnd) });
      continue;
    }
    if (weeksFrom > spanStart) cover.days.push({ from: dayOf(spanStart), to: dayOf(weeksFrom - DAY_MS) });
    if (weekStart <= spanEnd) cover.days.push({ from: dayOf(weekStart), to: dayOf(spanEnd) });
  }
  return cover;
}
