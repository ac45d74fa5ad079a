/**
 * The guide's and the recipes' code blocks are their example files, whole (docs/decisions/060-runnable-docs.md):
 * the fenced block after `<!-- file: <path from the Markdown file> -->` and a blank line (as Prettier writes
 * it) holds exactly that file, so what a reader copies is what the tests compile and run.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./databases";

/** The Markdown files that show example files, and the folders those files live in. */
export const DOCS_DIR = path.join(ROOT, "docs");
export const EXAMPLE_DIRS = ["docs/getting-started", "docs/recipes"].map((dir) => path.join(ROOT, dir));

const LANGUAGES: Record<string, string> = { ".ts": "ts", ".sh": "sh" };
// The lazy `??`: an empty block (a new marker's) ends at its own closing fence, not at the next block's.
const BLOCK = /^<!-- file: (\S+) -->\n\n```[^\n]*\n(?:[\s\S]*?\n)??```/gm;

/** Every Markdown file under docs/, by absolute path. */
export function markdownFiles(dir = DOCS_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith(".md") ? [full] : [];
  });
}

/** Every example file (the code under EXAMPLE_DIRS), by absolute path. */
export function exampleFiles(): string[] {
  return EXAMPLE_DIRS.flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => path.extname(name) in LANGUAGES)
      .map((name) => path.join(dir, name)),
  );
}

/**
 * The Markdown with each marked block replaced by its file as it is now, and the files it shows (absolute
 * paths). A marker naming a missing file, or not followed by a blank line and a block, throws.
 */
export function embedExamples(markdownFile: string): { text: string; shown: string[] } {
  const shown: string[] = [];
  const markdown = readFileSync(markdownFile, "utf8");
  const markers = markdown.match(/^<!-- file:/gm)?.length ?? 0;
  const text = markdown.replace(BLOCK, (_block, relative: string) => {
    const file = path.resolve(path.dirname(markdownFile), relative);
    shown.push(file);
    const language = LANGUAGES[path.extname(file)] ?? "";
    const code = readFileSync(file, "utf8").replace(/\n$/, "");
    return `<!-- file: ${relative} -->\n\n\`\`\`${language}\n${code}\n\`\`\``;
  });
  if (shown.length !== markers) {
    throw new Error(`${markdownFile}: a <!-- file: ... --> marker is not followed by a blank line and a code block`);
  }
  return { text, shown };
}
