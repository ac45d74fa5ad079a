import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The architecture of issue 12, checked on the source text (docs/decisions/017-data-layer.md):
 * one data layer, services without HTTP, imports that only point down, distinct module names, and
 * comments that cite only the repository's own documents.
 */
const root = path.resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx)$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.startsWith("app/generated/"));
}

const appFiles = sourceFiles("app");
const runtimeFiles = [...appFiles, ...sourceFiles("worker"), ...sourceFiles("server")];
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

/** Code without comments, so prose that mentions SQL or a status is not mistaken for code. */
function code(file: string): string {
  return read(file)
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

function offenders(files: string[], patterns: RegExp[]): string[] {
  return files.flatMap((file) => {
    const text = code(file);
    return patterns.filter((pattern) => pattern.test(text)).map((pattern) => `${file}: ${pattern}`);
  });
}

describe("one data layer", () => {
  const outsideData = runtimeFiles.filter((file) => !file.startsWith("app/data/"));

  it("no SQL string, Prisma call or query builder outside app/data/", () => {
    const patterns = [
      /["'`]\s*(SELECT|INSERT INTO|UPDATE "|DELETE FROM|WITH \w+ AS)\b/,
      /\bprisma\./,
      /\$(queryRaw|executeRaw|transaction)\b/,
      /from "~\/(db|sql)\.server"|from "\.\.?\/(db|sql)\.server"/,
      /generated\/prisma-/,
      /\.(selectFrom|insertInto|updateTable|deleteFrom)\(/,
      /from "kysely"/,
    ];
    expect(offenders(outsideData, patterns)).toEqual([]);
  });
});

describe("services know no HTTP", () => {
  const services = appFiles.filter((file) => file.startsWith("app/services/"));

  it("no problem documents, HTTP statuses of ours or JSON pointers in app/services/", () => {
    const patterns = [/\bAppError\b/, /lib\/problems"/, /from "~\/api\//, /\bpointer\b/, /\bstatus:\s*[1-5]\d\d\b/];
    expect(offenders(services, patterns)).toEqual([]);
  });
});

describe("HTTP stays in the API layer (issue 26)", () => {
  const below = appFiles.filter((file) => /^app\/(services|jobs|lib|data)\//.test(file));

  it("services, jobs, lib and data build schemas with zod, not @hono/zod-openapi", () => {
    expect(offenders(below, [/from "@hono\/zod-openapi"/])).toEqual([]);
  });

  it("app/lib builds no problems from validation issues, no problem documents and no responses", () => {
    const lib = appFiles.filter((file) => file.startsWith("app/lib/"));
    const patterns = [
      /\$?ZodIssue\b/,
      /AppError\("(validation-error|invalid-parameter|body-required)"/,
      /\bproblem\+json\b/,
      /\bnew Response\(/,
    ];
    expect(offenders(lib, patterns)).toEqual([]);
  });

  it("one JSON Pointer encoder: only app/api/json-pointer.ts escapes ~ and /", () => {
    const encoders = runtimeFiles.filter((file) => /["'`]~[01]["'`]/.test(code(file)));
    expect(encoders).toEqual(["app/api/json-pointer.ts"]);
  });

  it("the rate limiter's Redis keys are spelled in their module only", () => {
    const spelling = runtimeFiles.filter((file) => /:rl:/.test(code(file)));
    expect(spelling).toEqual(["app/lib/rate-limit-keys.server.ts"]);
  });
});

/** Layers inside app/, lowest first: a module may import its own layer or lower ones, never a higher one. */
function layerOf(file: string): number {
  if (file.startsWith("app/data/")) return 1;
  if (file.startsWith("app/services/") || file.startsWith("app/jobs/")) return 2;
  if (file.startsWith("app/api/") || file.startsWith("app/admin/")) return 3;
  if (file.startsWith("app/routes/") || /^app\/(root|entry\.server|routes)\.tsx?$/.test(file)) return 4;
  if (file === "app/shopify.server.ts") return 3;
  return 0; // app/lib, env, logger, redis, generated types
}

function resolveImport(from: string, specifier: string): string | null {
  let target: string;
  if (specifier.startsWith("~/")) target = path.join("app", specifier.slice(2));
  else if (specifier.startsWith(".")) target = path.join(path.dirname(from), specifier);
  else return null;
  for (const candidate of [target, `${target}.ts`, `${target}.tsx`, path.join(target, "index.ts")]) {
    if (appFiles.includes(candidate)) return candidate;
  }
  return null;
}

/** Every module a file imports, as its import or export statement spells it. */
function specifiersOf(file: string): string[] {
  return [
    ...code(file).matchAll(/(?:import|export)[^"']*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g),
  ].map((match) => match[1] ?? match[2]!);
}

function importsOf(file: string): string[] {
  return specifiersOf(file)
    .map((specifier) => resolveImport(file, specifier))
    .filter((target): target is string => target !== null);
}

describe("the import graph of app/", () => {
  const graph = new Map(appFiles.map((file) => [file, importsOf(file)]));

  it("has no arrow from a lower layer to a higher one", () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => layerOf(target) > layerOf(file)).map((target) => `${file} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it("has no cycle (no arrow back up inside a layer)", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        cycles.push([...trail.slice(trail.indexOf(file)), file].join(" -> "));
        return;
      }
      state.set(file, "open");
      for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
      state.set(file, "done");
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });
});

describe("names", () => {
  it("no two runtime modules share a file name", () => {
    const byName = new Map<string, string[]>();
    for (const file of runtimeFiles) {
      if (file.startsWith("app/routes/")) continue; // named by the URL they serve
      const name = path.basename(file).replace(/(\.server)?\.tsx?$/, "");
      if (name === "index") continue;
      byName.set(name, [...(byName.get(name) ?? []), file]);
    }
    expect([...byName.values()].filter((files) => files.length > 1)).toEqual([]);
  });

  it("comments cite the repository's own documents, never a numbered section of an outside one", () => {
    const files = [...runtimeFiles, ...sourceFiles("scripts"), ...sourceFiles("tests"), "prisma/schema.prisma"].filter(
      (file) => file !== "tests/repo/architecture.test.ts",
    );
    const citing = files.filter((file) => /\bspec(\s+§?\d|\s*§)|shared\/spec|wishlist-api-v1/i.test(read(file)));
    expect(citing).toEqual([]);
  });
});

describe("the tests' layout", () => {
  it("no test file sits at tests/ root: each lives in the folder that mirrors its subject's", () => {
    const loose = readdirSync(path.join(root, "tests")).filter((file) => /\.test\.tsx?$/.test(file));
    expect(loose).toEqual([]);
  });
});

describe("benchmarks and tests", () => {
  it("nothing under scripts/ imports from tests/: what both need lives in scripts/lib", () => {
    const intoTests = sourceFiles("scripts").flatMap((file) =>
      specifiersOf(file)
        .filter((specifier) => path.join(path.dirname(file), specifier).startsWith("tests/"))
        .map((specifier) => `${file} -> ${specifier}`),
    );
    expect(intoTests).toEqual([]);
  });
});

describe("the app seen from outside app/", () => {
  it("worker/, server/, scripts/ and stand-in/ import the app through the ~/ alias, not ../app paths", () => {
    const files = ["worker", "server", "scripts", "stand-in"].flatMap((dir) => sourceFiles(dir));
    const relative = files.flatMap((file) =>
      specifiersOf(file)
        .filter((specifier) => /^(\.\.\/)+app\//.test(specifier))
        .map((specifier) => `${file} -> ${specifier}`),
    );
    expect(relative).toEqual([]);
  });
});
