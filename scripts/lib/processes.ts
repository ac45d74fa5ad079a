/**
 * The web and worker processes as production runs them: JavaScript compiled ahead of time into
 * build/processes, one bundle per entry point with the packages left to node_modules, so that no
 * TypeScript is transpiled at start-up (docs/decisions/043-compiled-processes.md). `npm run build` writes
 * them; the tests' global setup writes them again, so that a test never starts a stale one.
 */
import path from "node:path";
import { build } from "esbuild";
import { ROOT } from "./databases";

/** The processes compiled, by name: build/processes/<name>/index.js is compiled from the source. */
const ENTRIES = { server: "server/index.ts", worker: "worker/index.ts" } as const;
const OUT_DIR = "build/processes";

/** Compiles server/index.ts and worker/index.ts (with what they import from the project) into build/processes. */
export async function buildProcesses(): Promise<void> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: Object.entries(ENTRIES).map(([name, source]) => ({ in: source, out: `${name}/index` })),
    outdir: path.join(ROOT, OUT_DIR),
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
 * The worker's V8 memory settings, as `npm run worker`, compose.yaml and the tests run it
 * (docs/decisions/051-worker-memory.md): a young generation twice V8's default, so a batch's short-lived
 * objects die young instead of filling the old space, and an old space of 160 MB, so V8 collects it instead
 * of growing it on a machine with memory to spare. The worker's live set stays small (every job pages
 * through its data): 249 MB RSS at most, sending a 100,000-customer restock (docs/benchmarks.md, "Alerts").
 */
export const WORKER_NODE_FLAGS = ["--max-old-space-size=160", "--max-semi-space-size=32"] as const;

/**
 * Node's arguments that start `script`: the compiled bundle for the web and worker processes (with source
 * maps, so stack traces name the TypeScript; the worker with its memory settings unless `workerFlags` says
 * otherwise), any other script through tsx.
 */
export function nodeArguments(
  script: string,
  { workerFlags = WORKER_NODE_FLAGS }: { workerFlags?: readonly string[] } = {},
): string[] {
  const name = Object.entries(ENTRIES).find(([, source]) => source === script)?.[0];
  if (!name) return ["--import", "tsx", script];
  return [
    ...(name === "worker" ? workerFlags : []),
    "--enable-source-maps",
    path.join(ROOT, OUT_DIR, name, "index.js"),
  ];
}
