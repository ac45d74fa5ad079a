/**
 * `npm run db:check`: fails when the schemas and migrations drift (run by CI).
 *  1. prisma/postgres/schema.prisma must be exactly what the canonical SQLite schema generates.
 *  2. For each engine, a database built by applying the migrations must be structurally identical to
 *     one built straight from the schema (`db push`): both are introspected with `db pull --print` and
 *     compared after normalisation (column order is not drift). (`migrate diff --from-url` is not available with driver adapters in Prisma 6.19.)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { introspect, normalizeSchema, prisma, ROOT, scratchDatabase, type Engine } from "./lib/databases";

let failed = false;

function say(message: string) {
  process.stdout.write(`db:check ${message}\n`);
}

async function checkEngine(engine: Engine) {
  const migrated = await scratchDatabase(engine, "migrated");
  const pushed = await scratchDatabase(engine, "pushed");
  try {
    prisma(migrated.url, ["migrate", "deploy"]);
    prisma(pushed.url, ["db", "push", "--skip-generate"]);
    const fromMigrations = normalizeSchema(introspect(migrated.url));
    const fromSchema = normalizeSchema(introspect(pushed.url));
    if (fromMigrations === fromSchema) return say(`${engine}: migrations match the schema`);

    failed = true;
    const dir = path.join(ROOT, ".data/db-check");
    mkdirSync(dir, { recursive: true });
    const [a, b] = [path.join(dir, `${engine}-from-migrations.prisma`), path.join(dir, `${engine}-from-schema.prisma`)];
    writeFileSync(a, fromMigrations);
    writeFileSync(b, fromSchema);
    const diff = spawnSync("diff", ["-u", a, b], { encoding: "utf8" }).stdout;
    process.stderr.write(
      `db:check ${engine}: the migrations do not produce the schema; run \`npm run db:migration -- <name>\`.\n${diff}\n`,
    );
  } finally {
    await Promise.all([migrated.drop(), pushed.drop()]);
  }
}

const schemas = spawnSync(process.execPath, ["--import", "tsx", "scripts/prisma-schemas.ts", "--check"], {
  cwd: ROOT,
  stdio: "inherit",
});
if (schemas.status !== 0) failed = true;
await checkEngine("sqlite");
await checkEngine("postgres");
if (failed) process.exit(1);
say("ok");
