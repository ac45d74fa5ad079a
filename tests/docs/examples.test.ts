/**
 * The guide's and the recipes' code (docs/getting-started, docs/recipes; issue 31): each Markdown block that
 * shows a file equals the file, every example file is shown, and the examples compile against the built SDK
 * (sdk/dist) as a reader's project compiles them (docs/decisions/060-runnable-docs.md). The other files of
 * tests/docs run them.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/databases";
import { embedExamples, exampleFiles, markdownFiles } from "../../scripts/lib/docs-examples";

describe("the docs' examples", () => {
  it("are shown whole in the Markdown, each block equal to its file, and none is shown nowhere", () => {
    const shown = new Set<string>();
    for (const file of markdownFiles()) {
      const { text, shown: files } = embedExamples(file);
      expect(text, `${path.relative(ROOT, file)}: run \`npm run docs:examples\``).toBe(readFileSync(file, "utf8"));
      files.forEach((example) => shown.add(example));
    }
    const examples = exampleFiles();
    expect(examples.map((file) => path.relative(ROOT, file))).toEqual(
      expect.arrayContaining(["docs/getting-started/save-item.ts", "docs/recipes/backfill.ts"]),
    );
    expect(examples.filter((file) => !shown.has(file)).map((file) => path.relative(ROOT, file))).toEqual([]);
  });

  it("compile against the built SDK's declarations, strictly", () => {
    expect(existsSync(path.join(ROOT, "sdk/dist/index.d.ts")), "run `npm run sdk:build`").toBe(true);
    const tsc = spawnSync(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "docs"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  });

  it("name the tarball `npm pack` makes of the SDK as it is versioned now", () => {
    const { name, version } = JSON.parse(readFileSync(path.join(ROOT, "sdk/package.json"), "utf8")) as {
      name: string;
      version: string;
    };
    const tarball = `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
    const guide = readFileSync(path.join(ROOT, "docs/getting-started.md"), "utf8");
    expect(guide).toContain(`npm install "$SERVICE/sdk/${tarball}"`);
    expect(guide).toContain(`writes \`sdk/${tarball}\``);
  });
});
