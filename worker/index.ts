// Worker process entry: validate the environment before anything else loads, then start consuming.
import { EnvError, getEnv, loadDotEnv } from "../app/env.server";

process.env.SERVICE_ROLE = "worker";
loadDotEnv();
try {
  getEnv();
} catch (error) {
  if (!(error instanceof EnvError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

const { startWorker } = await import("./main");
await startWorker();
