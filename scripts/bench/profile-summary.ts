/**
 * `node --import tsx scripts/bench/profile-summary.ts <file.cpuprofile> [--top 15] [--skip 0]` (issue 27)
 *
 * Where a process's CPU went, by layer: each sample's self time is given to the function on top of the stack
 * and that function to a layer by where it lives: a package of node_modules (the HTTP adapter, the router,
 * validation, the query builder, the drivers, Redis, logging), Node's own internals, the garbage collector,
 * or the project's own code. The web and worker processes run a bundle (build/processes); its source map
 * names the TypeScript file of each function, so the project's code is split by its source folders too
 * (authentication, rate limit, idempotency, routes, services, data layer). Shares are of the busy time (idle
 * left out), then the top functions by self time. `--skip` leaves out the first seconds of the profile (the
 * process's start-up: loading modules, before the load begins).
 *
 * Profiles come from `BENCH_PROFILE_DIR=<dir> npm run bench -- <name>` (each process writes one when it stops).
 */
import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Packages of node_modules by the layer of a request they serve. */
const PACKAGE_LAYERS: Array<[RegExp, string]> = [
  [/^@hono\/node-server$/, "HTTP adapter (node:http <-> Fetch)"],
  [/^(hono|@hono\/zod-openapi|@asteasolutions\/zod-to-openapi)$/, "routing (Hono)"],
  [/^zod$/, "validation (zod)"],
  [/^kysely$/, "query building (Kysely)"],
  [/^better-sqlite3$/, "SQL driver (better-sqlite3)"],
  [/^(pg|pg-protocol|pg-pool|pg-types|postgres-.*|pgpass)$/, "SQL driver (pg)"],
  [/^(ioredis|rate-limiter-flexible|bullmq|cluster-key-slot|standard-as-callback|redis-parser|msgpackr)$/, "Redis"],
  [/^(pino|pino-std-serializers|sonic-boom|thread-stream|fast-redact|quick-format-unescaped)$/, "logging"],
  [/^(typeid-js|uuid|uuidv7)$/, "ids"],
  [/^(undici)$/, "HTTP client (undici)"],
  [/^(@remix-run\/.*|react|react-dom|@shopify\/polaris)$/, "admin (Remix, React)"],
  [/^@shopify\//, "platform library"],
];

/** The project's folders by layer (first match wins). */
const SOURCE_LAYERS: Array<[RegExp, string]> = [
  [/app\/api\/v1\/auth/, "authentication"],
  [/app\/api\/v1\/rate-limit|app\/lib\/rate-limit/, "rate limit"],
  [/app\/api\/v1\/idempotency/, "idempotency"],
  [
    /app\/api\/v1\/(schemas|body|nul-characters|validation|route|shopper|client-address|app\.server|context)/,
    "routing and validation (ours)",
  ],
  [/app\/api\/v1\/(routes\/|serializers)/, "routes and serialisation"],
  [/app\/api\//, "HTTP layer (ours)"],
  [/app\/data\//, "data layer (ours)"],
  [/app\/services\//, "services"],
  [/app\/logger/, "logging"],
  [/server\//, "HTTP adapter (ours)"],
  [/worker\//, "worker (ours)"],
  [/app\//, "app (other)"],
];

const NODE_LAYERS: Array<[RegExp, string]> = [
  [
    /deps\/undici|internal\/webstreams|internal\/streams\/(web|readable|writable)|internal\/url|internal\/webidl/,
    "Fetch objects and streams (Node)",
  ],
  [/_http_|internal\/http|net\.js|internal\/stream_base|internal\/net/, "node:http and sockets"],
  [/crypto/, "crypto"],
];

const { positionals, values } = parseArgs({
  args: process.argv.slice(2),
  options: { top: { type: "string", default: "15" }, skip: { type: "string", default: "0" } },
  allowPositionals: true,
});
const file = positionals[0];
if (!file) {
  process.stderr.write("usage: profile-summary.ts <file.cpuprofile> [--top 15]\n");
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

const sourceMaps = new Map<string, SourceMap | null>();
function sourceMapOf(url: string): SourceMap | null {
  if (!sourceMaps.has(url)) {
    let map: SourceMap | null = null;
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, "utf8")));
    } catch {
      // No map beside the file: the file's own path is the source.
    }
    sourceMaps.set(url, map);
  }
  return sourceMaps.get(url)!;
}

/** The source file a frame's code was written in (through the bundle's source map), or its URL. */
function sourceOf(frame: CallFrame): string {
  // Only the project's bundles: packages' own maps would name their sources relative to themselves.
  if (!frame.url.startsWith("file:") || !frame.url.includes("/build/processes/")) return frame.url;
  const map = sourceMapOf(frame.url);
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string } | undefined;
  return entry?.originalSource ?? frame.url;
}

function layerOf(frame: CallFrame, source: string): string {
  const name = frame.functionName;
  if (name === "(idle)") return "(idle)";
  if (name === "(garbage collector)") return "garbage collector";
  if (name === "(program)") return "(program: native, not attributed)";
  const packageName = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1];
  if (packageName) {
    return PACKAGE_LAYERS.find(([pattern]) => pattern.test(packageName))?.[1] ?? `package ${packageName}`;
  }
  if (source.startsWith("node:") || (!source && !frame.url)) {
    return NODE_LAYERS.find(([pattern]) => pattern.test(source))?.[1] ?? "Node (other, and native functions)";
  }
  return SOURCE_LAYERS.find(([pattern]) => pattern.test(source))?.[1] ?? `other ${source}`;
}

const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
const SPECIAL = new Set(["(idle)", "(garbage collector)", "(program)", "(root)"]);

/**
 * The frame a sample is counted for: a native function (no URL: a socket write, a SQLite step, a hash)
 * counts for the nearest caller written in JavaScript, so its time lands in the layer that asked for it.
 */
function attributedFrame(id: number): { frame: CallFrame; native: string | null } {
  const leaf = byNode.get(id)!.callFrame;
  if (leaf.url || SPECIAL.has(leaf.functionName)) return { frame: leaf, native: null };
  for (let parent = parents.get(id); parent !== undefined; parent = parents.get(parent)) {
    const frame = byNode.get(parent)!.callFrame;
    if (frame.url) return { frame, native: leaf.functionName };
  }
  return { frame: leaf, native: null };
}
const layerTimes = new Map<string, number>();
const functionTimes = new Map<string, number>();
let idle = 0;
let total = 0;
let elapsed = 0;
const skipped = Number(values.skip) * 1e6;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  elapsed += delta;
  if (elapsed < skipped) return;
  const { frame, native } = attributedFrame(id);
  const source = sourceOf(frame);
  const layer = layerOf(frame, source);
  total += delta;
  if (layer === "(idle)") {
    idle += delta;
    return;
  }
  layerTimes.set(layer, (layerTimes.get(layer) ?? 0) + delta);
  const where = `${native ? `${native} < ` : ""}${frame.functionName || "(anonymous)"} ${source.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(app|server|worker)\//, "$1/")}`;
  functionTimes.set(where, (functionTimes.get(where) ?? 0) + delta);
});
const busy = total - idle;
const share = (time: number) => `${((100 * time) / busy).toFixed(1)}%`;
const seconds = (time: number) => (time / 1e6).toFixed(2);
const sorted = (times: Map<string, number>) => [...times].sort(([, left], [, right]) => right - left);

const lines = [
  `${file}: ${seconds(total)} s profiled after the first ${values.skip} s, ${seconds(busy)} s busy ` +
    `(${((100 * busy) / total).toFixed(0)}%)`,
  "",
  "| Layer | CPU s | share of busy |",
  "|---|---|---|",
  ...sorted(layerTimes).map(([layer, time]) => `| ${layer} | ${seconds(time)} | ${share(time)} |`),
  "",
  `Top ${values.top} functions by self time:`,
  ...sorted(functionTimes)
    .slice(0, Number(values.top))
    .map(([where, time]) => `  ${share(time).padStart(6)}  ${where}`),
];
process.stdout.write(`${lines.join("\n")}\n`);
