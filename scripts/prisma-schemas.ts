/**
 * Generates prisma/postgres/schema.prisma from the canonical prisma/schema.prisma (only the datasource
 * provider differs, and the row types are generated from the canonical one only). `--check` exits 1 when the committed file has drifted.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const source = path.join(root, "prisma/schema.prisma");
const target = path.join(root, "prisma/postgres/schema.prisma");

export function postgresSchemaFrom(sqliteSchema: string): string {
  const replacements: Array<[RegExp, string]> = [
    [/provider\s*=\s*"sqlite"/, 'provider = "postgresql"'],
    // The data layer's row types are generated once, from the canonical schema.
    [/\/\/ Row types for the data layer[^]*?generator kysely \{[^}]*\}\n\n/, ""],
  ];
  let schema = sqliteSchema;
  for (const [pattern, replacement] of replacements) {
    if (!pattern.test(schema)) throw new Error(`prisma/schema.prisma no longer contains ${pattern}`);
    schema = schema.replace(pattern, replacement);
  }
  const header =
    "// GENERATED from prisma/schema.prisma by `npm run db:schemas`. Do not edit: change the canonical\n" +
    "// schema, regenerate, and add a migration for each engine.\n";
  return header + schema;
}

const expected = postgresSchemaFrom(readFileSync(source, "utf8"));
if (process.argv.includes("--check")) {
  let actual = "";
  try {
    actual = readFileSync(target, "utf8");
  } catch {
    // missing counts as drift
  }
  if (actual !== expected) {
    process.stderr.write("prisma/postgres/schema.prisma is out of date: run `npm run db:schemas`.\n");
    process.exit(1);
  }
  process.stdout.write("prisma schemas in sync\n");
} else {
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, expected);
  process.stdout.write(`wrote ${path.relative(root, target)}\n`);
}
