/** The readiness probe's statement: whether the database answers at all (no table read). */
import type { Queryable } from "./database.server";

export async function pingDatabase(q: Queryable): Promise<void> {
  await q.selectNoFrom((eb) => eb.lit(1).as("one")).executeTakeFirstOrThrow();
}
