import { spawn, type ChildProcess } from "node:child_process";
import { ROOT } from "../../scripts/lib/databases";

export { freePort } from "../../scripts/lib/net";

export interface RunningProcess {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code after SIGTERM (or the timeout rejects). */
  stop: (timeoutMs?: number) => Promise<number | null>;
  waitForOutput: (pattern: RegExp, timeoutMs?: number) => Promise<void>;
}

/** Starts one of our entry points (server/index.ts, worker/index.ts) as a real process. */
export function startProcess(script: string, env: Record<string, string | undefined>): RunningProcess {
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Never outlive the test file, even when a test times out before calling stop().
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.off("exit", killOnExit));
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
        if (child.exitCode !== null)
          throw new Error(`${script} exited (${child.exitCode}) before ${pattern}:\n${output}`);
        if (Date.now() - started > timeoutMs)
          throw new Error(`timed out waiting for ${pattern} from ${script}:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}
