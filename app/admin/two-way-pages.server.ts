/**
 * Cursor pages of the admin's tables, forwards and backwards: the API's keyset pages over time-ordered ids
 * (docs/decisions/005-ids-and-cursors.md) with a way back. A cursor is signed for one listing (`scope`:
 * the page, the shop, the filter), so it cannot be edited nor used with another filter.
 */
import { decodeCursor, encodeCursor } from "~/lib/cursor.server";

export type PagePosition = { after?: string; before?: string };

/** Where the page starts: the first page without a cursor; null for a cursor this listing did not issue. */
export function readPagePosition(scope: string, cursor: string | null): PagePosition | null {
  if (!cursor) return {};
  try {
    const position = decodeCursor(scope, cursor);
    if (typeof position.after === "string") return { after: position.after };
    if (typeof position.before === "string") return { before: position.before };
    return null;
  } catch {
    return null;
  }
}

/**
 * One page from the rows a service read at `position` with `limit + 1`: the extra row is last when reading
 * forwards (there is a next page) and first when reading backwards (there is a previous page). Reading
 * from a cursor means there are rows on the side it came from.
 */
export function twoWayPage<Row extends { id: string }>(
  scope: string,
  rows: Row[],
  limit: number,
  position: PagePosition,
) {
  const backwards = position.before !== undefined;
  const more = rows.length > limit;
  const page = backwards ? rows.slice(rows.length - Math.min(rows.length, limit)) : rows.slice(0, limit);
  const hasPrevious = backwards ? more : position.after !== undefined;
  const hasNext = backwards ? true : more;
  return {
    rows: page,
    previousCursor: hasPrevious && page[0] ? encodeCursor(scope, { before: page[0].id }) : null,
    nextCursor: hasNext && page.at(-1) ? encodeCursor(scope, { after: page.at(-1)!.id }) : null,
  };
}
