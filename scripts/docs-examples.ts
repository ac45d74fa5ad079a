/**
 * `npm run docs:examples`: copies each example file into the Markdown block that shows it (docs/getting-started.md,
 * docs/recipes/*.md; scripts/lib/docs-examples.ts). `--check` fails when a block differs from its file, or an
 * example file is shown nowhere (tests/docs/examples.test.ts checks the same).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { embedExamples, exampleFiles, markdownFiles } from "./lib/docs-examples";
import { ROOT } from "./lib/databases";

const check = process.argv.includes("--check");
const shown = new Set<string>();
const stale: string[] = [];
for (const file of markdownFiles()) {
  const { text, shown: files } = embedExamples(file);
  files.forEach((example) => shown.add(example));
  if (text === readFileSync(file, "utf8")) continue;
  stale.push(path.relative(ROOT, file));
  if (!check) writeFileSync(file, text);
}
const unshown = exampleFiles()
  .filter((file) => !shown.has(file))
  .map((file) => path.relative(ROOT, file));

if (unshown.length) process.stderr.write(`shown in no Markdown file: ${unshown.join(", ")}\n`);
if (check && stale.length) process.stderr.write(`out of date: ${stale.join(", ")}; run \`npm run docs:examples\`\n`);
else if (stale.length) process.stdout.write(`wrote ${stale.join(", ")}\n`);
process.exit((check && stale.length) || unshown.length ? 1 : 0);
