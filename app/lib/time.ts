/** Timestamps on the wire: ISO-8601 in UTC with milliseconds and a Z suffix (the OpenAPI description, `format: date-time`). */
export function toTimestamp(date: Date): string;
export function toTimestamp(date: Date | null | undefined): string | null;
export function toTimestamp(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}
