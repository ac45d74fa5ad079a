import { spawn, type ChildProcess } from "node:child_process";
import { ROOT } from "../../scripts/lib/databases";
import { nodeArguments } from "../../scripts/lib/processes";

export { freePort } from "../../scripts/lib/net";

export interface RunningProcess {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code after SIGTERM (or the timeout rejects). */
  stop: (timeoutMs?: number) => Promise<number | null>;
  waitForOutput: (pattern: RegExp, timeoutMs?: number) => Promise<void>;
}

type Cleanup = () => Promise<void>;
const leftovers: Set<Cleanup> = ((globalThis as { __testLeftovers?: Set<Cleanup> }).__testLeftovers ??= new Set());

/**
 * Registers what must not outlive the test file (a child process, a private server), for when a test fails
 * or times out before its own cleanup. Returns the function that forgets it, for once it is cleaned up.
 * The vitest fork ends with SIGTERM and no `exit` event, so a `process.on("exit")` hook never runs there:
 * the setup file's last `afterAll` (tests/setup/per-file.ts) runs these instead.
 */
export function cleanUpAtFileEnd(cleanup: Cleanup): () => void {
  leftovers.add(cleanup);
  return () => void leftovers.delete(cleanup);
}

/** Runs and forgets every cleanup still registered (tests/setup/per-file.ts, after the file's own hooks). */
export async function cleanUpLeftovers(): Promise<void> {
  const pending = [...leftovers];
  leftovers.clear();
  await Promise.allSettled(pending.map((cleanup) => cleanup()));
}

/**
 * SIGKILLs a child process still running (with `group`, its whole process group: what it started too) and
 * waits for it to exit.
 */
export async function killChild(child: ChildProcess, { group = false } = {}): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const dead = new Promise((resolve) => child.once("exit", resolve));
  if (group) process.kill(-child.pid!, "SIGKILL");
  else child.kill("SIGKILL");
  await dead;
}

/**
 * Starts one of our entry points as a real process: the web and worker processes compiled, as production
 * runs them (scripts/lib/processes.ts), any other script through tsx (with `args` after it).
 */
export function startProcess(
  script: string,
  env: Record<string, string | undefined>,
  args: readonly string[] = [],
): RunningProcess {
  const child = spawn(process.execPath, [...nodeArguments(script), ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // A process group of its own, so that what it starts (scripts/dev.ts's web, worker and redis-server)
    // goes with it below.
    detached: true,
  });
  // Never outlive the test file, even when a test times out before calling stop().
  child.once(
    "exit",
    cleanUpAtFileEnd(() => killChild(child, { group: true })),
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  return {
    child,
    output: () => output,
    stop: async (timeoutMs = 30_000) => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(new Error(`${script} did not exit within ${timeoutMs} ms of SIGTERM:\n${output}`));
        }, timeoutMs);
      });
      try {
        return await Promise.race([exited, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    waitForOutput: async (pattern, timeoutMs = 90_000) => {
      const started = Date.now();
      while (!pattern.test(output)) {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${script} exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${output}`);
        if (Date.now() - started > timeoutMs)
          throw new Error(`timed out waiting for ${pattern} from ${script}:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}
