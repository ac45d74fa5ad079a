import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";

/**
 * Driver adapter for the Prisma CLI's WebAssembly schema engine on PostgreSQL.
 *
 * Works around prisma/orm#27403 (open in 6.19): the schema engine reads the system catalogs, whose
 * identifier columns have the types `name` (OID 19) and `"char"` (OID 18); @prisma/adapter-pg maps
 * neither and fails every migrate command with "Column type 'name' could not be deserialized". Their
 * values arrive as plain strings, so reporting them as `text` (OID 25) is exact. Only the CLI uses
 * this; the application's client never reads the catalogs.
 */
const CATALOG_TEXT_TYPES = new Set([18, 19]);
const TEXT_OID = 25;

function relabelCatalogTypes<T>(result: T): T {
  const fields = (result as { fields?: Array<{ dataTypeID: number }> } | undefined)?.fields;
  for (const field of fields ?? []) {
    if (CATALOG_TEXT_TYPES.has(field.dataTypeID)) field.dataTypeID = TEXT_OID;
  }
  return result;
}

class CatalogTolerantClient extends pg.Client {
  // pg.Client#query has many overloads (promise and callback forms); both are relabelled.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const callback = args.at(-1);
    if (typeof callback === "function") {
      args[args.length - 1] = (error: Error | null, result: unknown) =>
        callback(error, error ? result : relabelCatalogTypes(result));
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (super.query as any)(...args);
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const pending = (super.query as any)(...args);
    return typeof pending?.then === "function" ? pending.then(relabelCatalogTypes) : pending;
  }
}

export function createMigrationPgAdapter(connectionString: string): PrismaPg {
  // allowExitOnIdle: the CLI exits as soon as it is done instead of waiting out the idle timeout.
  return new PrismaPg({ connectionString, Client: CatalogTolerantClient, allowExitOnIdle: true });
}
