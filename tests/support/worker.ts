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
    await worker.waitForOutput(/worker ready/, 90_000);
  });
  afterAll(async () => {
    expect(await worker!.stop()).toBe(0);
  });
}

/**
 * A worker process the test starts and stops itself (to let work wait in the outbox or the queue while
 * none runs); the processes still running when the file ends are stopped.
 */
export function manualWorkers() {
  const running: RunningProcess[] = [];
  afterAll(async () => {
    for (const worker of running) await worker.stop();
  });
  return {
    async start() {
      const worker = startProcess("worker/index.ts", {});
      running.push(worker);
      await worker.waitForOutput(/worker ready/, 90_000);
      return worker;
    },
    /** Stops it and requires a clean exit (0) after its active jobs finished. */
    async stop(worker: RunningProcess) {
      expect(await worker.stop(30_000)).toBe(0);
      running.splice(running.indexOf(worker), 1);
    },
  };
}
