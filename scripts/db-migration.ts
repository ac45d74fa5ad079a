/**
 * `npm run db:migration -- <name>`: writes the next migration for BOTH engines from the change made to
 * prisma/schema.prisma (regenerating the PostgreSQL schema first). Offline: each engine's migrations
 * are applied to a scratch database, introspected, and diffed against the schema file.
 * (`prisma migrate dev` needs a shadow database that the Rust-free engine cannot build here.)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { introspect, prisma, ROOT, scratchDatabase, type Engine } from "./lib/databases";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  process.stderr.write("usage: npm run db:migration -- <snake_case_name>\n");
  process.exit(2);
}
spawnSync(process.execPath, ["--import", "tsx", "scripts/prisma-schemas.ts"], { cwd: ROOT, stdio: "inherit" });

const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const targets: Record<Engine, { schema: string; migrations: string }> = {
  sqlite: { schema: "prisma/schema.prisma", migrations: "prisma/migrations" },
  postgres: { schema: "prisma/postgres/schema.prisma", migrations: "prisma/postgres/migrations" },
};

for (const engine of ["sqlite", "postgres"] as const) {
  const scratch = await scratchDatabase(engine, "authoring");
  try {
    prisma(scratch.url, ["migrate", "deploy"]);
    const current = path.join(ROOT, `.data/scratch/${engine}-current.prisma`);
    writeFileSync(current, introspect(scratch.url));
    const sql = prisma(scratch.url, [
      "migrate",
      "diff",
      "--from-schema-datamodel",
      current,
      "--to-schema-datamodel",
      targets[engine].schema,
      "--script",
    ]);
    if (!/\S/.test(sql.replace(/^--.*$/gm, ""))) {
      process.stdout.write(`${engine}: no changes\n`);
      continue;
    }
    const dir = path.join(ROOT, targets[engine].migrations, `${stamp}_${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "migration.sql"), sql);
    process.stdout.write(`${engine}: wrote ${path.relative(ROOT, dir)}/migration.sql\n`);
  } finally {
    await scratch.drop();
  }
}
