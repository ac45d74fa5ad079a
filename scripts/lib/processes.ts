/**
 * The web and worker processes as production runs them: JavaScript compiled ahead of time into
 * build/processes, one bundle per entry point with the packages left to node_modules, so that no
 * TypeScript is transpiled at start-up (docs/decisions/043-compiled-processes.md). `npm run build` writes
 * them; the tests' global setup writes them again, so that a test never starts a stale one.
 */
import path from "node:path";
import { build } from "esbuild";
import { ROOT } from "./databases";

const ENTRIES = {
  "server/index.ts": "build/processes/server/index.js",
  "worker/index.ts": "build/processes/worker/index.js",
} as const satisfies Record<string, string>;

type Entry = keyof typeof ENTRIES;

const isEntry = (script: string): script is Entry => Object.hasOwn(ENTRIES, script);

/** Compiles server/index.ts and worker/index.ts (with what they import from the project) into build/processes. */
export async function buildProcesses(): Promise<void> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(
      Object.entries(ENTRIES).map(([source, output]) => [output.replace(/^build\/processes\/|\.js$/g, ""), source]),
    ),
    outdir: path.join(ROOT, "build/processes"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Packages load from node_modules as they are: the bundle holds only the project's own code.
    packages: "external",
    tsconfig: path.join(ROOT, "tsconfig.json"),
    sourcemap: true,
    logLevel: "warning",
  });
}

/**
 * Node's arguments that start `script`: the compiled bundle for the web and worker processes (with source
 * maps, so stack traces name the TypeScript), any other script through tsx.
 */
export function nodeArguments(script: string): string[] {
  return isEntry(script) ? ["--enable-source-maps", path.join(ROOT, ENTRIES[script])] : ["--import", "tsx", script];
}
