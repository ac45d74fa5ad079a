import { afterAll, beforeAll, expect } from "vitest";
import { startProcess, type RunningProcess } from "./processes";

/**
 * The real worker process (worker/index.ts) for the tests of the current file or describe block: started
 * once it is ready, and required to shut down cleanly (exit 0) at the end.
 */
export function useWorker(env: Record<string, string | undefined> = {}) {
  let worker: RunningProcess | undefined;
  beforeAll(async () => {
    worker = startProcess("worker/index.ts", env);
    await worker.waitForOutput(/worker ready/);
  });
  afterAll(async () => {
    expect(await worker!.stop()).toBe(0);
  });
}
