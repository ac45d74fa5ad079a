import { decodeCursor, encodeCursor, invalidCursor } from "./cursor.server";
import type { PageParams } from "./validation";

export interface Page<T> {
  data: T[];
  pageInfo: { nextCursor: string | null };
}

/**
 * Keyset pagination over service ids: they are time-ordered TypeIDs, so `id` alone is a stable,
 * unique sort key. Callers query `WHERE id > after ORDER BY id LIMIT limit + 1` and hand the rows here.
 */
export function readCursor(scope: string, params: PageParams): string | undefined {
  if (!params.cursor) return undefined;
  const position = decodeCursor(scope, params.cursor);
  if (typeof position.after !== "string") throw invalidCursor();
  return position.after;
}

export function toPage<Row extends { id: string }, Out>(
  scope: string,
  rows: Row[],
  limit: number,
  serialize: (row: Row) => Out,
): Page<Out> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows.at(-1);
  return {
    data: pageRows.map(serialize),
    pageInfo: { nextCursor: hasMore && last ? encodeCursor(scope, { after: last.id }) : null },
  };
}
