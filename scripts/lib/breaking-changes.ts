/**
 * The breaking-change check of the API contract (docs/decisions/059-breaking-change-check.md): Optic
 * (`optic diff --check`, an established OpenAPI diff tool) compares a released OpenAPI document with another,
 * with the rules of scripts/lib/optic-contract-ruleset.js. Used by `npm run openapi:breaking` and its test.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";

type Document = Record<string, unknown>;
type PathItem = Record<string, { requestBody?: { content?: unknown }; operationId?: string }>;

export interface BreakingChangeReport {
  /** True when Optic found no breaking change (and could read both documents). */
  passed: boolean;
  /** Optic's report, as it prints it. */
  output: string;
}

const require = createRequire(import.meta.url);
const OPTIC = require.resolve("@useoptic/optic/build/index.js");
const RULESET = path.join(import.meta.dirname, "optic-contract-ruleset.js");
/** Where each outgoing webhook appears in the documents Optic compares; no /v1 path can look like it. */
export const WEBHOOK_PATH_PREFIX = "/(webhook)/";

/**
 * Optic checks `paths` only and passes over OpenAPI 3.1 `webhooks`. The payload of an outgoing webhook is, to
 * the receiver, what a response is to a client (we write it, they read it), so each webhook is handed to Optic
 * as an operation that answers its payload, and the response rules (no field removed, no type changed, no
 * enum value removed) apply to it.
 */
export function webhooksAsOperations(document: Document): Document {
  const { webhooks, ...rest } = document as Document & { webhooks?: Record<string, PathItem> };
  const paths: Record<string, unknown> = { ...(rest.paths as Record<string, unknown>) };
  for (const [name, item] of Object.entries(webhooks ?? {})) {
    const operations: Record<string, unknown> = {};
    for (const [method, operation] of Object.entries(item)) {
      operations[method] = {
        operationId: operation.operationId,
        responses: {
          "200": { description: `The ${name} payload.`, content: operation.requestBody?.content ?? {} },
        },
      };
    }
    paths[`${WEBHOOK_PATH_PREFIX}${name}`] = operations;
  }
  return { ...rest, paths };
}

/** Runs Optic on the two documents: `passed` is false on any breaking change of `served` against `released`. */
export async function checkBreakingChanges(released: Document, served: Document): Promise<BreakingChangeReport> {
  const directory = await mkdtemp(path.join(tmpdir(), "openapi-breaking-"));
  try {
    await writeFile(path.join(directory, "released.json"), JSON.stringify(webhooksAsOperations(released), null, 1));
    await writeFile(path.join(directory, "served.json"), JSON.stringify(webhooksAsOperations(served), null, 1));
    // The standard names the ruleset by absolute path: Optic resolves a relative one against its working directory.
    await writeFile(path.join(directory, "standard.yml"), `ruleset:\n  - ${JSON.stringify(RULESET)}\n`);
    const { code, output } = await run(
      process.execPath,
      [OPTIC, "diff", "released.json", "served.json", "--check", "--standard", "standard.yml"],
      directory,
    );
    return { passed: code === 0, output };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // The app's LOG_LEVEL (silent in scripts) would silence Optic's report too: Optic reads the same variable.
    const { LOG_LEVEL: _appLogLevel, ...environment } = process.env;
    const child = spawn(command, args, {
      cwd,
      // No error reports or usage events sent to Optic's servers (and none hanging on a closed network).
      env: { ...environment, OPTIC_TELEMETRY_LEVEL: "off", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}
