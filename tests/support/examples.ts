import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../../scripts/lib/databases";
import { freePort, startProcess, type RunningProcess } from "./processes";
import { useWebProcess } from "./web-process";
import { useWorker } from "./worker";

/**
 * The service as `npm run dev` runs it for the examples, on this file's database: the real web process and
 * worker, webhooks allowed to plain http on loopback (and retried after seconds). Call at the top of the file.
 */
export async function useService(): Promise<{ baseUrl: string }> {
  Object.assign(process.env, {
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
    WEBHOOK_RETRY_UNIT_MS: "1000",
    OUTBOX_RELAY_INTERVAL_MS: "50",
  });
  useWorker();
  const port = await freePort();
  // The address the export's signed links name.
  const { baseUrl } = await useWebProcess({ port, env: { SHOPIFY_APP_URL: `http://127.0.0.1:${port}` } });
  return { baseUrl };
}

/**
 * The guide's and the recipes' programs (docs/getting-started, docs/recipes) as a reader runs them, through tsx,
 * with `@wishlist-service/sdk` resolved to the built package (sdk/dist) by docs/tsconfig.json
 * (docs/decisions/060-runnable-docs.md). `file` is relative to docs/.
 */
export function startExample(file: string, env: Record<string, string>, args: readonly string[] = []): RunningProcess {
  return startProcess(
    path.join("docs", file),
    { TSX_TSCONFIG_PATH: path.join(ROOT, "docs/tsconfig.json"), ...env },
    args,
  );
}

export interface ExampleRun {
  code: number | null;
  stdout: string;
  /** stdout and stderr, interleaved. */
  output: string;
}

/** Runs an example program to its end. */
export async function runExample(
  file: string,
  env: Record<string, string>,
  args: readonly string[] = [],
): Promise<ExampleRun> {
  const example = startExample(file, env, args);
  let stdout = "";
  example.child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => example.child.once("exit", resolve));
  return { code, stdout, output: example.output() };
}

/** Runs it and requires exit code 0, showing its output when it fails. */
export async function runExampleOk(
  file: string,
  env: Record<string, string>,
  args: readonly string[] = [],
): Promise<ExampleRun> {
  const run = await runExample(file, env, args);
  if (run.code !== 0) throw new Error(`${file} ${args.join(" ")} exited ${run.code}:\n${run.output}`);
  return run;
}

/** The variables of a `.env` file (KEY=value lines), as `node --env-file` reads them. */
export function readEnvFile(file: string): Record<string, string> {
  return readEnvText(readFileSync(file, "utf8"));
}

/** The variables of KEY=value lines (a later line wins, as with `node --env-file`). */
export function readEnvText(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}
