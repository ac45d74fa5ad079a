import { afterAll } from "vitest";
import { until } from "./poll";
import { freePort, startProcess, type RunningProcess } from "./processes";

/**
 * The real web process (server/index.ts) on a free loopback port for this test file, answering /healthz before this
 * resolves, stopped when the file ends. `env` is added to the test's environment (which it inherits); `port` is for
 * a file that must name the address before the process starts.
 */
export async function useWebProcess({
  env = {},
  port: chosen,
}: { env?: Record<string, string>; port?: number } = {}): Promise<{ baseUrl: string; web: RunningProcess }> {
  const port = chosen ?? (await freePort());
  const web = startProcess("server/index.ts", {
    NODE_ENV: "test",
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    ...env,
  });
  afterAll(() => web.stop());
  const baseUrl = `http://127.0.0.1:${port}`;
  await until(
    () =>
      fetch(`${baseUrl}/healthz`).then(
        (response) => response.ok,
        () => false,
      ),
    Boolean,
    "the web process answering /healthz",
  );
  return { baseUrl, web };
}
