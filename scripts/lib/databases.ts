import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import pg from "pg";

export const ROOT = path.resolve(import.meta.dirname, "../..");
export const TEST_DATA_DIR = path.join(ROOT, ".data/test");

export type Engine = "sqlite" | "postgres";

/** Where the test databases are created. Any role that may CREATE DATABASE works. */
export function adminPostgresUrl(): string {
  return process.env.TEST_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
}

export function postgresUrlFor(database: string): string {
  const url = new URL(adminPostgresUrl());
  url.pathname = `/${database}`;
  return url.toString();
}

export async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminPostgresUrl(), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Runs the Prisma CLI (through scripts/prisma.ts) against `databaseUrl`; throws with its output on failure. */
export function prisma(databaseUrl: string, args: string[]): string {
  const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/prisma.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: "utf8",
  });
  if (result.status !== 0) {
    throw new Error(`prisma ${args.join(" ")} failed for ${databaseUrl}:\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

/** Applies the engine's migrations with the real CLI, as `npm run db:migrate` does. */
export function migrate(databaseUrl: string): void {
  prisma(databaseUrl, ["migrate", "deploy"]);
}

/** A throwaway database per engine, migrated by `migrate deploy`; `drop` removes it. */
export async function scratchDatabase(
  engine: Engine,
  name: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (engine === "sqlite") {
    const dir = path.join(ROOT, ".data/scratch");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${name}.db`);
    rmSync(file, { force: true });
    return { url: `file:${file}`, drop: async () => rmSync(file, { force: true }) };
  }
  const database = `wishlist_scratch_${name}_${process.pid}`;
  const drop = () =>
    withAdminClient(async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)));
  await drop();
  await withAdminClient((client) => client.query(`CREATE DATABASE ${database}`));
  return { url: postgresUrlFor(database), drop };
}

/** `prisma db pull --print` of a database, without the CLI's notices printed before the schema. */
export function introspect(databaseUrl: string): string {
  const output = prisma(databaseUrl, ["db", "pull", "--print"]);
  const start = output.search(/^(generator|datasource) /m);
  if (start < 0) throw new Error(`db pull printed no schema for ${databaseUrl}:\n${output}`);
  return output.slice(start);
}

/**
 * An introspected schema in a comparable form: column order within a table is not drift (ALTER TABLE
 * appends columns), nor is alignment padding; so lines are whitespace-collapsed and sorted per block.
 */
export function normalizeSchema(schema: string): string {
  const blocks = schema.split(/\n(?=\S)/);
  return blocks
    .map((block) => {
      const [head = "", ...body] = block.trim().split("\n");
      const lines = body.map((line) => line.trim().replace(/\s+/g, " ")).filter((line) => line && line !== "}");
      return [head.replace(/\s+/g, " "), ...lines.sort(), "}"].join("\n");
    })
    .sort()
    .join("\n\n");
}
