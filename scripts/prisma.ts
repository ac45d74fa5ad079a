/**
 * Runs the Prisma CLI for the engine chosen by DATABASE_URL, offline.
 *  - DATABASE_URL is resolved (SQLite paths made absolute, the default applied) so the CLI and the app
 *    open the same database.
 *  - prisma/support/cli-preload.cjs stops the schema engine's stray 10 s timer from delaying exit.
 *  - PRISMA_QUERY_ENGINE_LIBRARY points at an existing file: in the Rust-free mode the library is never
 *    loaded, but without it some commands (generate, migrate dev) try to download it.
 * Usage: tsx scripts/prisma.ts <prisma args...>
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { getEnv, loadDotEnv, sqliteFilePath } from "~/env.server";

loadDotEnv();
const env = getEnv();
if (env.DATABASE_ENGINE === "sqlite") mkdirSync(path.dirname(sqliteFilePath(env.DATABASE_URL)), { recursive: true });

const root = path.resolve(import.meta.dirname, "..");
const cli = path.join(root, "node_modules/prisma/build/index.js");
const preload = path.join(root, "prisma/support/cli-preload.cjs");
const result = spawnSync(process.execPath, ["--require", preload, cli, ...process.argv.slice(2)], {
  stdio: "inherit",
  cwd: root,
  env: {
    ...process.env,
    DATABASE_URL: env.DATABASE_URL,
    PRISMA_QUERY_ENGINE_LIBRARY: process.env.PRISMA_QUERY_ENGINE_LIBRARY ?? path.join(root, "package.json"),
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
  },
});
process.exit(result.status ?? 1);
