import { spawnSync } from "node:child_process";
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

/** Applies the engine's migrations to DATABASE_URL with the real CLI, as `npm run db:migrate` does. */
export function migrate(databaseUrl: string): void {
  const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/prisma.ts", "migrate", "deploy"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: "utf8",
  });
  if (result.status !== 0) {
    throw new Error(`prisma migrate deploy failed for ${databaseUrl}:\n${result.stdout}\n${result.stderr}`);
  }
}
