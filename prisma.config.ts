import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { defineConfig } from "prisma/config";
import { getEnv, loadDotEnv } from "./app/env.server";
import { createMigrationPgAdapter } from "./prisma/support/migration-pg-adapter";

// The Prisma CLI works offline in its Rust-free mode: migrations run through the bundled WebAssembly
// schema engine over the same driver adapters the app uses. DATABASE_URL picks the engine, its schema
// and its migrations folder (docs/decisions/001-two-database-engines.md).
loadDotEnv();
const env = getEnv();
const postgres = env.DATABASE_ENGINE === "postgres";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: postgres ? "prisma/postgres/schema.prisma" : "prisma/schema.prisma",
  migrations: { path: postgres ? "prisma/postgres/migrations" : "prisma/migrations" },
  adapter: async () =>
    postgres ? createMigrationPgAdapter(env.DATABASE_URL) : new PrismaBetterSQLite3({ url: env.DATABASE_URL }),
});
